#!/usr/bin/env bash
# Every GPU check of issue 23 in one call: the tests marked `cuda`, then each GPU benchmark, printing their tables.
# Meant for a lent H100/H200 (about 5 minutes warm). It uses the machine's own python3 and PyTorch with this
# checkout on PYTHONPATH (nothing is installed); the data are synthetic (no downloads there).
#
#   bash benchmarks/gpu.sh            # everything
#   QUICK=1 bash benchmarks/gpu.sh    # the tests and the smallest benchmark settings (a dry run on the CPU too)
#   STEPS="cuda-tests batched" bash benchmarks/gpu.sh   # only those steps
#   VARIANTS=1 STEPS=graphs bash benchmarks/gpu.sh     # the update under bf16, channels-last, torch.compile
#
# Each step has its own time limit, so one that hangs cannot eat the others' time; a step that fails is reported
# and the script goes on. Logs go to $OUT (the device tool's result folder) or /tmp/gpu-out.
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 MPLBACKEND=Agg
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
DEV=cuda
if ! $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "no CUDA device here: the tests skip and the benchmarks run on the CPU (a dry run of this script)"
  DEV=cpu
  QUICK=1
fi
QUICK=${QUICK:-}
failed=()
STEPS=${STEPS:-}  # e.g. STEPS="cuda-tests batched": only those steps (default: every one)
step() {  # step NAME SECONDS COMMAND...: run with a limit, log to $OUT/NAME.log, keep going on failure
  local name=$1 limit=$2
  shift 2
  if [ -n "$STEPS" ] && [[ " $STEPS " != *" $name "* ]]; then
    return 0
  fi
  echo
  echo "=== $name ($(date +%T), limit ${limit}s)"
  local t0=$SECONDS
  timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "--- $name: exit $rc in $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || failed+=("$name (exit $rc)")
}

echo "=== machine"
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
$PY -c "import torch, platform; print('python', platform.python_version(), 'torch', torch.__version__, 'cuda',
torch.version.cuda, torch.cuda.get_device_name() if torch.cuda.is_available() else 'none')"

# the tests that need CUDA (each file holds tests marked `cuda`; collected alone, so a package the machine lacks
# for other tests cannot stop them)
mapfile -t cuda_tests < <(grep -rl "mark.cuda" tests --include='test_*.py' | sort)
step cuda-tests 240 $PY -m pytest -q -p no:cacheprovider -m cuda -rs "${cuda_tests[@]}"

if [ -n "$QUICK" ]; then
  step batched 120 $PY benchmarks/bench_batched.py --device "$DEV" --clients 4 --pfl-clients 4 --repeat 1
  step graphs 120 $PY benchmarks/bench_batched.py --device "$DEV" --graphs --clients 4 --pfl-clients 4 --repeat 1
  [ -f benchmarks/bench_zo.py ] && step zo 120 $PY benchmarks/bench_zo.py --device "$DEV"
  [ -f benchmarks/bench_measure.py ] && step measure 180 $PY benchmarks/bench_measure.py --device "$DEV" --small
else
  step batched 200 $PY benchmarks/bench_batched.py --device cuda --big --tf32 --profile --repeat 3
  # VARIANTS=1: also bf16 autocast, channels-last and torch.compile of the update (compiling takes about a minute)
  glimit=60
  [ -n "${VARIANTS:-}" ] && glimit=240
  step graphs $glimit $PY benchmarks/bench_batched.py --device cuda --graphs --clients 100 --repeat 3 \
    ${VARIANTS:+--variants}
  [ -f benchmarks/bench_zo.py ] && step zo 90 $PY benchmarks/bench_zo.py --device cuda --big
  [ -f benchmarks/bench_measure.py ] && step measure 150 $PY benchmarks/bench_measure.py --device cuda
fi
# peers: pfl-research travels as wheels in .whl (the machine has no network; Flower needs Ray, too big to carry):
#   pip download --no-deps --python-version 3.12 ... -d .whl pfl==0.6.0 dp-accounting==0.5.1 multiprocess==0.70.19
#   dill==0.4.1 prv-accountant==0.2.0 dm-tree==0.1.9   (see benchmarks/peers-requirements.txt), carried with the call
if [ -d .whl ] && [ "$DEV" = cuda ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
if [ -n "$QUICK" ]; then
  step peers 120 $PY benchmarks/bench_peers.py --device "$DEV" --clients 4 --rounds 1
else
  step peers 120 $PY benchmarks/bench_peers.py --device cuda --clients 10,50 --rounds 3
fi

# the command line as a user types it: ResNet-18's constants (the first GPU run's traceback), timed whole
if [ "$DEV" = cuda ]; then
  step measure-cli 120 $PY -c "import sys, time; from verify.app import main; t = time.perf_counter();
code = main(['measure', '--model', 'resnet18', '--data', 'synthetic:n=2048,shape=3x32x32,classes=10', '--cut',
'layer2.0', '--clients', '4', '--device', 'cuda']);
print(f'measure resnet18 n=2048: exit {code}, {time.perf_counter() - t:.1f} s with start-up'); sys.exit(code)"
fi

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "=== every step passed"
else
  echo "=== failed: ${failed[*]}"
  exit 1
fi
