// A class body runs on import: it may only assign allowed expressions.
builtin.module attributes {tile.prelude = "class Tiles:\n    BLOCK = 64\n    LOG = open('/tmp/x', 'w')"} {
}
