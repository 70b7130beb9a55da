// An import of anything but Triton runs that module's code on import.
builtin.module attributes {tile.prelude = "X = 4\nimport subprocess"} {
}
