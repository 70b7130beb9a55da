"""A Llama-style model (2 layers: GQA, RoPE, SwiGLU, RMSNorm) ported from
torch's tensor parallelism to syncopate.tp trains as torch TP does: the
script test/e2e/llama_tp.py on two gloo ranks in fp64 (every step's loss,
the first step's gradients and the final weights within 1e-9; the same
script checks the fused path on GPUs)."""

import os

from gloo_ranks import run_script

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "e2e", "llama_tp.py")


def test_ported_llama_trains_as_torch_tp():
    errors = run_script(os.path.abspath(SCRIPT), env={"LLAMA_TP_DEVICE": "cpu"})
    for rank, error in enumerate(errors):
        assert error is None, f"rank {rank}:\n{error}"
