#!/usr/bin/env bash
# The one script a lent GPU machine runs: builds the extension there, runs the CUDA tests, the kernels'
# reference tests under compute-sanitizer's memcheck, the GPU benchmarks, `python -m torch_uaccel`,
# racecheck, the CUDA tests of examples/custom_pointwise (built there as another project) and then the
# rest of the suite against that machine's torch, and writes everything under $OUT (gpu_check.log,
# failures.log: each failing test's traceback as it fails, pytest_cuda.xml, pytest_rest.xml,
# bench_ops_cuda.json/.png, bench_rms_norm_cuda.json, bench_copy_cuda.json, bench_compiled_cuda.json).
# Steps run most important first; each runs even if an earlier one failed, under its own time limit,
# and all of them inside GPU_CHECK_SECONDS (a lease is short: a step that cannot fit is skipped and
# said so). The summary at the end gives every step's exit status and time.
# The build can be skipped (UACCEL_PREBUILT=1) with a library built elsewhere against that machine's
# torch (the PyPI wheel torch==2.11.0 is the same +cu130 build): carry torch_uaccel/libuaccel.so,
# _build.py, include and share (the C++ tests compile against the headers).
#   device run:  bash benchmarks/gpu_check.sh        (timeout_s 540 with the default 480 s budget)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/benchmarks/results/gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
export MAX_JOBS=${MAX_JOBS:-$(nproc)}
[[ -d /usr/local/cuda/bin ]] && export PATH=$PATH:/usr/local/cuda/bin
PY=${PYTHON:-python3}
BUDGET=${GPU_CHECK_SECONDS:-480}
STEPS=${GPU_CHECK_STEPS:-} # a rerun's subset, e.g. "cuda_tests racecheck" (default: every step)
summary=()

# step NAME LIMIT_SECONDS COMMAND...: runs COMMAND for at most LIMIT seconds and what is left of BUDGET.
step() {
  local name=$1 limit=$2
  shift 2
  if [[ -n $STEPS && " $STEPS " != *" $name "* ]]; then
    return
  fi
  local left=$((BUDGET - SECONDS - 15))
  if ((left < 20)); then
    summary+=("$name: skipped, ${left}s of the budget left")
    return
  fi
  ((limit > left)) && limit=$left
  echo "===== $name (at most ${limit}s): $*"
  local start=$SECONDS
  timeout -k 10 "$limit" "$@"
  local rc=$?
  local verdict="exit $rc"
  ((rc == 124 || rc == 137)) && verdict="timed out (exit $rc)"
  summary+=("$name: $verdict in $((SECONDS - start)) s")
}

# pytest-xdist spreads the tests over the cores where the machine has it.
parallel=()
"$PY" -c "import xdist" 2>/dev/null && parallel=(-n "${GPU_CHECK_WORKERS:-12}")
export UACCEL_FAILURE_LOG=$OUT/failures.log # each failure's traceback as it happens (tests/conftest.py)
pytest=("$PY" -m pytest -q -p no:cacheprovider)
# compute-sanitizer over the CUDA kernels of every op (float32 values and gradients against the
# reference: dense, strided and broadcast), RMSNorm's, and the copy and memory paths: a subset, as it is slow.
sanitized=(tests/test_op_table.py tests/test_copy_cuda.py tests/test_memory_cuda.py tests/test_rms_norm_cuda.py -m cuda
           -k "((matches_reference and float32) or copy or memory or pool or rms_norm) and not 2_pow_31 and not 256_mib")

{
  step gpu 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  if [[ -n ${UACCEL_PREBUILT:-} && -f torch_uaccel/libuaccel.so ]]; then
    echo "===== build: skipped, UACCEL_PREBUILT (the library carried)"
    export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} # not installed: the benchmarks import it from here
  else
    step build 300 "$PY" -m pip install -q --no-build-isolation --no-deps -e .
  fi
  step linkage 30 "${pytest[@]}" tests/test_library.py # that machine's toolchain once linked libstdc++.a
  step cuda_tests 200 "${pytest[@]}" "${parallel[@]}" -v -rfE --tb=short -m cuda --junitxml="$OUT/pytest_cuda.xml"
  step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 "${pytest[@]}" -x "${sanitized[@]}"
  step bench_ops 150 "$PY" benchmarks/bench_ops.py --device cuda --log2-sizes 24,28 --min-run-time 0.1 \
    --ops elu:1.0,silu,gelu:none,gelu:tanh,silu_mul,gelu_mul:none,gelu_mul:tanh --out "$OUT/bench_ops_cuda.json"
  step bench_rms_norm 90 "$PY" benchmarks/bench_rms_norm.py --device cuda --repeat 1 --json "$OUT/bench_rms_norm_cuda.json"
  step main 60 "$PY" -m torch_uaccel
  step bench_copy 45 "$PY" benchmarks/bench_copy.py --device cuda --out "$OUT/bench_copy_cuda.json"
  step racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 1 "${pytest[@]}" -x "${sanitized[@]}"
  step bench_compiled 120 "$PY" benchmarks/bench_compiled.py --device cuda --min-run-time 0.1 \
    --out "$OUT/bench_compiled_cuda.json"
  # Another project's ops (examples/custom_pointwise) built against this build, their CUDA kernels run.
  step example_cuda 240 bash -c "cd examples/custom_pointwise && $PY -m pip install -q --no-build-isolation . \
    && $PY -m pytest -q -p no:cacheprovider tests/test_myops.py -k cuda"
  step rest_of_suite 240 "${pytest[@]}" "${parallel[@]}" -m "not cuda" --junitxml="$OUT/pytest_rest.xml"
  echo "===== summary (budget ${BUDGET}s, used ${SECONDS}s)"
  printf '%s\n' "${summary[@]}"
} 2>&1 | tee "$OUT/gpu_check.log"
