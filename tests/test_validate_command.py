"""`sigspec validate` on broken and hostile input (issue 22): a reply file that cannot be read
is a usage error naming it (exit 2), never a traceback; a reply past a limit is a finding for
that reply alone; a lone surrogate prints as valid JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from conftest import run_cli
from sigspec.commands.validate import json_text, read_reply, run
from sigspec.runtime.common import Limits

SIG = "signature s() -> {name :string}\nsignature raw() -> {data :map, anything :any}\n"


@pytest.fixture
def sig(tmp_path: Path) -> Path:
    path = tmp_path / "r.sig"
    path.write_text(SIG, "utf-8")
    return path


def validate(sig: Path, name: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    done = run_cli("validate", f"{sig}:{name}", *args, stdin=stdin, cwd=sig.parent)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_a_reply_file_that_cannot_be_read_is_a_usage_error(sig: Path) -> None:
    assert validate(sig, "s", "missing.json") == (2, "", "error: missing.json: no such file\n")
    folder = sig.parent / "folder"
    folder.mkdir()
    assert validate(sig, "s", "folder")[::2] == (
        2,
        "error: folder: is a folder, not a reply file\n",
    )
    (sig.parent / "bad.json").write_bytes(b'{"name": "\xff\xfe"}')
    code, out, err = validate(sig, "s", "bad.json")
    assert (code, out) == (2, "")
    assert err == "error: bad.json: not UTF-8 text (byte 0xff at offset 10)\n"


def test_an_unreadable_reply_file_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user without read permission sees it (the tests may run as root, who reads all)."""
    locked = tmp_path / "locked.json"
    locked.write_text("{}")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(click.UsageError, match=r"locked\.json: permission denied"):
        read_reply(locked)


def test_an_empty_reply_is_a_finding(sig: Path) -> None:
    (sig.parent / "empty.json").write_text("")
    code, out, _ = validate(sig, "s", "empty.json")
    assert code == 1
    assert json.loads(out) == {"ok": False, "reason": "the reply is empty", "errors": []}


def test_a_lone_surrogate_is_kept_and_printed_as_json(sig: Path) -> None:
    (sig.parent / "reply.json").write_text('{"name": "a\\ud800b"}')
    code, out, _ = validate(sig, "s", "reply.json")
    assert code == 0
    assert '"a\\ud800b"' in out and out.isascii()
    assert json.loads(out)["value"] == {"name": "a\ud800b"}
    assert json_text({"k\udc80": "é"}) == '{"k\\udc80": "é"}'


def test_a_deep_reply_is_a_finding_naming_the_limit(sig: Path) -> None:
    (sig.parent / "deep.json").write_text('{"data": {}, "anything": ' + "[" * 700 + "]" * 700 + "}")
    code, out, _ = validate(sig, "raw", "deep.json")
    assert code == 1
    assert json.loads(out)["reason"] == (
        "the reply's JSON is nested more than 128 levels deep (the nesting-depth limit)"
    )


def test_jsonl_validates_every_other_line(sig: Path) -> None:
    lines = [
        "[" * 100_000,  # deeper than the json module reads
        json.dumps({"id": "ok", "text": '{"name": "x"}'}),
        "",
        "   ",
        json.dumps({"id": "sur", "text": '{"name": "\\ud800"}'}),
        json.dumps({"id": "deep", "text": "[" * 100_000}),
        '{"id": NaN, "text": "{}"}',
        "[1, 2]",
        json.dumps({"id": "x"}),
    ]
    code, out, _ = validate(sig, "s", "--jsonl", stdin="\n".join(lines) + "\n")
    assert code == 1
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in results] == [1, "ok", "sur", "deep", 7, 8, 9]
    assert [r["ok"] for r in results] == [False, True, True, False, False, False, False]
    assert results[0]["reason"] == "bad input line: nested too deeply to read"
    assert results[2]["value"] == {"name": "\ud800"}
    assert "the nesting-depth limit" in results[3]["reason"]
    assert results[4]["reason"] == "bad input line: `id` must be a string, a number or null"
    assert (
        results[5]["reason"]
        == results[6]["reason"]
        == ('bad input line: expected an object {"id": ..., "text": "..."}')
    )


def test_jsonl_line_that_is_not_utf8(sig: Path) -> None:
    stdin = b'{"id": 1, "text": "\xff"}\n{"id": 2, "text": "{\\"name\\": \\"x\\"}"}\n'
    done = subprocess.run(
        [sys.executable, "-m", "sigspec", "validate", f"{sig}:s", "--jsonl"],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert results[0]["reason"] == "bad input line: not UTF-8 text (byte 0xff at offset 19)"
    assert results[1]["ok"] is True and done.returncode == 1


def test_the_command_takes_limits(
    sig: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = tmp_path / "reply.json"
    reply.write_text('{"name": "a name longer than ten"}')
    assert run(f"{sig}:s", reply, False, lambda diags: None) == 0
    capsys.readouterr()
    assert run(f"{sig}:s", reply, False, lambda diags: None, Limits(reply_chars=10)) == 1
    assert json.loads(capsys.readouterr().out)["reason"] == (
        "the reply is longer than 10 characters (the reply-size limit)"
    )


def test_patterns_mean_what_ecma_262_means(tmp_path: Path) -> None:
    """`$` is the end (no final newline before it), `\\d` is ASCII (issue 24), as the JSON
    Schema and the TypeScript validators read the pattern."""
    sig = tmp_path / "p.sig"
    sig.write_text('signature z() -> {zip :string @pattern("^\\\\d{5}$")}\n', "utf-8")
    assert validate(sig, "z", "-", stdin='{"zip": "12345"}')[0] == 0
    for bad in ('"12345\\n"', '"1234\\u0665"'):
        code, out, err = validate(sig, "z", "-", stdin=f'{{"zip": {bad}}}')
        assert code == 1, (bad, out, err)
        assert json.loads(out)["errors"] == [
            {"path": "zip", "message": 'does not match the pattern "^\\\\d{5}$"'}
        ]
