"""Cassettes (`commands/test/cassette.py`): the round trip, the hash over canonical JSON,
deterministic bytes, latencies kept for unchanged exchanges, and unreadable files named."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sigspec.commands.test import cassette as tape

BODY = {"model": "m", "messages": [{"role": "user", "content": "héllo"}], "temperature": 0}
HEADER = tape.Header("positive", "reviews/sentiment.sig", "classify", "openai", "m")


def turn(run: int, number: int, content: str, latency: int = 12) -> tape.Turn:
    reply = {"content": content, "tokens": {"input": 3, "output": 2}}
    return tape.Turn(run, number, BODY, tape.digest(BODY), reply, latency)


def test_round_trip() -> None:
    cassette = tape.Cassette(HEADER, (turn(1, 1, "bad"), turn(1, 2, "{}"), turn(2, 1, "{}")))
    text = tape.dumps(cassette)
    assert tape.loads(text, "x") == cassette
    assert tape.loads(text, "x").runs() == {1: cassette.turns[:2], 2: cassette.turns[2:]}
    lines = text.splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["format"] == tape.FORMAT
    assert text.endswith("\n") and "héllo" in text  # readable: UTF-8, not \\u escapes


def test_the_hash_is_sha256_of_canonical_json() -> None:
    canonical = '{"messages":[{"content":"héllo","role":"user"}],"model":"m","temperature":0}'
    assert tape.digest(BODY) == hashlib.sha256(canonical.encode()).hexdigest()
    reordered = {"temperature": 0, "messages": BODY["messages"], "model": "m"}
    assert tape.digest(reordered) == tape.digest(BODY)
    assert tape.digest({**BODY, "temperature": 0.5}) != tape.digest(BODY)


def test_the_bytes_do_not_depend_on_the_hash_seed() -> None:
    code = (
        "from sigspec.commands.test import cassette as t;"
        "b={'z': {'b': 1, 'a': [3, {'y': 1, 'x': 2}]}, 'a': 'é'};"
        "print(t.digest(b)); print(t.dumps(t.Cassette("
        "t.Header('n','f.sig','s','openai','m'), (t.Turn(1,1,b,t.digest(b),b,5),))), end='')"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PYTHONUTF8": "1"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outs) == 1


def test_an_unchanged_exchange_keeps_its_latency() -> None:
    old = tape.Cassette(HEADER, (turn(1, 1, "{}", latency=40),))
    same = tape.kept_latencies([turn(1, 1, "{}", latency=7)], old)
    assert same[0].latency_ms == 40
    changed = tape.kept_latencies([turn(1, 1, '{"a": 1}', latency=7)], old)
    assert changed[0].latency_ms == 7
    assert tape.kept_latencies([turn(1, 1, "{}", latency=7)], None)[0].latency_ms == 7


def test_location() -> None:
    folder = Path("/c")
    assert tape.location(folder, "reviews/sentiment.sig", "t") == Path(
        "/c/reviews/sentiment/t.jsonl"
    )
    assert tape.location(folder, "../shared/x.sig", "t") == Path("/c/_up/shared/x/t.jsonl")
    # A file shown absolute (no relative path to it: another drive) stays below the folder.
    assert tape.location(folder, "/abs/x.sig", "t") == Path("/c/_abs/abs/x/t.jsonl")
    assert tape.location(folder, "C:/x/y.sig", "t") == Path("/c/C/x/y/t.jsonl")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "empty"),
        ('{"format": "other/9"}\n', "does not name the format"),
        ("not json\n", "line 1: not JSON"),
        (
            json.dumps({"format": tape.FORMAT, "test": "t"}) + "\n",
            "line 1: expected the keys",
        ),
        (
            tape.dumps(tape.Cassette(HEADER, ()))
            + json.dumps({"run": "1", "turn": 1, "request": {}, "sha256": "", "reply": {}})
            + "\n",
            "line 2: expected the keys",
        ),
        # Hand-edited values of the wrong kind: said, never a traceback later.
        (tape.dumps(tape.Cassette(HEADER, (turn(1, 1, "{}", latency=-1),))), "`latency_ms` must"),
        (
            tape.dumps(tape.Cassette(HEADER, (turn(1, 1, "{}"),))).replace(
                '"latency_ms": 12', '"latency_ms": "12"'
            ),
            "line 2: `latency_ms` must be an integer from 0",
        ),
        (tape.dumps(tape.Cassette(HEADER, (turn(0, 1, "{}"),))), "integers from 1"),
        (
            tape.dumps(tape.Cassette(HEADER, (turn(1, 1, "{}"), turn(1, 1, "{}")))),
            "run 1 has the turns 1, 1, not 1 to 2",
        ),
        (
            tape.dumps(tape.Cassette(HEADER, (turn(2, 2, "{}"),))),
            "run 2 has the turns 2, not 1 to 1",
        ),
        (tape.dumps(tape.Cassette(HEADER, (turn(True, 1, "{}"),))), "integers from 1"),
        (
            tape.dumps(tape.Cassette(HEADER, (turn(1, 1, "{}"),))).replace(
                '"sha256": "', '"sha256": 1, "x": "'
            ),
            "`sha256` must be a string",
        ),
        (tape.dumps(tape.Cassette(tape.Header("t", "f.sig", "s", "openai", 5), ())), "strings"),  # type: ignore[arg-type]
    ],
)
def test_an_unreadable_cassette_says_where(text: str, said: str) -> None:
    with pytest.raises(tape.CassetteError, match=r"c\.jsonl") as info:
        tape.loads(text, "c.jsonl")
    assert said in str(info.value)


def test_write_and_read(tmp_path: Path) -> None:
    cassette = tape.Cassette(HEADER, (turn(1, 1, "{}"),))
    path = tmp_path / "a" / "b" / "t.jsonl"
    tape.write_text(path, tape.dumps(cassette))
    assert tape.read(path, "t", [tmp_path]) == cassette
    assert tape.read(tmp_path / "none.jsonl", "t", [tmp_path]) is None


def test_only_a_regular_file_below_the_allowed_folders_is_read(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    text = tape.dumps(tape.Cassette(HEADER, (turn(1, 1, "{}"),)))
    (outside / "secret.jsonl").write_text(text, encoding="utf-8")
    (project / "inside.jsonl").write_text(text, encoding="utf-8")
    (project / "out.jsonl").symlink_to(outside / "secret.jsonl")
    (project / "in.jsonl").symlink_to(project / "inside.jsonl")
    with pytest.raises(tape.CassetteError, match="outside the project"):
        tape.read(project / "out.jsonl", "out.jsonl", [project])
    assert tape.read(project / "in.jsonl", "in.jsonl", [project]) is not None
    # A fifo would block the read for ever; a folder is no cassette either.
    os.mkfifo(project / "fifo.jsonl")
    with pytest.raises(tape.CassetteError, match=r"fifo\.jsonl: a fifo, not a cassette file"):
        tape.read(project / "fifo.jsonl", "fifo.jsonl", [project])
    (project / "dir.jsonl").mkdir()
    with pytest.raises(tape.CassetteError, match="a folder"):
        tape.read(project / "dir.jsonl", "dir.jsonl", [project])
