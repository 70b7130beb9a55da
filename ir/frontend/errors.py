"""User-facing errors of the frontend: always name the file, line and construct."""


class FrontendError(Exception):
    """A Triton construct the frontend cannot import faithfully."""

    def __init__(self, filename: str, line: int, message: str):
        super().__init__(f"{filename}:{line}: error: {message}")
        self.filename = filename
        self.line = line
        self.message = message


class UnknownKernel(FrontendError):
    """A kernel name (``--kernel``) that no jit function of the file has: the
    whole file is meant, so no line is named."""

    def __init__(self, filename: str, message: str):
        super().__init__(filename, 0, message)
        self.args = (f"{filename}: error: {message}",)
