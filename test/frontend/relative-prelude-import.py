# RUN: not overlap-opt %S/inputs/helperpkg/autotuned.py -t triton 2>&1 | filecheck %s
# Module-level Python a kernel reaches through an import of the user's own
# package (autotune configurations from `from .configs import block_configs`)
# is not carried: importing that module from the emitted file would run
# whatever it holds, and only Triton may be imported (dialects/python_grammar.py).
# The error names the import's line in the kernel file.

# CHECK: overlap-opt: error: {{.*}}helperpkg/autotuned.py:6: 'from helperpkg.configs import block_configs' imports 'helperpkg.configs.block_configs', which is not one of the Triton modules and names an emitted file may import
