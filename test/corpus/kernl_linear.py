"""Linear layer `act(x @ W^T + b)` in the style of kernl's fused linear: a
1-D grid swizzled into GROUP_M groups, row/column offsets wrapped with `% M` /
`% N` under `tl.max_contiguous(tl.multiple_of(...))`, the weight read as
`[N, K]` through its own strides, a K loop counting down (`range(K, 0,
-BLOCK_K)`) with pointers advanced by `+=`, an `EVEN_K` flag choosing
unmasked loads, constexpr `HAS_BIAS` / `SHOULD_SAVE_ACT_INPUTS` flags, the
activation chosen by comparing a constexpr string in separate `if`s, jit
activation helpers reading `tl.constexpr(...)` module constants, and a keyword launch
that passes the input as the bias when there is none."""

import torch
import triton
import triton.language as tl

SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)
INV_SQRT_2 = tl.constexpr(0.7071067811865476)


@triton.jit
def tanh(x):
    """Tanh through the sigmoid (no libdevice)."""
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def relu(x):
    """ReLU."""
    return tl.maximum(0, x)


@triton.jit
def gelu(x):
    """GELU with the exact (erf) formula."""
    return x * 0.5 * (1.0 + tl.math.erf(x * INV_SQRT_2))


@triton.jit
def fast_gelu(x):
    """GELU with the tanh approximation."""
    return 0.5 * x * (1.0 + tanh((x + 0.044715 * x * x * x) * SQRT_2_OVER_PI))


@triton.jit
def linear_kernel(
    C,  # output, (M, N)
    ACT_INPUTS,  # optional copy of x @ W^T + b, (M, N)
    A,  # input, (M, K)
    B,  # weight, (N, K)
    bias,  # optional bias, (N,)
    M,
    N,
    K,
    output_m_stride,
    output_n_stride,
    act_inputs_m_stride,
    act_inputs_n_stride,
    a_m_stride,
    a_k_stride,
    b_n_stride,
    b_k_stride,
    BLOCK_M: tl.constexpr,
    GROUP_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    EVEN_K: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    SHOULD_SAVE_ACT_INPUTS: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    """
    Out = activation(A x W^T + bias), accumulated in fp32 over K.
    ActInputs (when SHOULD_SAVE_ACT_INPUTS) keeps the pre-activation values.
    """
    pid = tl.program_id(axis=0)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # programs of one group share a band of GROUP_M row blocks (L2 reuse)
    programs_per_group = GROUP_M * grid_n
    group = pid // programs_per_group
    first_m = group * GROUP_M
    group_rows = min(grid_m - first_m, GROUP_M)
    block_m = first_m + (pid % group_rows)
    block_n = (pid % programs_per_group) // group_rows

    rows = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # wrapped rows/cols stay inside A and W; the store below masks them off
    rm = tl.max_contiguous(tl.multiple_of(rows % M, BLOCK_M), BLOCK_M)
    rn = tl.max_contiguous(tl.multiple_of(cols % N, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)

    A = A + (rm[:, None] * a_m_stride + rk[None, :] * a_k_stride)
    B = B + (rk[:, None] * b_k_stride + rn[None, :] * b_n_stride)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            a = tl.load(A, mask=rk[None, :] < k, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k, other=0.0)
        acc += tl.dot(a, b)
        A += BLOCK_K * a_k_stride
        B += BLOCK_K * b_k_stride

    if HAS_BIAS:
        bias_row = tl.load(bias + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc += bias_row[None, :]

    out_mask = (rows < M)[:, None] & (cols < N)[None, :]
    if SHOULD_SAVE_ACT_INPUTS:
        act_in_ptrs = ACT_INPUTS + rows[:, None] * act_inputs_m_stride + cols[None, :] * act_inputs_n_stride
        tl.store(act_in_ptrs, acc, mask=out_mask)

    if ACTIVATION == "tanh":
        acc = tanh(acc)
    if ACTIVATION == "gelu":
        acc = gelu(acc)
    if ACTIVATION == "fast_gelu":
        acc = fast_gelu(acc)
    if ACTIVATION == "relu":
        acc = relu(acc)

    C = C + rows[:, None] * output_m_stride + cols[None, :] * output_n_stride
    tl.store(C, acc, mask=out_mask)


def linear_layer(x, weight, bias, activation, act_inputs, kernel=linear_kernel):
    M, K = x.shape
    N = weight.shape[0]
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    kernel[grid](
        out,
        act_inputs,
        x,
        weight,
        bias if bias is not None else x,
        M,
        N,
        K,
        output_m_stride=out.stride(0),
        output_n_stride=out.stride(1),
        act_inputs_m_stride=act_inputs.stride(0) if act_inputs is not None else 0,
        act_inputs_n_stride=act_inputs.stride(1) if act_inputs is not None else 0,
        a_m_stride=x.stride(0),
        a_k_stride=x.stride(1),
        b_n_stride=weight.stride(0),
        b_k_stride=weight.stride(1),
        HAS_BIAS=bias is not None,
        SHOULD_SAVE_ACT_INPUTS=act_inputs is not None,
        ACTIVATION=activation,
        BLOCK_M=16,
        BLOCK_N=16,
        BLOCK_K=16,
        GROUP_M=4,
        EVEN_K=K % 16 == 0,  # no masks on the K loads
    )
    return out


def _torch_act(t, activation):
    F = torch.nn.functional
    return {"": lambda v: v, "tanh": torch.tanh, "gelu": F.gelu, "relu": F.relu,
            "fast_gelu": lambda v: F.gelu(v, approximate="tanh")}[activation](t)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N, K = 37, 40, 40
    x = torch.randn(M, K, generator=g)
    w = torch.randn(N, K, generator=g) / 4
    b = torch.randn(N, generator=g)
    out, act_in = torch.empty(M, N), torch.empty(M, N)
    return {
        "kernel": "linear_kernel",
        "grid": (triton.cdiv(M, 16) * triton.cdiv(N, 16),),
        "args": [out, act_in, x, w, b, M, N, K,
                 out.stride(0), out.stride(1), act_in.stride(0), act_in.stride(1),
                 x.stride(0), x.stride(1), w.stride(0), w.stride(1)],
        "kwargs": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 4, "EVEN_K": False, "HAS_BIAS": True, "SHOULD_SAVE_ACT_INPUTS": True,
                   "ACTIVATION": "gelu"},
        "outputs": [0, 1],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    x, w, b = case["args"][2:5]
    pre = x @ w.T + b
    return [_torch_act(pre, case["kwargs"]["ACTIVATION"]), pre]


# --- workload: all-gather the input's rows (sequence-parallel input of a
# column-parallel linear layer), bias and fast GELU fused, the
# pre-activation values saved for the backward --------------------------

KERNEL = linear_kernel
PLANS = ["all-gather{tensor=A dim=0 size=M}"]
COLLECTIVES = {"A": "x"}
M_ROWS, K_DIM, N_COLS = 36, 48, 24


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(M_ROWS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, K_DIM, generator=g),
            "weight": torch.randn(N_COLS, K_DIM, generator=gw) / 4, "bias": torch.randn(N_COLS, generator=gw)}


def launch(kernel, x, weight, bias):
    act_inputs = torch.empty((x.shape[0], weight.shape[0]), device=x.device, dtype=torch.float32)
    out = linear_layer(x, weight, bias, "fast_gelu", act_inputs, kernel=kernel)
    return out, act_inputs
