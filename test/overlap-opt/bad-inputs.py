# Bad command lines and files: one `overlap-opt: error:` line, exit 1 (2 for
# argparse usage errors), never a traceback. This file is also the kernel.
# RUN: not overlap-opt %S 2>&1 | filecheck %s --check-prefix=DIR
# RUN: not overlap-opt %s -o %S 2>&1 | filecheck %s --check-prefix=DIR
# RUN: %python %S/inputs/status.py overlap-opt %s -p no-such-pass | filecheck %s --check-prefix=PASS
# RUN: %python %S/inputs/status.py overlap-opt %s -p 'overlap{' | filecheck %s --check-prefix=SPEC
# RUN: %python %S/inputs/status.py overlap-opt %s -p 'overlap{bogus=1}' | filecheck %s --check-prefix=OPTION
# RUN: %python %S/inputs/status.py overlap-opt %t.missing.py | filecheck %s --check-prefix=MISSING
# RUN: %python -c "open('%t.bin.py', 'wb').write(bytes([0x69, 0x6d, 0xff, 0xfe]))"
# RUN: not overlap-opt %t.bin.py 2>&1 | filecheck %s --check-prefix=BINARY
# RUN: %python -c "open('%t.bom.py', 'wb').write(b'\xef\xbb\xbf' + open('%s', 'rb').read())"
# RUN: overlap-opt %t.bom.py | filecheck %s --check-prefix=BOM
# RUN: %python -c "open('%t.mlir', 'wb').write(open('%s', 'rb').read())"
# RUN: not overlap-opt %t.mlir 2>&1 | filecheck %s --check-prefix=PYMLIR
# RUN: %python %S/inputs/status.py overlap-opt %s --no-such-flag | filecheck %s --check-prefix=USAGE
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=0}' 2>&1 | filecheck %s --check-prefix=WORLD0
"""A docstring first: xDSL's lexer used to spin on it when named .mlir."""
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, y_ptr, N, BLOCK: tl.constexpr = 16):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N), mask=offs < N)

# DIR: overlap-opt: error: Is a directory: {{.*}}overlap-opt
# DIR-NOT: Traceback
# PASS: overlap-opt: error: pipeline 'no-such-pass': Unrecognized passes: ['no-such-pass']
# PASS-NEXT: exit 2
# SPEC: overlap-opt: error: pipeline 'overlap{': Expected argument name here (column 9)
# SPEC-NEXT: exit 2
# OPTION: overlap-opt: error: pipeline 'overlap{bogus=1}': Provided arguments ["bogus"] not found
# OPTION-NEXT: exit 2
# MISSING: overlap-opt: error: No such file or directory: {{.*}}.missing.py
# MISSING-NEXT: exit 1
# BINARY: overlap-opt: error: {{.*}}.bin.py: not a UTF-8 text file (byte 0xff at offset 2)
# BOM: tile.func @copy
# PYMLIR: overlap-opt: error: {{.*}}.mlir: this is Python, not IR text; give a Triton kernel a .py name
# USAGE: overlap-opt: error: unrecognized arguments: --no-such-flag
# USAGE-NEXT: exit 2
# WORLD0: overlap-opt: error: --plan: all-gather: world must be >= 1, got 0
# RUN: not overlap-opt --plan 'all-gather{world=100000}' 2>&1 | filecheck %s --check-prefix=HUGE
# RUN: not overlap-opt --plan 'all-gather{world=8 size=4}' 2>&1 | filecheck %s --check-prefix=ROWS
# RUN: not overlap-opt --plan 'all-gather{world=2 name=a-b}' 2>&1 | filecheck %s --check-prefix=NAME
# RUN: not overlap-opt --plan 'all-gather{world=2 tensor=class}' 2>&1 | filecheck %s --check-prefix=KEYWORD
# HUGE: overlap-opt: error: --plan: all-gather: world=100000 is more ranks than a fused kernel supports (at most 72)
# ROWS: overlap-opt: error: --plan: all-gather: world=8 is more ranks than the 4 rows of dim 0; every rank needs at least one row
# NAME: overlap-opt: error: --plan: all-gather: name='a-b' is not a Python identifier
# KEYWORD: overlap-opt: error: --plan: all-gather: tensor='class' is not a Python identifier
# RUN: not overlap-opt --plan 'all-gather{world=2 world=3}' 2>&1 | filecheck %s --check-prefix=TWICE
# RUN: not overlap-opt --plan 'all-gather{world=2 chunks-per-rank=2 chunks_per_rank=3}' 2>&1 | filecheck %s --check-prefix=TWICE-SPELLED
# RUN: not overlap-opt --plan 'all-gather{world=2}}' 2>&1 | filecheck %s --check-prefix=TRAILING
# RUN: not overlap-opt --plan 'all-gather{world=4 chunks_per_rank=4096}' 2>&1 | filecheck %s --check-prefix=CHUNKS
# TWICE: overlap-opt: error: --plan: plan spec 'all-gather{world=2 world=3}': option 'world' is given twice
# TWICE-SPELLED: option 'chunks_per_rank' is given twice
# TRAILING: overlap-opt: error: --plan: plan spec 'all-gather{world=2}}': unexpected text after the closing brace: '}'
# RUN: not overlap-opt --plan 'all-gather{world=2 dim=100000}' 2>&1 | filecheck %s --check-prefix=DIM
# DIM: overlap-opt: error: --plan: all-gather: dim=100000 is beyond the dims a plan's tensor may have (at most 16: dim 0 .. 15)
# CHUNKS: overlap-opt: error: --plan: all-gather: world=4 x chunks_per_rank=4096 is more chunks than a plan may have (at most 8192, one signal-pad flag each)
# An unclosed string literal: xDSL's lexer took minutes on it (exponential in
# its length), as an input file, a --plan file, and a Python file given to --plan.
# RUN: %python -c "open('%t.quote.mlir', 'w').write(chr(34) * 3 + ' '.join(['x-y'] * 40))"
# RUN: not overlap-opt %t.quote.mlir 2>&1 | filecheck %s --check-prefix=QUOTE
# RUN: not overlap-opt --plan %t.quote.mlir 2>&1 | filecheck %s --check-prefix=QUOTE
# RUN: not overlap-opt --plan %s 2>&1 | filecheck %s --check-prefix=PLANPY
# QUOTE: {{.*}}.quote.mlir:1:3
# QUOTE: End of file reached before closing string literal.
# QUOTE-NOT: Traceback
# PLANPY: overlap-opt: error: --plan: {{.*}}bad-inputs.py: a plan file is IR text holding one chunk.plan (.mlir), not Python; give a kernel as the input file and --plan a spec or a .mlir file
# A file whose name is neither .py nor .mlir (a workload without its suffix).
# RUN: %python -c "import os; os.makedirs('%t.d', exist_ok=True); open('%t.d/noext', 'wb').write(open('%s', 'rb').read())"
# RUN: %python %S/inputs/status.py overlap-opt %t.d/noext | filecheck %s --check-prefix=NOEXT
# RUN: %python -c "open('%t.txt', 'wb').write(open('%s', 'rb').read())"
# RUN: not overlap-opt %t.txt 2>&1 | filecheck %s --check-prefix=TXT
# RUN: overlap-opt -f py %t.d/noext | filecheck %s --check-prefix=BOM
# NOEXT: overlap-opt: error: {{.*}}/noext: no file extension: name a Triton kernel .py and IR text .mlir, or choose with -f py / -f mlir
# NOEXT-NEXT: exit 1
# TXT: overlap-opt: error: {{.*}}.txt: unrecognized file extension '.txt': name a Triton kernel .py
# Inputs too large for a recursive parser: an extent of 1,200 terms (a
# RecursionError), IR nested 100 deep (a RecursionError in xDSL's parser).
# RUN: overlap-opt --plan 'all-gather{world=2}' -o %t.terms.mlir
# RUN: %python -c "p = '%t.terms.mlir'; t = open(p).read(); open(p, 'w').write(t.replace('shape [\"M\"', 'shape [\"' + '+'.join(['M'] * 1200) + '\"'))"
# RUN: not overlap-opt --plan %t.terms.mlir 2>&1 | filecheck %s --check-prefix=TERMS
# RUN: %python -c "open('%t.deep.mlir', 'w').write('builtin.module {\n' * 100 + '}\n' * 100)"
# RUN: %python %S/inputs/status.py overlap-opt %t.deep.mlir | filecheck %s --check-prefix=DEEP
# RUN: not overlap-opt --plan %t.deep.mlir 2>&1 | filecheck %s --check-prefix=DEEP-PLAN
# TERMS: overlap-opt: error: --plan: shape of tensor 'a': extent 'M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+M+'... (2399 characters) has 1200 terms; an extent may have at most 512 (integers and symbols)
# DEEP: overlap-opt: error: {{.*}}.deep.mlir:65:16: brackets nest more than 64 deep at this '{'; the IR parser would exceed Python's recursion limit
# DEEP-NEXT: exit 1
# DEEP-PLAN: overlap-opt: error: --plan: cannot parse plan file {{.*}}.deep.mlir: {{.*}}.deep.mlir:65:16: brackets nest more than 64 deep
# A Python file too deep for the frontend (5,000 terms: Python's own parser recurses).
# RUN: %python -c "open('%t.deep.py', 'w').write('x = ' + '+'.join(['1'] * 5000) + chr(10))"
# RUN: %python %S/inputs/status.py overlap-opt %t.deep.py | filecheck %s --check-prefix=DEEP-PY
# DEEP-PY: overlap-opt: error: {{.*}}.deep.py: nested too deeply: Python's recursion limit was reached while reading or transforming it
# DEEP-PY-NEXT: exit 1
