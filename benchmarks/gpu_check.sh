#!/usr/bin/env bash
# The one script a lent GPU machine runs: builds the extension there, runs `python -m torch_uaccel`,
# the whole test suite (CUDA tests included) and the GPU benchmarks, and writes everything under
# $OUT (gpu_check.log, pytest.xml, bench_elu_cuda.json, bench_copy_cuda.json), then runs the CUDA tests
# under compute-sanitizer (memcheck, racecheck). Each step runs even if an earlier one
# failed; the summary at the end gives every step's exit status.
#   device run:  bash benchmarks/gpu_check.sh        (timeout_s ~420 leaves room for a rerun)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/benchmarks/results/gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
export MAX_JOBS=${MAX_JOBS:-16}
PY=${PYTHON:-python3}
summary=()

step() {
  local name=$1
  shift
  echo "===== $name: $*"
  local start=$SECONDS
  "$@"
  local rc=$?
  summary+=("$name: exit $rc in $((SECONDS - start)) s")
}

{
  step gpu nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  step build "$PY" -m pip install -q --no-build-isolation --no-deps -e .
  step main "$PY" -m torch_uaccel
  step tests "$PY" -m pytest -q -p no:cacheprovider --junitxml="$OUT/pytest.xml"
  step bench_elu "$PY" benchmarks/bench_elu.py --device cuda --out "$OUT/bench_elu_cuda.json"
  step bench_copy "$PY" benchmarks/bench_copy.py --device cuda --out "$OUT/bench_copy_cuda.json"
  # compute-sanitizer over the CUDA paths of every uaccel kernel (a subset: it is slow).
  sanitized=(tests/test_op_table.py tests/test_copy.py tests/test_copy_cuda.py tests/test_memory_cuda.py
             -m cuda -k "(float32 or copy or memory or pool) and not 2_pow_31 and not compile and not 256_mib")
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 "$PY" -m pytest -q -x -p no:cacheprovider "${sanitized[@]}"
  step racecheck compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest -q -x -p no:cacheprovider "${sanitized[@]}"
  echo "===== summary"
  printf '%s\n' "${summary[@]}"
} 2>&1 | tee "$OUT/gpu_check.log"
