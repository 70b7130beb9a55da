#!/usr/bin/env bash
# GPU checks on a device machine, from the repo root (xdsl, filecheck, lit
# wheels in .whl/):  bash test/e2e/run_on_device.sh [matrix|cli|pytest|all] [filter]
# W = number of visible GPUs.
#   bash test/e2e/run_on_device.sh bench SECONDS OVERLAP-BENCH-ARGS...   (one torchrun of overlap-bench, bounded)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
unset TRITON_INTERPRET
[ -d /tmp/site ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
# a build/ left by an earlier install is reused by setuptools when its files look newer than the tree's:
# remove it, or the installed package can be stale
rm -rf /tmp/syn build; python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/syn . 2>&1 | tail -2
export PYTHONPATH=/tmp/site:/tmp/syn PATH=/tmp/syn/bin:/tmp/site/bin:$PATH
W=$(nvidia-smi -L | wc -l)
nvidia-smi -L
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
what=${1:-all}
quiet() { grep -v "^W1\|OMP_NUM\|^\*\*\*\*" ; }
if [ "$what" = matrix ]; then
  echo "### torchrun --nproc-per-node=$W test/e2e/gpu_matrix.py $2"
  timeout 500 torchrun --master-port 29701 --nproc-per-node=$W test/e2e/gpu_matrix.py $2 > /tmp/matrix.log 2>&1; echo "rc=$?"
  grep "MATRIX\|debug report" /tmp/matrix.log | sort | uniq -c | sort -k2 | head -200
  grep -c ": ok" /tmp/matrix.log; grep "FAIL" /tmp/matrix.log | head -5
  grep -B2 -A12 "Traceback" /tmp/matrix.log | head -80
fi
run() { echo "### torchrun --nproc-per-node=$W overlap-run $*"; timeout 150 torchrun --nproc-per-node=$W /tmp/syn/bin/overlap-run "$@" 2>&1 | quiet | grep -v "^\[rank.\]:  \| File \|\^\^\^" | tail -8; echo "rc=${PIPESTATUS[0]}"; }
if [ "$what" = cli ] || [ "$what" = all ]; then
  run examples/ag_gemm.py --gpu --plan 'all-gather{tensor=a_ptr dim=0}' -p 'overlap{backend=sm}' --sms 2
  run examples/gemm_rs.py --gpu --plan 'reduce-scatter{tensor=c_ptr dim=0}' -p 'overlap{backend=ce}'
  run examples/a2a_grouped_gemm.py --gpu -p 'overlap{backend=nccl}'
  run examples/attention_ag_kv.py --gpu -p 'overlap{backend=sm order=none}'
  run examples/ag_gemm.py --gpu -p 'overlap{waits=false}'
  run examples/ag_gemm.py --gpu --plan "all-gather{tensor=a_ptr dim=0 world=$((W + 1))}"
fi
if [ "$what" = pytest ] || [ "$what" = all ]; then
  echo "### python3 -m pytest -q -s test/e2e"
  python3 -m pytest -q -s -p no:cacheprovider test/e2e 2>&1 | grep --line-buffered -v "^W1\|OMP_NUM\|^\*\*\*\*" | tee "${OUT:-/tmp}/pytest-full.log" | tail -150
fi
if [ "$what" = bench ]; then
  limit=$2; shift 2
  echo "### torchrun --nproc-per-node=$W -m syncopate.tools.overlap_bench $*"
  timeout "$limit" torchrun --master-port $((29800 + RANDOM % 100)) --nproc-per-node=$W -m syncopate.tools.overlap_bench "$@" 2>&1 | quiet
  echo "rc=${PIPESTATUS[0]}"
fi
