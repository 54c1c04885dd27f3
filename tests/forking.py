"""Work in a forked child, under a time bound: a hang fails the test instead of hanging CI."""

import contextlib
import os
import pickle
import select
import signal
import threading
import time
import warnings

import pytest
from conftest import UNDER_ASAN

CHILD_TIMEOUT = 120 if UNDER_ASAN else 60


def in_forked_child(fn, timeout=CHILD_TIMEOUT, around_fork=contextlib.nullcontext):
    """fn() run in a forked child; its return value (or its exception, re-raised) comes back through a pipe.
    A child that has not finished within `timeout` seconds is killed and the test fails. fork() runs
    inside the context manager `around_fork()` makes (both processes leave it)."""
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():  # the warning is about threads of the parent: here, the point
        warnings.filterwarnings(
            "ignore", message=".*use of fork\\(\\) may lead to deadlocks", category=DeprecationWarning
        )
        with around_fork():
            pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            payload = pickle.dumps((True, fn()))
        except BaseException as error:
            payload = pickle.dumps((False, f"{type(error).__name__}: {error}"))
        os.write(write_end, payload)
        os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + timeout
    data = b""
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([read_end], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the forked child did not finish within {timeout} s: it hung")
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    assert data, "the forked child died without an answer"
    ok, value = pickle.loads(data)
    if not ok:
        raise AssertionError(f"in the forked child: {value}")
    return value


class RoundsApart:
    """Keeps fork() out of another thread's rounds when `apart` (else both contexts do nothing):
    `between_rounds()` waits for the round in progress and holds off the next; the turnstile stops the
    round thread from starving the forking one.

    For AddressSanitizer: GCC 12's takes no lock of its allocator's around fork(), so a child forked
    while another thread refilled a size class from the shared allocator waits at its first malloc of
    that class forever (seen under gdb: SizeClassAllocator64::GetFromAllocator, and with stacks
    recorded, StackDepotNode::store). Not libuaccel's mutexes: the other legs fork in mid-round."""

    def __init__(self, apart: bool):
        self.apart = apart
        self.turnstile, self.in_round = threading.Lock(), threading.Lock()

    @contextlib.contextmanager
    def round(self):
        if self.apart:
            with self.turnstile:
                pass
            with self.in_round:
                yield
        else:
            yield

    @contextlib.contextmanager
    def between_rounds(self):
        if self.apart:
            with self.turnstile, self.in_round:
                yield
        else:
            yield
