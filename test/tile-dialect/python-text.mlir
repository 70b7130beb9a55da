// Python text the tile dialect accepts: what the frontend produces from real
// kernels (autotune decorators calling the kernel file's own functions,
// heuristics lambdas, aliased jit decorators, defaults naming module-level
// constants, Triton builtins under tl/triton, min/max, methods), and values
// used in regions nested below their definition.
// RUN: overlap-opt %s | filecheck %s
// RUN: overlap-opt %s | overlap-opt | filecheck %s

builtin.module attributes {tile.prelude = "from triton import jit as tjit\nfrom triton.language.extra import libdevice\nGROUP: tl.constexpr = 4\n\ndef get_configs():\n    return [triton.Config({'BLOCK': b}) for b in (16, 32)]"} {
  tile.func @helper(%a: !tile.any) -> !tile.any attributes {decorators = ["tjit"]} {
    tile.return %a : !tile.any
  }
  tile.func @kernel(%p: !tile.ptr, %n: !tile.scalar, %BLOCK: !tile.constexpr, %G: !tile.constexpr, %MODE: !tile.constexpr) attributes {decorators = ["triton.autotune(configs=get_configs(), key=['n'])", "triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})", "triton.autotune(configs=[triton.Config({'BLOCK': b}, num_warps=w) for b, w in zip([16, 32], [4, 8])], key=list(['n']))", "triton.jit"], defaults = {G = "GROUP", MODE = "'fast'"}, arg_annotations = {n = "tl.int32"}} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %f = arith.constant 1.000000e+00 : f32
    %e = tile.call "tl.extra.libdevice.exp"(%f) : (f32) -> f32
    %s = tile.call "tl.math.exp2"(%e) : (f32) -> f32
    %m = tile.call "min"(%c0, %c1) : (i32, i32) -> i32
    %dt = tile.literal f16
    %h = tile.call ".to"(%s, %dt) {static_kwargs = {fp_downcast_rounding = "rtne"}} : (f32, !tile.constexpr) -> !tile.any
    %any = tile.call_jit @helper(%h) : (!tile.any) -> !tile.any
    %ety = tile.attr %p, "dtype.element_ty" : !tile.ptr -> !tile.constexpr
    scf.for %i = %c0 to %m step %c1 : i32 {
      %q = tile.addptr %p, %i : !tile.ptr, i32 -> !tile.ptr
      %ok = tile.cmp "lt", %i, %n : i32, !tile.scalar -> i1
      tile.store %any, %q mask %ok : i1 : !tile.any, !tile.ptr
      scf.if %ok {
        tile.store %any, %q mask %any : !tile.any : !tile.any, !tile.ptr
        scf.yield
      }
      scf.yield
    }
    tile.return
  }
}

// CHECK:      tile.func @helper(%a: !tile.any) -> !tile.any attributes {param_names = ["a"], decorators = ["tjit"]}
// CHECK:      tile.func @kernel
// CHECK-SAME: defaults = {G = "GROUP", MODE = "'fast'"}
// CHECK:      tile.call "tl.extra.libdevice.exp"
// CHECK:      tile.call "min"
// CHECK:      tile.call ".to"
// CHECK:      tile.call_jit @helper
// CHECK:      tile.store %any, %q mask %any
