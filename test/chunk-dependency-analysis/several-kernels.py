# A file with a forward and a backward kernel that both take the plan's
# tensor: --kernel names the one to fuse; without it the error lists them.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=AMBIGUOUS
# RUN: overlap-opt %s --kernel bwd --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=BWD
# RUN: not overlap-opt %s --kernel nope --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=UNKNOWN
# The other kernel is emitted unchanged next to the fused one:
# RUN: overlap-opt %s --kernel bwd --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p overlap -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def fwd(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


@triton.jit
def bwd(x_ptr, dy_ptr, dx_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dx_ptr + offs, tl.load(dy_ptr + offs) * tl.load(x_ptr + offs))

# AMBIGUOUS: chunk-dependency-analysis: several kernels take the plan tensors (@fwd, @bwd); name the one to fuse with --kernel (e.g. --kernel fwd); the others are emitted unchanged
# BWD-NOT:   chunk.access
# BWD:       tile.func @bwd
# BWD:       chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK"
# UNKNOWN:   no kernel named 'nope' (kernels: fwd, bwd)
# EMIT:      def fwd(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
# EMIT-NOT:  syn_
# EMIT:      tl.store(y_ptr + offs,
# EMIT:      def bwd(x_ptr, dy_ptr, dx_ptr, M, BLOCK: tl.constexpr, syn_
# EMIT:      syn_wait_span(
