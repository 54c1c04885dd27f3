"""Forks many times while other threads allocate, track and register through libuaccel, and counts
the children that never exit (a mutex a vanished thread held at fork() time) or fail their checks.

    python tests/fork_stress.py --forks 1000          # prints one JSON line: forks, hung, failed, seconds

Under AddressSanitizer (tests/test_fork.py passes --rounds-apart) each fork waits for the threads'
steps in progress: GCC 12's ASan is not fork-safe itself (tests/forking.py, RoundsApart).

tests/test_fork.py runs it in a subprocess under a time bound; run by hand it gives the numbers of the
fork-safety issue (before the fix, 5-10 of 200 children hung with the allocator installed).
"""

import argparse
import json
import os
import signal
import subprocess
import threading
import time
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from forking import RoundsApart

import torch_uaccel
from torch_uaccel import memory

CHILD_OK, CHILD_FAILED = 0, 3


def churn(stop: threading.Event, warm: threading.Event, seed: int, rounds: RoundsApart) -> None:
    """What a training thread does to the native state: every mutex of libuaccel taken, all the time."""
    gen = torch.Generator().manual_seed(seed)
    step = 0
    while not stop.is_set():
        if step == 1:
            warm.set()
        step += 1
        with rounds.round():
            churn_step(gen, step)


def churn_step(gen: torch.Generator, step: int) -> None:
    x = torch.randn(int(torch.randint(1, 1 << 14, (1,), generator=gen)), generator=gen)
    torch_uaccel.elu(x, 0.5)
    memory.aligned_empty(257 + step % 4096, alignment=4096, dtype=torch.uint8)
    memory.stats()
    if step % 7 == 0:
        with memory.track():
            torch.empty(100 + step % 50)
    if step % 11 == 0:
        with torch_uaccel.register_host(np.zeros(3 * 4096 + step % 100, dtype=np.uint8)) as reg:
            reg.host[0] = 1
    if step % 97 == 0:
        memory.empty_cache()


def use_inherited_state() -> None:
    """Each piece of inherited state works in a child (see tests/test_fork.py for the semantics)."""
    x = torch.randn(1000)
    torch.testing.assert_close(torch_uaccel.elu(x, 0.5), F.elu(x, 0.5), rtol=1e-6, atol=1e-6)
    before = memory.stats()
    y = torch.empty(5000)  # through the inherited, still installed allocator
    assert memory.stats()["allocations"] == before["allocations"] + 1
    del y
    with memory.track() as tracked:
        kept = torch.empty(64)
    assert len(tracked.leaks) == 1, tracked.leaks
    del kept
    with torch_uaccel.register_host(np.zeros(2 * 4096, dtype=np.uint8)) as reg:
        reg.host[1] = 2


def child_checks(held_registration) -> None:
    use_inherited_state()
    held_registration.close()  # the parent's registration: closing it here unlocks nothing of the parent's


def fork_once(held_registration) -> int:
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller's stack
        code = CHILD_FAILED
        try:
            child_checks(held_registration)
            code = CHILD_OK
        except BaseException as error:  # reported through the exit status
            os.write(2, f"fork_stress child {os.getpid()}: {type(error).__name__}: {error}\n".encode())
        finally:
            os._exit(code)
    return pid


def backtrace(pid: int) -> str:
    """Where a hung child waits (needs gdb)."""
    command = [
        "gdb",
        "-p",
        str(pid),
        "-batch",
        "-iex",
        "add-auto-load-safe-path /",
        "-ex",
        "thread apply all bt 30",
        "-ex",
        "py-bt",
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120).stdout


def run(
    forks: int, threads: int, in_flight: int, child_timeout: float, show_hung: bool = False, rounds_apart: bool = False
) -> dict:
    warnings.filterwarnings("ignore", message=".*use of fork\\(\\) may lead to deadlocks", category=DeprecationWarning)
    memory.install_cpu_allocator(64)
    held = torch_uaccel.register_host(np.zeros(4 * 4096, dtype=np.uint8))
    # One-time initialisation racing a fork() hangs a child in torch or Python, not here: a lazy import
    # in progress (its module lock) or a C++ static being constructed (its guard), with torch's own
    # allocator too. Done once before forking, so every hang counted is one in steady state.
    use_inherited_state()
    stop = threading.Event()
    rounds = RoundsApart(apart=rounds_apart)
    warm = [threading.Event() for _ in range(threads)]
    workers = [threading.Thread(target=churn, args=(stop, warm[i], i, rounds), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    for event in warm:
        event.wait()
    started = time.monotonic()
    running: dict[int, float] = {}  # pid -> deadline
    hung = failed = launched = 0
    try:
        while launched < forks or running:
            while launched < forks and len(running) < in_flight:
                with rounds.between_rounds():
                    pid = fork_once(held)
                running[pid] = time.monotonic() + child_timeout
                launched += 1
            time.sleep(0.002)
            for pid, deadline in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    failed += os.waitstatus_to_exitcode(status) != CHILD_OK
                    del running[pid]
                elif time.monotonic() > deadline:
                    if show_hung:
                        print(f"hung child {pid}:\n{backtrace(pid)}", flush=True)
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    hung += 1
                    del running[pid]
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    held.close()
    memory.uninstall_cpu_allocator()
    return {"forks": forks, "hung": hung, "failed": failed, "seconds": round(time.monotonic() - started, 1)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forks", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2, help="threads using libuaccel while the main thread forks")
    parser.add_argument("--in-flight", type=int, default=4, help="children alive at once")
    parser.add_argument("--child-timeout", type=float, default=30.0, help="seconds before a child counts as hung")
    parser.add_argument(
        "--show-hung", action="store_true", help="print a hung child's backtrace (gdb) before killing it"
    )
    parser.add_argument(
        "--rounds-apart", action="store_true", help="fork only between the threads' steps (for ASan: see RoundsApart)"
    )
    args = parser.parse_args()
    result = run(args.forks, args.threads, args.in_flight, args.child_timeout, args.show_hung, args.rounds_apart)
    print(json.dumps(result), flush=True)
