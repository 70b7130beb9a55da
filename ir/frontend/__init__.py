"""syncopate.ir.frontend.triton_import: `@triton.jit` Python source -> `tile` dialect.

`triton_import` reads a file and imports each jit function with a
`FunctionImporter`, composed of one importer per job (`statements`,
`expressions`, `calls`, `tl_calls`) over their shared `importer_context`; `block_pointers`,
`block_starts` and `index_blocks` lower block pointers and carry index
blocks; `prelude` keeps the module-level Python the kernels need,
`helper_modules` finds imported jit helpers; `pointer_scan` finds the
pointer parameters before import, `type_rules` infers what types can be
known before launch, `tl_names` spells `triton.language` objects one way,
and `errors` holds the user-facing `FrontendError`.
"""

from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend.triton_import import import_file, import_source

__all__ = ["FrontendError", "import_file", "import_source"]
