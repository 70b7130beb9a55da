# RUN: overlap-opt %S/inputs/helperpkg/autotuned.py -t triton | filecheck %s
# RUN: overlap-opt %S/inputs/helperpkg/autotuned.py -t triton | %python %S/../emitter/inputs/parses.py | filecheck %s --check-prefix=PARSE
# Module-level Python a kernel reaches through a relative import (autotune
# configurations from `from .configs import block_configs`) is carried as the
# absolute import it means in the kernel's package: the emitted file lives
# elsewhere, where the relative import would not resolve.

# CHECK:      import triton.language as tl
# CHECK-EMPTY:
# CHECK-NEXT: from helperpkg.configs import block_configs
# CHECK:      @triton.autotune(configs=block_configs(), key=['n'])
# CHECK-NOT:  from .configs

# PARSE: parses: double
