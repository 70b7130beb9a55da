// RUN: overlap-opt %s | overlap-opt | filecheck %s
// RUN: overlap-opt %s --print-op-generic | overlap-opt | filecheck %s
// RUN: overlap-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

builtin.module {
  tile.func @helper(%x: !tile.any, %y: !tile.any) -> (!tile.any, !tile.any) attributes {decorators = ["triton.jit"]} {
    tile.return %y, %x : !tile.any, !tile.any
  }
  tile.func @all_ops(%p: !tile.ptr, %n: !tile.scalar, %B: !tile.constexpr, %d: !tile.desc<2>) attributes {decorators = ["triton.autotune(configs=[], key=['n'])", "triton.jit"], defaults = {d = "None"}, arg_annotations = {n = "tl.int32"}} {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %f = arith.constant 1.500000e+00 : f32
    %pid = tile.program_id 0 : i32
    %np = tile.num_programs 2 : i32
    %r = tile.arange %c0, %B : i32, !tile.constexpr -> !tile.block<?xi32>
    %r16 = tile.arange %c0, %c16 : i32, i32 -> !tile.block<16xi32>
    %col = tile.expand_dims %r, 1 : i64 : !tile.block<?xi32> -> !tile.block<?x1xi32>
    %bc = tile.broadcast %col to [%B, %c16] : !tile.block<?x1xi32>, !tile.constexpr, i32 -> !tile.block<?x16xi32>
    %sp = tile.splat %f to [%B, %c16] {dtype = f32} : f32, !tile.constexpr, i32 -> !tile.block<?x16xf32>
    %z = tile.zeros [%B, %c16] {dtype = f16} : !tile.constexpr, i32 -> !tile.block<?x16xf16>
    %add = tile.add %r, %n : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi32>
    %sub = tile.sub %add, %c0 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %mul = tile.mul %sub, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %div = tile.truediv %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xf32>
    %fdiv = tile.floordiv %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %mod = tile.mod %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %and = tile.and %mod, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %or = tile.or %and, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %xor = tile.xor %or, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %shl = tile.shl %xor, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %shr = tile.shr %shl, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
    %lt = tile.cmp "lt", %shr, %n : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %ge = tile.cmp "ge", %shr, %c0 : !tile.block<?xi32>, i32 -> !tile.block<?xi1>
    %land = tile.logical_and %lt, %ge : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
    %lor = tile.logical_or %lt, %ge : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
    %neg = tile.neg %shr : !tile.block<?xi32> -> !tile.block<?xi32>
    %not = tile.not %lor : !tile.block<?xi1> -> !tile.block<?xi1>
    %inv = tile.invert %neg : !tile.block<?xi32> -> !tile.block<?xi32>
    %cd = tile.cdiv %n, %B : !tile.scalar, !tile.constexpr -> !tile.scalar
    %ptrs = tile.addptr %p, %r : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %x = tile.load %ptrs mask %lt : !tile.block<?xi1> other %f : f32 {static_kwargs = {eviction_policy = "evict_last"}} : !tile.block<?x!tile.ptr> -> !tile.block<?xf32>
    %w = tile.where %lt, %x, %f : !tile.block<?xi1>, !tile.block<?xf32>, f32 -> !tile.block<?xf32>
    %h = tile.cast %w {dtype = f16} : !tile.block<?xf32> -> !tile.block<?xf16>
    %bits = tile.cast %w {dtype = i32, bitcast = true} : !tile.block<?xf32> -> !tile.block<?xi32>
    %rt = tile.retype %n : !tile.scalar -> i32
    %lit = tile.literal "fast"
    %dt = tile.literal bf16
    %none = tile.literal none
    %ety = tile.attr %p, "dtype.element_ty" : !tile.ptr -> !tile.constexpr
    %t = tile.trans %sp : !tile.block<?x16xf32> -> !tile.block<16x?xf32>
    %s = tile.reduce "sum" %sp {axis = 1 : i64, keep_dims = true} : !tile.block<?x16xf32> -> !tile.block<?x1xf32>
    %m = tile.reduce "max" %x : !tile.block<?xf32> -> f32
    %dot = tile.dot %sp, %t acc %z : !tile.block<?x16xf16> {static_kwargs = {input_precision = "tf32"}} : !tile.block<?x16xf32>, !tile.block<16x?xf32> -> !tile.block<?x16xf16>
    %dot2 = tile.dot %sp, %t : !tile.block<?x16xf32>, !tile.block<16x?xf32> -> !tile.block<?x?xf32>
    tile.store %x, %ptrs mask %lt : !tile.block<?xi1> : !tile.block<?xf32>, !tile.block<?x!tile.ptr>
    tile.store %m, %p {static_kwargs = {cache_modifier = ".cg"}} : f32, !tile.ptr
    %old = tile.atomic_rmw "add" %p, %c16 {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> i32
    %mx = tile.atomic_rmw "max" %ptrs, %r mask %lt : !tile.block<?xi1> : !tile.block<?x!tile.ptr>, !tile.block<?xi32> -> !tile.block<?xi32>
    %cas = tile.atomic_cas %p, %c0, %c16 {sem = "acquire", scope = "sys"} : !tile.ptr, i32, i32 -> i32
    %desc = tile.make_tensor_descriptor %p shape [%n, %n] strides [%n, %c16] block [%B, %c16] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar, i32), (!tile.constexpr, i32) -> !tile.desc<2>
    %blk = tile.desc_load %desc[%pid, %c0] : !tile.desc<2>, i32, i32 -> !tile.block<?x16xf32>
    tile.desc_store %blk, %d[%pid, %c0] : !tile.block<?x16xf32>, !tile.desc<2>, i32, i32
    tile.desc_atomic "add" %blk, %d[%pid, %c0] : !tile.block<?x16xf32>, !tile.desc<2>, i32, i32
    %bs = tile.desc_block_size %d[1 : i64] : !tile.desc<2>
    %e = tile.call "tl.math.exp2"(%x) : (!tile.block<?xf32>) -> !tile.block<?xf32>
    %mo = tile.call "tl.multiple_of"(%r, %c16) {static_kwargs = {note = 1 : i64}} : (!tile.block<?xi32>, i32) -> !tile.block<?xi32>
    %kw = tile.call "tl.clamp"(%x, %f, %f) {kwarg_names = ["max"]} : (!tile.block<?xf32>, f32, f32) -> !tile.block<?xf32>
    tile.call "tl.debug_barrier"() : () -> ()
    %hx, %hy = tile.call_jit @helper(%x, %n) : (!tile.block<?xf32>, !tile.scalar) -> (!tile.any, !tile.any)
    tile.return
  }
}


// CHECK:        tile.func @helper(%x: !tile.any, %y: !tile.any) -> (!tile.any, !tile.any) attributes {param_names = ["x", "y"], decorators = ["triton.jit"]} {
// CHECK-NEXT:     tile.return %y, %x : !tile.any, !tile.any
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.func @all_ops(%p: !tile.ptr, %n: !tile.scalar, %B: !tile.constexpr, %d: !tile.desc<2>) attributes {param_names = ["p", "n", "B", "d"], decorators = ["triton.autotune(configs=[], key=['n'])", "triton.jit"], defaults = {d = "None"}, arg_annotations = {n = "tl.int32"}} {
// CHECK-NEXT:     %c0 = arith.constant 0 : i32
// CHECK-NEXT:     %c16 = arith.constant 16 : i32
// CHECK-NEXT:     %f = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:     %pid = tile.program_id 0 : i32
// CHECK-NEXT:     %np = tile.num_programs 2 : i32
// CHECK-NEXT:     %r = tile.arange %c0, %B : i32, !tile.constexpr -> !tile.block<?xi32>
// CHECK-NEXT:     %r16 = tile.arange %c0, %c16 : i32, i32 -> !tile.block<16xi32>
// CHECK-NEXT:     %col = tile.expand_dims %r, 1 : i64 : !tile.block<?xi32> -> !tile.block<?x1xi32>
// CHECK-NEXT:     %bc = tile.broadcast %col to[%B, %c16] : !tile.block<?x1xi32>, !tile.constexpr, i32 -> !tile.block<?x16xi32>
// CHECK-NEXT:     %sp = tile.splat %f to[%B, %c16] {dtype = f32} : f32, !tile.constexpr, i32 -> !tile.block<?x16xf32>
// CHECK-NEXT:     %z = tile.zeros[%B, %c16] {dtype = f16} : !tile.constexpr, i32 -> !tile.block<?x16xf16>
// CHECK-NEXT:     %add = tile.add %r, %n : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi32>
// CHECK-NEXT:     %sub = tile.sub %add, %c0 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %mul = tile.mul %sub, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %div = tile.truediv %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xf32>
// CHECK-NEXT:     %fdiv = tile.floordiv %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %mod = tile.mod %mul, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %and = tile.and %mod, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %or = tile.or %and, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %xor = tile.xor %or, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %shl = tile.shl %xor, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %shr = tile.shr %shl, %c16 : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
// CHECK-NEXT:     %lt = tile.cmp "lt", %shr, %n : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
// CHECK-NEXT:     %ge = tile.cmp "ge", %shr, %c0 : !tile.block<?xi32>, i32 -> !tile.block<?xi1>
// CHECK-NEXT:     %land = tile.logical_and %lt, %ge : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
// CHECK-NEXT:     %lor = tile.logical_or %lt, %ge : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
// CHECK-NEXT:     %neg = tile.neg %shr : !tile.block<?xi32> -> !tile.block<?xi32>
// CHECK-NEXT:     %not = tile.not %lor : !tile.block<?xi1> -> !tile.block<?xi1>
// CHECK-NEXT:     %inv = tile.invert %neg : !tile.block<?xi32> -> !tile.block<?xi32>
// CHECK-NEXT:     %cd = tile.cdiv %n, %B : !tile.scalar, !tile.constexpr -> !tile.scalar
// CHECK-NEXT:     %ptrs = tile.addptr %p, %r : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
// CHECK-NEXT:     %x = tile.load %ptrs mask %lt : !tile.block<?xi1> other %f : f32 {static_kwargs = {eviction_policy = "evict_last"}} : !tile.block<?x!tile.ptr> -> !tile.block<?xf32>
// CHECK-NEXT:     %w = tile.where %lt, %x, %f : !tile.block<?xi1>, !tile.block<?xf32>, f32 -> !tile.block<?xf32>
// CHECK-NEXT:     %h = tile.cast %w {dtype = f16} : !tile.block<?xf32> -> !tile.block<?xf16>
// CHECK-NEXT:     %bits = tile.cast %w {dtype = i32, bitcast = true} : !tile.block<?xf32> -> !tile.block<?xi32>
// CHECK-NEXT:     %rt = tile.retype %n : !tile.scalar -> i32
// CHECK-NEXT:     %lit = tile.literal "fast"
// CHECK-NEXT:     %dt = tile.literal bf16
// CHECK-NEXT:     %none = tile.literal none
// CHECK-NEXT:     %ety = tile.attr %p, "dtype.element_ty" : !tile.ptr -> !tile.constexpr
// CHECK-NEXT:     %t = tile.trans %sp : !tile.block<?x16xf32> -> !tile.block<16x?xf32>
// CHECK-NEXT:     %s = tile.reduce "sum" %sp {axis = 1 : i64, keep_dims = true} : !tile.block<?x16xf32> -> !tile.block<?x1xf32>
// CHECK-NEXT:     %m = tile.reduce "max" %x : !tile.block<?xf32> -> f32
// CHECK-NEXT:     %dot = tile.dot %sp, %t acc %z : !tile.block<?x16xf16> {static_kwargs = {input_precision = "tf32"}} : !tile.block<?x16xf32>, !tile.block<16x?xf32> -> !tile.block<?x16xf16>
// CHECK-NEXT:     %dot2 = tile.dot %sp, %t : !tile.block<?x16xf32>, !tile.block<16x?xf32> -> !tile.block<?x?xf32>
// CHECK-NEXT:     tile.store %x, %ptrs mask %lt : !tile.block<?xi1> : !tile.block<?xf32>, !tile.block<?x!tile.ptr>
// CHECK-NEXT:     tile.store %m, %p {static_kwargs = {cache_modifier = ".cg"}} : f32, !tile.ptr
// CHECK-NEXT:     %old = tile.atomic_rmw "add" %p, %c16 {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> i32
// CHECK-NEXT:     %mx = tile.atomic_rmw "max" %ptrs, %r mask %lt : !tile.block<?xi1> : !tile.block<?x!tile.ptr>, !tile.block<?xi32> -> !tile.block<?xi32>
// CHECK-NEXT:     %cas = tile.atomic_cas %p, %c0, %c16 {sem = "acquire", scope = "sys"} : !tile.ptr, i32, i32 -> i32
// CHECK-NEXT:     %desc = tile.make_tensor_descriptor %p shape[%n, %n] strides[%n, %c16] block[%B, %c16] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar, i32), (!tile.constexpr, i32) -> !tile.desc<2>
// CHECK-NEXT:     %blk = tile.desc_load %desc[%pid, %c0] : !tile.desc<2>, i32, i32 -> !tile.block<?x16xf32>
// CHECK-NEXT:     tile.desc_store %blk, %d[%pid, %c0] : !tile.block<?x16xf32>, !tile.desc<2>, i32, i32
// CHECK-NEXT:     tile.desc_atomic "add" %blk, %d[%pid, %c0] : !tile.block<?x16xf32>, !tile.desc<2>, i32, i32
// CHECK-NEXT:     %bs = tile.desc_block_size %d[1 : i64] : !tile.desc<2>
// CHECK-NEXT:     %e = tile.call "tl.math.exp2"(%x) : (!tile.block<?xf32>) -> !tile.block<?xf32>
// CHECK-NEXT:     %mo = tile.call "tl.multiple_of"(%r, %c16) {static_kwargs = {note = 1 : i64}} : (!tile.block<?xi32>, i32) -> !tile.block<?xi32>
// CHECK-NEXT:     %kw = tile.call "tl.clamp"(%x, %f, %f) {kwarg_names = ["max"]} : (!tile.block<?xf32>, f32, f32) -> !tile.block<?xf32>
// CHECK-NEXT:     tile.call "tl.debug_barrier"() : () -> ()
// CHECK-NEXT:     %hx, %hy = tile.call_jit @helper(%x, %n) : (!tile.block<?xf32>, !tile.scalar) -> (!tile.any, !tile.any)
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }

// GENERIC: "tile.func"() <{sym_name = "helper", function_type = (!tile.any, !tile.any) -> (!tile.any, !tile.any), param_names = ["x", "y"], decorators = ["triton.jit"]}> ({
// GENERIC: "tile.func"() <{sym_name = "all_ops", function_type = (!tile.ptr, !tile.scalar, !tile.constexpr, !tile.desc<2>) -> (), param_names = ["p", "n", "B", "d"], decorators = ["triton.autotune(configs=[], key=['n'])", "triton.jit"], defaults = {d = "None"}, arg_annotations = {n = "tl.int32"}}> ({
// GENERIC: %pid = "tile.program_id"() <{axis = 0 : i64}> : () -> i32
// GENERIC: %col = "tile.expand_dims"(%r) <{axis = 1 : i64}> : (!tile.block<?xi32>) -> !tile.block<?x1xi32>
// GENERIC: %x = "tile.load"(%ptrs, %lt, %f) <{static_kwargs = {eviction_policy = "evict_last"}, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!tile.block<?x!tile.ptr>, !tile.block<?xi1>, f32) -> !tile.block<?xf32>
// GENERIC: %lit = "tile.literal"() <{value = "fast"}> : () -> !tile.constexpr
// GENERIC: %dt = "tile.literal"() <{value = bf16}> : () -> !tile.constexpr
// GENERIC: %none = "tile.literal"() <{value = none}> : () -> !tile.constexpr
// GENERIC: %s = "tile.reduce"(%sp) <{kind = "sum", axis = 1 : i64, keep_dims = true}> : (!tile.block<?x16xf32>) -> !tile.block<?x1xf32>
// GENERIC: %m = "tile.reduce"(%x) <{kind = "max"}> : (!tile.block<?xf32>) -> f32
// GENERIC: %desc = "tile.make_tensor_descriptor"(%p, %n, %n, %n, %c16, %B, %c16) <{operandSegmentSizes = array<i32: 1, 2, 2, 2>}> : (!tile.ptr, !tile.scalar, !tile.scalar, !tile.scalar, i32, !tile.constexpr, i32) -> !tile.desc<2>
// GENERIC: "tile.desc_store"(%d, %pid, %c0, %blk) : (!tile.desc<2>, i32, i32, !tile.block<?x16xf32>) -> ()
// GENERIC: "tile.desc_atomic"(%d, %pid, %c0, %blk) <{kind = "add"}> : (!tile.desc<2>, i32, i32, !tile.block<?x16xf32>) -> ()
// GENERIC: %e = "tile.call"(%x) <{callee = "tl.math.exp2"}> : (!tile.block<?xf32>) -> !tile.block<?xf32>
// GENERIC: %mo = "tile.call"(%r, %c16) <{callee = "tl.multiple_of", static_kwargs = {note = 1 : i64}}> : (!tile.block<?xi32>, i32) -> !tile.block<?xi32>
// GENERIC: %kw = "tile.call"(%x, %f, %f) <{callee = "tl.clamp", kwarg_names = ["max"]}> : (!tile.block<?xf32>, f32, f32) -> !tile.block<?xf32>
// GENERIC: "tile.call"() <{callee = "tl.debug_barrier"}> : () -> ()
// GENERIC: %hx, %hy = "tile.call_jit"(%x, %n) <{callee = @helper}> : (!tile.block<?xf32>, !tile.scalar) -> (!tile.any, !tile.any)
