"""Every diagnostic code is triggered by a test; every table example produces its own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec import SignatureError, load, parse_signature
from sigspec.compiler.breaking import compare
from sigspec.compiler.generate import compile_project
from sigspec.diagnostics.codes import BREAKING, CODES, IMPORT
from sigspec.syntax.limits import MAX_DECLARATIONS, MAX_FILE_BYTES
from sigspec.syntax.scan import MAX_DEPTH

# Codes whose trigger is not a plain .sig text; each has its own test below.
SPECIAL = {
    "invalid-encoding",
    "file-too-large",
    "nesting-too-deep",
    "too-many-declarations",
    "read-error",
    "comment-in-inline",
    "outside-root",
    "deprecated-setting",  # its example is a configuration: test_deprecated_setting
}


def split_example(example: str) -> dict[str, str]:
    first, *rest = example.split("---- ")
    files = {"main.sig": first}
    for chunk in rest:
        header, _, body = chunk.partition("\n")
        files[header.strip()] = body
    return files


# Codes that only `sigspec compile` reports: what each provider target would lose.
COMPILE_CODES = {"provider-loss", "provider-unsupported", "provider-limit"}


def codes_for(root: Path, name: str = "main.sig") -> list[str]:
    result = load([root / name])
    found = [d.code for d in result.diagnostics]
    if not result.has_errors:
        compiled = compile_project(result.project, (), {}, inputs={})
        found += [d.code for d in compiled.diagnostics]
    return found


def test_every_code_has_an_example_or_a_special_test() -> None:
    missing = [c.name for c in CODES.values() if not c.example and c.name not in SPECIAL]
    assert missing == []


@pytest.mark.parametrize("code", sorted(c for c in CODES if c not in SPECIAL | BREAKING | IMPORT))
def test_example_produces_its_code(code: str, write_files) -> None:  # type: ignore[no-untyped-def]
    root = write_files(split_example(CODES[code].example))
    assert code in codes_for(root)


def breaking_versions(example: str) -> dict[str, str]:
    """A breaking example's files: main.sig is the old version (`old/main.sig`); the file
    headed `new.sig` is the new one at the same path (`new/main.sig`), and a header
    `new/PATH` puts the new version at PATH."""
    files = split_example(example)
    out = {"old/main.sig": files.pop("main.sig")}
    for name, text in files.items():
        out["new/main.sig" if name == "new.sig" else name] = text
    return out


@pytest.mark.parametrize("code", sorted(BREAKING))
def test_breaking_example_produces_its_code(code: str, write_files) -> None:  # type: ignore[no-untyped-def]
    root = write_files(breaking_versions(CODES[code].example))
    old = load([root / "old"], root=root / "old")
    new = load([root / "new"], root=root / "new")
    assert not old.has_errors and not new.has_errors
    assert code in [d.code for d in compare(old.project, new.project)]


@pytest.mark.parametrize("code", sorted(IMPORT))
def test_import_example_produces_its_code(code: str) -> None:
    """An import code's example is a JSON Schema: `sigspec import` reports the code for it."""
    import json

    from sigspec.importer import import_schema

    imported = import_schema(json.loads(CODES[code].example), path="example.json", stem="E")
    assert code in [d.code for d in imported.diagnostics]


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_explained(code: str) -> None:
    entry = CODES[code]
    assert entry.summary.endswith(".")
    assert len(entry.explanation) > 40


def test_invalid_encoding(write_files) -> None:  # type: ignore[no-untyped-def]
    root = write_files({"main.sig": b"type A = :int\n\xff\xfe"})
    result = load([root / "main.sig"])
    [diag] = result.diagnostics
    assert diag.code == "invalid-encoding"
    assert "0xff" in diag.message and "offset 14" in diag.message


def test_file_too_large(write_files) -> None:  # type: ignore[no-untyped-def]
    root = write_files({"main.sig": "#" * (MAX_FILE_BYTES + 10)})
    assert codes_for(root) == ["file-too-large"]


def test_nesting_too_deep(write_files) -> None:  # type: ignore[no-untyped-def]
    deep = "[" * (MAX_DEPTH + 1) + ":int" + "]" * (MAX_DEPTH + 1)
    root = write_files({"main.sig": f"type A = {deep}\n"})
    assert codes_for(root) == ["nesting-too-deep"]
    ok = "[" * MAX_DEPTH + ":int" + "]" * MAX_DEPTH
    root = write_files({"main.sig": f"type A = {ok}\n"})
    assert codes_for(root) == []


def test_too_many_declarations(write_files) -> None:  # type: ignore[no-untyped-def]
    text = "".join(f"type T{i} = :int\n" for i in range(MAX_DECLARATIONS + 1))
    root = write_files({"main.sig": text})
    assert codes_for(root) == ["too-many-declarations"]


def test_read_error(tmp_path: Path) -> None:
    [diag] = load([tmp_path / "gone.sig"]).diagnostics
    assert diag.code == "read-error"
    assert "gone.sig" in diag.message


def test_comment_in_inline() -> None:
    with pytest.raises(SignatureError) as info:
        parse_signature(":int # the answer")
    assert [d.code for d in info.value.diagnostics] == ["comment-in-inline"]


@pytest.mark.parametrize("name", ["a\\u0000b.sig", "x" * 5000 + ".sig", "no-suffix"])
def test_impossible_import_paths_are_not_found(name: str, write_files) -> None:  # type: ignore[no-untyped-def]
    # Found by bench/fuzz.py: a NUL byte in an import path made Path.resolve() raise.
    root = write_files({"main.sig": f'import "{name}"\n'})
    assert codes_for(root) == ["import-not-found"]


def test_pattern_warnings_do_not_leak(write_files, recwarn) -> None:  # type: ignore[no-untyped-def]
    root = write_files({"main.sig": 'signature f() -> {a :string @pattern("[[a]")}\n'})
    assert load([root / "main.sig"]).diagnostics == ()
    assert not [w for w in recwarn if issubclass(w.category, FutureWarning)]


def test_outside_root(tmp_path: Path) -> None:
    """An import, or a linked .sig file, that leaves the project root is refused, unread."""
    (tmp_path / "project").mkdir()
    (tmp_path / "outside.sig").write_text("type Secret = :int\n")
    (tmp_path / "project" / "a.sig").write_text('import "../outside.sig"\ntype A = :int\n')
    (tmp_path / "project" / "link.sig").symlink_to(tmp_path / "outside.sig")
    result = load([tmp_path / "project"])
    found = [(d.code, d.path) for d in result.diagnostics]
    assert found.count(("outside-root", "a.sig")) == 1  # the import, at its span
    assert ("outside-root", "") in found  # the link, which has no span in a file
    assert [s.path for s in result.sources] == ["a.sig"]
    assert "Secret" not in result.project.types


def test_deprecated_setting(tmp_path: Path) -> None:
    from sigspec.compiler.config import load_config

    (tmp_path / "sigspec.toml").write_text(CODES["deprecated-setting"].example)
    [diag] = load_config(tmp_path).warnings
    assert diag.code == "deprecated-setting"
