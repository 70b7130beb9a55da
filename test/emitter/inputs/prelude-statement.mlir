// The prelude holds the kernel file's imports, assignments and definitions;
// a bare statement would run on import of the emitted file.
builtin.module attributes {tile.prelude = "import os\nos.system('echo hi')"} {
}
