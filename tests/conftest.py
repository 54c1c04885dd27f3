import atexit
import os
import shutil
import tempfile
import threading

# A fresh torch.compile (inductor) cache for each test session. Inductor's on-disk cache does not
# key its C++ kernels on ATEN_CPU_CAPABILITY: a kernel compiled for AVX-512 in one run was reused by
# a later run with ATEN_CPU_CAPABILITY=avx2 (which generates 8-lane loops around 16-lane stores),
# giving wrong results and heap corruption. CI runs the suite once per capability.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="uaccel-inductor-")
atexit.register(shutil.rmtree, os.environ["TORCHINDUCTOR_CACHE_DIR"], ignore_errors=True)

import pytest  # noqa: E402
import torch  # noqa: E402

import torch_uaccel  # noqa: E402  (registers torch.ops.uaccel)

# `make wheel-test`: the suite must run against the installed wheel, not this checkout's package.
INSTALLED = os.environ.get("UACCEL_EXPECT_INSTALLED") == "1"
if INSTALLED and "site-packages" not in torch_uaccel.__file__:
    raise RuntimeError(f"expected torch_uaccel from an installed wheel, but imported {torch_uaccel.__file__}")

HAS_CUDA = torch.cuda.is_available()
# Under `make sanitize`: AddressSanitizer ignores mlock (VmLck stays 0) and holds freed memory in
# its quarantine (resident memory grows), so those two observations mean nothing there.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]),
]


def pytest_runtest_logreport(report):
    """With UACCEL_FAILURE_LOG set, each failure (a crashed xdist worker's too) is appended to that file
    as it happens: a run stopped by its time limit (benchmarks/gpu_check.sh) still says what failed.
    Written by the main process only (xdist's workers report to it)."""
    path = os.environ.get("UACCEL_FAILURE_LOG")
    if path and report.failed and "PYTEST_XDIST_WORKER" not in os.environ:
        with open(path, "a") as log:
            log.write(f"=== {report.nodeid} ({report.when})\n{report.longreprtext}\n\n")


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def status_kib(field: str) -> int:
    """A /proc/self/status field in KiB (VmLck: locked pages, VmRSS: resident memory)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def run_threads(target, count, timeout=120):
    """Runs target(i) in `count` threads; fails on a worker's exception or on a hang."""
    errors = []

    def guarded(index):
        try:
            target(index)
        except Exception as error:  # a thread's exception is otherwise lost
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(i,), daemon=True) for i in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout)
        assert not th.is_alive(), "deadlock: a worker did not finish"
    assert not errors, errors
