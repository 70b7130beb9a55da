# A column offset read from memory (a label, a token id) has no bound the
# model can see: the default pipeline (verify-addresses strict) refuses the
# unmasked read, naming its line and where the value comes from; masking it
# to [0, n_cols) proves it inside the row, and the kernel fuses.
# RUN: not overlap-opt %s --kernel label_logit --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p overlap 2>&1 | filecheck %s --check-prefix=REFUSED
# RUN: overlap-opt %s --kernel masked_label_logit --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p overlap -t triton | filecheck %s --check-prefix=MASKED
import triton
import triton.language as tl


@triton.jit
def label_logit(x_ptr, y_ptr, out_ptr, stride, n_cols):
    row = tl.program_id(0)
    y = tl.load(y_ptr + row)
    tl.store(out_ptr + row, tl.load(x_ptr + row * stride + y))


@triton.jit
def masked_label_logit(x_ptr, y_ptr, out_ptr, stride, n_cols):
    row = tl.program_id(0)
    y = tl.load(y_ptr + row)
    tl.store(out_ptr + row, tl.load(x_ptr + row * stride + y, mask=(y >= 0) & (y < n_cols), other=0.0))

# REFUSED: overlap-opt: error: verify-addresses: loaded-column.py:15: 'tile.load' is unbounded: the coordinate {{.*}} (stride 1) of the element offset (from loaded-column.py:14: 'tile.load') is not provably >= 0, so it may reach another row: mask the access with `coordinate >= 0` and `coordinate < <its dim's size>`

# MASKED: def masked_label_logit(
# MASKED: syn_wait_span(
# MASKED: tl.load(x_ptr + row * stride + y, mask=(y >= 0) & (y < n_cols), other=0.0)
