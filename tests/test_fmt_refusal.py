"""`sigspec fmt` writes nothing it has not proved: a reprint that does not parse, or that
parses to another meaning, is refused (exit 1, the file named on stderr, the file untouched)
in every mode. The printer is made to misbehave in-process; one case needs no help."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from sigspec.commands.fmt import format_files
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax import ast
from sigspec.syntax.fmt import printer, run

SOURCE = "type   A = {a :int}\ntype B = {b A}\n"
MODES = {"write": {}, "check": {"check": True}, "diff": {"diff": True}}


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def _format(paths: list[Path], mode: str) -> int:
    options = {"check": False, "diff": False, **MODES[mode]}
    return format_files(paths, color=False, **options)


@pytest.mark.parametrize("mode", MODES)
def test_a_reprint_that_does_not_parse_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    path = tmp_path / "x.sig"
    path.write_text(SOURCE)
    before = _snapshot(path)
    monkeypatch.setattr(printer, "format_module", lambda s, m: "type A = :int??\n")
    assert _format([path], mode) == 1
    assert _snapshot(path) == before
    err = capsys.readouterr().err
    assert f"error: {path}: not reformatted" in err or "x.sig: not reformatted" in err
    assert "does not parse" in err


@pytest.mark.parametrize("mode", MODES)
def test_a_reprint_with_another_meaning_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    """Past the syntax's proof (switched off here), the command's proof still holds: the
    checked IR of every file must be the same."""
    path = tmp_path / "x.sig"
    path.write_text(SOURCE)
    before = _snapshot(path)
    monkeypatch.setattr(run, "reprint_difference", lambda *args: None)
    monkeypatch.setattr(
        printer, "format_module", lambda s, m: "type A = {a :string}\n\ntype B = {b A}\n"
    )
    assert _format([path], mode) == 1
    assert _snapshot(path) == before
    err = capsys.readouterr().err
    assert "x.sig: not reformatted" in err and "type `A` changes" in err


def test_only_the_file_at_fault_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.sig", tmp_path / "bad.sig"
    good.write_text("type   G = :int\n")
    bad.write_text(SOURCE)
    before = _snapshot(bad)
    real = printer.format_module

    def misbehave(source: SourceFile, module: ast.Module) -> str:
        return "type A = {a :int??}\n" if source.path.endswith("bad.sig") else real(source, module)

    monkeypatch.setattr(printer, "format_module", misbehave)
    assert _format([bad, good], "write") == 1
    assert _snapshot(bad) == before
    assert good.read_text() == "type G = :int\n"
    captured = capsys.readouterr()
    assert "bad.sig: not reformatted" in captured.err and "good.sig" not in captured.err
    assert "1 file reformatted, 0 unchanged, 1 not parsed or refused" in captured.err


def test_a_file_that_imports_the_changed_one_is_proved_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reprint that changes what another file means (here: it renames the type the other
    file imports) is refused, and the message names that file."""
    user = tmp_path / "user.sig"
    user.write_text('import "types.sig"\n\ntype U = {t T}\n')
    imported = tmp_path / "types.sig"
    imported.write_text("type   T = :int\n")
    before = _snapshot(imported)

    def rename(source: SourceFile, module: ast.Module) -> str:
        return "type T2 = :int\n" if source.path.endswith("types.sig") else source.text

    monkeypatch.setattr(run, "reprint_difference", lambda *args: None)
    monkeypatch.setattr(printer, "format_module", rename)
    assert _format([imported, user], "write") == 1
    assert _snapshot(imported) == before
    err = capsys.readouterr().err
    assert "types.sig: not reformatted" in err
    assert "in user.sig, type `U` changes" in err


# A suppression on its own line covers the next line; reflowing the signature onto one line
# would make it cover the unknown type it did not cover before. The real printer does that,
# and the proof (diagnostics per file) refuses it.
MOVES_A_SUPPRESSION = (
    "# sigspec: ignore[unknown-type] legacy name\nsignature f(\n  a B\n) -> :int\n"
)


def test_a_reprint_that_changes_the_diagnostics_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sig"
    path.write_text(MOVES_A_SUPPRESSION)
    before = _snapshot(path)
    result = run_cli("fmt", "s.sig", cwd=tmp_path)
    assert result.returncode == 1
    assert "s.sig: not reformatted" in result.stderr
    assert "-unknown-type, -unused-suppression" in result.stderr
    assert _snapshot(path) == before
    check = run_cli("fmt", "--check", "s.sig", cwd=tmp_path)
    assert check.returncode == 1 and "would reformat" not in check.stdout


def test_standard_input_is_proved_too() -> None:
    result = run_cli("fmt", "-", stdin=MOVES_A_SUPPRESSION)
    assert result.returncode == 1 and result.stdout == ""
    assert "<stdin>: not reformatted" in result.stderr


def test_bom_and_crlf_are_formatted_away(tmp_path: Path) -> None:
    path = tmp_path / "x.sig"
    path.write_bytes("\ufeff## Doc\r\ntype   A = {a :int, # c\r\n b :string}\r\n".encode())
    assert _format([path], "write") == 0
    assert path.read_text(encoding="utf-8") == (
        "## Doc\ntype A = {\n  a :int, # c\n  b :string\n}\n"
    )


def test_bom_on_standard_input() -> None:
    result = run_cli("fmt", "-", stdin="\ufefftype   A = :int\n")
    assert result.returncode == 0 and result.stdout == "type A = :int\n"
