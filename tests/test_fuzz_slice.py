"""A 10,000-input slice of the fuzz harness (bench/fuzz.py): mutated `.sig` files through the
front end and the fmt round trip, mutated and generated replies through the reply parsers,
generated values through the validators. No input may raise or hang. The long run, and its
figures, are in bench/README.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ten_thousand_fuzzed_inputs_raise_nothing_and_never_hang(tmp_path: Path) -> None:
    # A generous hang limit: the machine is shared; the long run uses 2 s.
    command = [sys.executable, str(ROOT / "bench" / "fuzz.py"), "--inputs", "10000"]
    command += ["--seed", "22", "--limit", "10", "--out", str(tmp_path / "failures")]
    run = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "10,000 inputs" in run.stdout
    assert "failures: 0" in run.stdout
