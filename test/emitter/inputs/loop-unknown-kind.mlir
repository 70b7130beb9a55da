// A tile.loop kind that is no Triton iterator: refused, not emitted as range.
builtin.module {
  tile.func @k(%n: !tile.scalar) {
    %0 = arith.constant 0 : i32
    %1 = arith.constant 1 : i32
    %2 = tile.retype %n : !tile.scalar -> i32
    scf.for %j = %0 to %2 step %1 : i32 {
      scf.yield
    } {tile.loop = "os_range"}
    tile.return
  }
}
