"""The GPU World's user-facing error."""


class GpuWorldError(Exception):
    """A setup or launch problem the user must fix (world size, peer access,
    layout, a launch the runtime refuses); the message says what to change."""
