"""Stand-ins for a fused launch's collaborators, shared by the tests of
what a FusedKernel passes to its jit function (autotune, heuristics)."""


class Recorder:
    """Stands in for the fused program's jit function: records each launch."""

    def __init__(self):
        self.launches = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.launches.append((grid, args, kwargs))


class Context:
    """A rank context that adds one extra argument and launches on the original grid."""

    def launch(self, program, grid, bound, run, options=None):
        self.bound = bound
        run({"syn_flags": "flags"})
