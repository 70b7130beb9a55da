// RUN: not overlap-opt %S/inputs/forbidden-decorator.mlir -t triton 2>&1 | filecheck %s --check-prefix=DECORATOR
// RUN: not overlap-opt %S/inputs/forbidden-prelude-import.mlir -t triton 2>&1 | filecheck %s --check-prefix=IMPORT
// RUN: not overlap-opt %S/inputs/forbidden-class-body.mlir -t triton 2>&1 | filecheck %s --check-prefix=CLASS
// RUN: not overlap-opt %S/inputs/forbidden-default.mlir -t triton 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: overlap-opt %s -t triton | filecheck %s

// The module-level Python of an emitted file (prelude, decorators, defaults,
// annotations) is written only when it is of the grammar of
// dialects/python_grammar.py: literals, arithmetic, the module's own names
// and the Triton names of an allow-list. Anything else is one error line.

// DECORATOR: overlap-opt: error: tile.func @k: decorator "triton.runtime.build.os.system('echo hi')": 'triton.runtime' is not a Triton name an emitted file may use (triton allows Config, autotune, cdiv, heuristics, jit, language, next_power_of_2)
// DECORATOR-NOT: Traceback
// IMPORT: overlap-opt: error: tile.prelude line 2: 'import subprocess' imports 'subprocess', which is not one of the Triton modules and names an emitted file may import
// CLASS: overlap-opt: error: tile.prelude line 3: 'open' is neither triton, tl, an allowed builtin nor a module-level name of the kernel file (tile.prelude)
// DEFAULT: overlap-opt: error: tile.func @k: default of 'B' 'SIZES.__class__.__subclasses__()': 'SIZES.__class__.__subclasses__' reads the dunder attribute '__subclasses__'

// What the grammar allows: Triton imports, config functions, classes of constants.
builtin.module attributes {tile.prelude = "from triton import jit as tjit\nimport triton.language.core as tlc\nDTYPE: tl.constexpr = tl.float16\nBITS = DTYPE.primitive_bitwidth * 2\n\n\nclass Tiles:\n    BLOCK = 64\n\n\ndef configs():\n    out = []\n    for b in SIZES:\n        out.append(triton.Config({'BLOCK': b}, num_warps=4))\n    return out\n\n\nSIZES = [16, 32]"} {
  tile.func @k(%p: !tile.ptr, %n: !tile.scalar, %B: !tile.constexpr) attributes {decorators = ["triton.autotune(configs=configs(), key=['n'])", "triton.heuristics({'EVEN': lambda args: args['n'] % args['B'] == 0})", "tjit"], defaults = {B = "Tiles.BLOCK if BITS > 16 else 32"}, arg_annotations = {n = "tlc.int32"}} {
    tile.return
  }
}
// CHECK:      class Tiles:
// CHECK:      def configs():
// CHECK:      @triton.autotune(configs=configs(), key=['n'])
// CHECK-NEXT: @triton.heuristics({'EVEN': lambda args: args['n'] % args['B'] == 0})
// CHECK-NEXT: @tjit
// CHECK-NEXT: def k(p, n: tlc.int32, B: tl.constexpr = Tiles.BLOCK if BITS > 16 else 32):
