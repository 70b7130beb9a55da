// A tl.range option naming something that is no parameter of the kernel.
builtin.module {
  tile.func @k(%n: !tile.scalar) {
    %0 = arith.constant 0 : i32
    %1 = arith.constant 1 : i32
    %2 = tile.retype %n : !tile.scalar -> i32
    scf.for %j = %0 to %2 step %1 : i32 {
      scf.yield
    } {tile.loop = "range", tile.num_stages = @STAGES}
    tile.return
  }
}
