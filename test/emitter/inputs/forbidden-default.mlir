// A default is evaluated on import: a dunder attribute reaches any object.
builtin.module attributes {tile.prelude = "SIZES = [16]"} {
  tile.func @k(%p: !tile.ptr, %B: !tile.constexpr) attributes {defaults = {B = "SIZES.__class__.__subclasses__()"}} {
    tile.return
  }
}
