"""The grammar is conflict-free LALR(1), and the installed parser cache is reused."""

from __future__ import annotations

from pathlib import Path

import lark

from sigspec.syntax import loader


def test_grammar_has_no_conflicts() -> None:
    # strict=True turns every shift/reduce or terminal collision into an error.
    lark.Lark(loader.grammar_text(), strict=True, **loader.LARK_OPTIONS)


def test_parser_cache_is_written_and_read(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    loader.get_parser.cache_clear()
    try:
        first = loader.get_parser()
        [cached] = (tmp_path / "sigspec").glob("parser-*.pickle")
        assert (tmp_path / "sigspec").stat().st_mode & 0o077 == 0  # private folder
        loader.get_parser.cache_clear()
        second = loader.get_parser()
        assert second.parse(":int", start="inline") == first.parse(":int", start="inline")
        cached.write_bytes(b"garbage")  # a damaged cache is rebuilt, not trusted
        loader.get_parser.cache_clear()
        assert loader.get_parser().parse(":int", start="inline") is not None
    finally:
        loader.get_parser.cache_clear()
