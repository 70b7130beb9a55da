# TLX (Meta's warp-specialisation extension: async tasks, local buffers) is not
# upstream Triton: a kernel that uses it is refused at the construct, naming
# TLX and the upstream form; a TLX call the kernel keeps is refused at the
# import that names TLX (an unused import is dropped with the rest of the
# prelude; line 10 of the copy, whose sed RUN line the sed itself deletes).
# RUN: not overlap-opt %s 2>&1 | filecheck %s --check-prefix=TASK
# RUN: sed 's/with tlx.async_tasks():/buf = tlx.local_alloc((BLOCK,), tl.float32, 1)/; /with tlx/d; s/^            /    /' %s > %t.py
# RUN: not overlap-opt %t.py 2>&1 | filecheck %s --check-prefix=IMPORT
import triton
import triton.language as tl
import triton.language.extra.tlx as tlx


@triton.jit
def copy_tasks(q_ptr, o_ptr, n, BLOCK: tl.constexpr):
    with tlx.async_tasks():
        with tlx.async_task("default"):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(o_ptr + offs, tl.load(q_ptr + offs, mask=offs < n), mask=offs < n)

# TASK: overlap-opt: error: {{.*}}err-tlx.py:16: `tlx.async_tasks()`: TLX, Meta's warp-specialisation extension of Triton (async tasks, local buffers), is not upstream Triton, which syncopate imports, fuses and emits; write the kernel with upstream Triton (tl.range(..., warp_specialize=True) is its upstream form)
# IMPORT: overlap-opt: error: {{.*}}.tmp.py:10: 'import triton.language.extra.tlx as tlx' imports 'triton.language.extra.tlx': TLX, Meta's warp-specialisation extension
