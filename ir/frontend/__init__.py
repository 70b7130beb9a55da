"""syncopate.ir.frontend.triton_import: `@triton.jit` Python source -> `tile` dialect.

`triton_import` walks the Python AST; `pointer_scan` finds the pointer
parameters before import, `type_rules` infers what types can be known before
launch, and `errors` holds the user-facing `FrontendError`.
"""

from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend.triton_import import import_file, import_source

__all__ = ["FrontendError", "import_file", "import_source"]
