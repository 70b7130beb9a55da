#!/usr/bin/env bash
# GPU check of the fused all-gather kernels on 2 GPUs, from the repo root of a
# device machine (xdsl, filecheck, lit wheels in .whl/): bash test/e2e/run_on_device.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
unset TRITON_INTERPRET
[ -d /tmp/site ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
rm -rf /tmp/syn; python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/syn . 2>&1 | tail -2
export PYTHONPATH=/tmp/site:/tmp/syn PATH=/tmp/syn/bin:/tmp/site/bin:$PATH
nvidia-smi -L
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__); from torch.distributed._symmetric_memory import _SymmetricMemory as S; print([n for n in dir(S) if 'stream' in n or 'signal' in n or 'barrier' in n])"
run() { echo "### $*"; timeout 150 torchrun --nproc-per-node=2 /tmp/syn/bin/overlap-run "$@" 2>&1 | grep -v "^W1\|OMP_NUM\|^\*\*\*\*" | grep -v "^\[rank.\]:  \| File \|\^\^\^" | tail -12; echo "rc=${PIPESTATUS[0]}"; }
run examples/ag_gemm.py --gpu
run examples/ag_gemm.py --gpu -p 'overlap{order=rotate}'

run examples/ag_gemm_k.py --gpu
run examples/attention_ag_kv.py --gpu
run examples/ag_gemm.py --gpu -p 'overlap{waits=false}'
