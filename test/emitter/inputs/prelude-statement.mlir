// The prelude holds the kernel file's imports of Triton, assignments and
// definitions; `import os` would run a module other than Triton's on import
// of the emitted file, and a bare statement anything at all.
builtin.module attributes {tile.prelude = "import os\nos.system('echo hi')"} {
}
