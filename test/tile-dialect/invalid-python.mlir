// The Python that tile IR holds as text is refused unless it is what its
// property means: the emitter would otherwise write it into the kernel file.
// RUN: overlap-opt %s --split-input-file --verify-diagnostics | filecheck %s

tile.func @k(%x: f32) {
  %0 = tile.call "tl.exp(x); import os; os.getcwd"(%x) : (f32) -> f32
  tile.return
}
// CHECK: tile.call: callee 'tl.exp(x); import os; os.getcwd' is not a dotted path of Python identifiers

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "os.getcwd"() : () -> f32
  tile.return
}
// CHECK: tile.call: callee 'os.getcwd' must start with one of tl, triton

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "exec"(%x) : (f32) -> f32
  tile.return
}
// CHECK: tile.call: callee 'exec': a bare callee must be one of min, max

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "tl.__class__.__init__"(%x) : (f32) -> f32
  tile.return
}
// CHECK: tile.call: callee 'tl.__class__.__init__' reaches the dunder attribute '__class__'

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "tl.None"(%x) : (f32) -> f32
  tile.return
}
// CHECK: tile.call: callee 'tl.None' is not a dotted path of Python identifiers

// -----

tile.func @k() {
  %0 = tile.call ".to"() : () -> f32
  tile.return
}
// CHECK: tile.call: callee '.to' is a method and needs the object as its first operand

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "tl.clamp"(%x, %x, %x) {kwarg_names = ["max", "max"]} : (f32, f32, f32) -> f32
  tile.return
}
// CHECK: tile.call tl.clamp: keyword 'max' given twice

// -----

tile.func @k(%x: f32) {
  %0 = tile.call "tl.clamp"(%x, %x) {kwarg_names = ["max=0) or os.system('x'"]} : (f32, f32) -> f32
  tile.return
}
// CHECK: tile.call tl.clamp: keyword "max=0) or os.system('x'" is not a Python identifier

// -----

tile.func @k(%p: !tile.ptr) {
  %0 = tile.load %p {static_kwargs = {mask = 1 : i64}} : !tile.ptr -> f32
  tile.return
}
// CHECK: tile.load: keyword 'mask' given twice

// -----

tile.func @k(%p: !tile.ptr) {
  %0 = tile.attr %p, "dtype; import os" : !tile.ptr -> !tile.constexpr
  tile.return
}
// CHECK: tile.attr: path 'dtype; import os' is not a dotted path of Python identifiers

// -----

tile.func @k(%p: !tile.ptr) attributes {decorators = ["os.system('echo hi')", "triton.jit"]} {
  tile.return
}
// CHECK: tile.func @k: decorator "os.system('echo hi')": 'os' is neither triton, tl, an allowed builtin nor a module-level name of the kernel file (tile.prelude)

// -----

tile.func @k(%p: !tile.ptr) attributes {decorators = ["triton.jit\nimport os"]} {
  tile.return
}
// CHECK: tile.func @k: decorator 'triton.jit\nimport os': {{.*}} is not a Python expression

// -----

tile.func @k(%p: !tile.ptr) attributes {decorators = ["triton.autotune(configs=[].__class__.__base__.__subclasses__(), key=[])"]} {
  tile.return
}
// CHECK: reads the dunder attribute '__subclasses__'

// -----

tile.func @k(%p: !tile.ptr) attributes {decorators = ["triton.heuristics({'B': (x := 1)})"]} {
  tile.return
}
// CHECK: tile.func @k: decorator "triton.heuristics({'B': (x := 1)})": '(x := 1)' is a NamedExpr, not one of the expressions an emitted file may hold

// -----

tile.func @k(%p: !tile.ptr, %B: !tile.constexpr) attributes {defaults = {B = "__import__('os').getcwd()"}} {
  tile.return
}
// CHECK: tile.func @k: default of 'B' "__import__('os').getcwd()": '__import__' is a dunder name

// -----

tile.func @k(%p: !tile.ptr, %B: !tile.constexpr) attributes {defaults = {B = "16, p=0"}} {
  tile.return
}
// CHECK: tile.func @k: default of 'B' '16, p=0': '16, p=0' is not a Python expression

// -----

tile.func @k(%p: !tile.ptr, %n: !tile.scalar) attributes {arg_annotations = {n = "tl.int32 = 0):\n    pass\nimport os\ndef f(m"}} {
  tile.return
}
// CHECK: tile.func @k: annotation of 'n' {{.*}} is not a Python expression

// -----

tile.func @k(%p: !tile.ptr, %n: !tile.scalar) attributes {arg_annotations = {n = 32 : i64}} {
  tile.return
}
// CHECK: tile.func @k: the annotation of 'n' must be a string, got 32 : i64

// -----

tile.func @k(%p: !tile.ptr, %B: !tile.constexpr) attributes {defaults = {C = "16"}} {
  tile.return
}
// CHECK: tile.func @k: default for 'C', which is not a parameter

// -----

tile.func @k(%B: !tile.constexpr, %p: !tile.ptr) attributes {defaults = {B = "16"}} {
  tile.return
}
// CHECK: tile.func @k: parameter 'p' has no default but follows 'B', which has one (Python needs the defaulted parameters last)

// -----

tile.func @k(%p: !tile.ptr) attributes {param_names = ["p):\n    import os\n    os.getcwd()\ndef g(q"]} {
  tile.return
}
// CHECK: tile.func @k: parameter {{.*}} is not a Python identifier

// -----

tile.func @k(%p: !tile.ptr) attributes {param_names = ["lambda"]} {
  tile.return
}
// CHECK: tile.func @k: parameter 'lambda' is not a Python identifier

// -----

tile.func @k(%p: !tile.ptr) attributes {param_names = ["tl"]} {
  tile.return
}
// CHECK: tile.func @k: parameter 'tl' would shadow the module 'tl' the emitted kernel uses

// -----

tile.func @"k(): pass\nimport os\ndef f"() {
  tile.return
}
// CHECK: tile.func: function name {{.*}} is not a Python identifier

// -----

tile.func @class() {
  tile.return
}
// CHECK: tile.func: function name 'class' is not a Python identifier
