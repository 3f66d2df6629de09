"""Using the second core for large compiles: one forked child computes half of the work.

The child inherits the resolved project through fork (nothing is pickled on the way in) and
sends back only its result. Anything unusual (no fork, a failing or killed child) falls back
to computing that half here, so the result never depends on how it was computed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def fork_map(fn: Callable[[T], R], first: T, second: T) -> tuple[R, R]:
    """(fn(first), fn(second)), the second computed in a forked child when possible."""
    if not hasattr(os, "fork"):
        return fn(first), fn(second)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
        code = 1
        try:
            os.close(read_end)
            payload = pickle.dumps(fn(second), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        mine = fn(first)
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
    if status == 0 and payload:
        with contextlib.suppress(Exception):
            return mine, pickle.loads(payload)  # our own child's bytes, never outside input
    return mine, fn(second)
