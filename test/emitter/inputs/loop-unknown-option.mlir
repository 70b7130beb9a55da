// A tile.* loop attribute that is no tl.range option: refused, not emitted.
builtin.module {
  tile.func @loops(%n: !tile.scalar) attributes {param_names = ["n"], decorators = ["triton.jit"]} {
    %0 = arith.constant 0 : i32
    %1 = arith.constant 1 : i32
    %2 = tile.retype %n : !tile.scalar -> i32
    scf.for %j = %0 to %2 step %1 : i32 {
      scf.yield
    } {tile.loop = "range", tile.prefetch = 2 : i64}
    tile.return
  }
}
