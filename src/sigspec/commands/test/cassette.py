"""Cassettes: one test's recorded exchanges, one readable JSONL file. Pure but for `read`
and `write`.

The first line names the format, the test, its file and signature, the provider and the
model; each further line is one turn of one run: its numbers, the request body the provider
was sent (never a header), the body's sha256 over canonical JSON, the reply the callback
returned and the latency. Keys are sorted and nothing holds a time of day, so re-recording an
unchanged exchange writes the same bytes (a turn whose request and reply did not change keeps
the latency recorded before).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

FORMAT = "sigspec-cassette/1"


class CassetteError(ValueError):
    """A cassette that cannot be read: said in a sentence, to re-record."""


@dataclass(frozen=True, slots=True)
class Header:
    test: str
    file: str  # the .sig file, project-relative
    signature: str
    provider: str
    model: str


@dataclass(frozen=True, slots=True)
class Turn:
    run: int  # from 1
    turn: int  # from 1, within its run
    request: Any  # the provider request body
    sha256: str
    reply: Any  # what the callback returned
    latency_ms: int

    def same_exchange(self, other: Turn) -> bool:
        return (self.run, self.turn, self.sha256) == (other.run, other.turn, other.sha256) and (
            canonical(self.reply) == canonical(other.reply)
        )


@dataclass(frozen=True, slots=True)
class Cassette:
    header: Header
    turns: tuple[Turn, ...]

    def runs(self) -> dict[int, tuple[Turn, ...]]:
        """The turns by run number, each run's in turn order."""
        found: dict[int, list[Turn]] = {}
        for turn in self.turns:
            found.setdefault(turn.run, []).append(turn)
        return {run: tuple(sorted(turns, key=lambda t: t.turn)) for run, turns in found.items()}


def canonical(value: Any) -> bytes:
    """The bytes a body is hashed over: sorted keys, no spaces, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def digest(body: Any) -> str:
    return hashlib.sha256(canonical(body)).hexdigest()


def location(folder: Path, file: str, test: str) -> Path:
    """`<folder>/<file without .sig>/<test>.jsonl`; a file above the project root (under an
    import root, `../shared/x.sig`) stays below the folder (`_up/shared/x/`), and so does
    one shown absolute, on another drive (`C:/x/y.sig`: `C/x/y/`; `/x/y.sig`: `_abs/x/y/`)."""
    parts = [_part(part) for part in PurePosixPath(file).with_suffix("").parts]
    return folder.joinpath(*parts, f"{test}.jsonl")


def _part(part: str) -> str:
    """A folder name of a cassette's path that cannot leave the cassettes folder: `..`, the
    root `/` and a drive `C:` each made a plain name."""
    if part == "..":
        return "_up"
    if part == "/":
        return "_abs"
    return part.replace(":", "") or "_"


def dumps(cassette: Cassette) -> str:
    header = {"format": FORMAT, **_fields(cassette.header)}
    lines = [_line(header), *(_line(_fields(turn)) for turn in cassette.turns)]
    return "".join(lines)


def _fields(item: Header | Turn) -> dict[str, Any]:
    return {name: getattr(item, name) for name in item.__slots__}


def _line(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) + "\n"


def loads(text: str, where: str) -> Cassette:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise CassetteError(f"{where}: empty")
    try:
        header = json.loads(lines[0])
        rows = [json.loads(line) for line in lines[1:]]
    except json.JSONDecodeError as exc:
        raise CassetteError(f"{where}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CassetteError(f"{where}: the first line does not name the format {FORMAT}")
    read = _read(Header, header, where, 1)
    if not all(type(getattr(read, name)) is str for name in Header.__slots__):
        raise CassetteError(f"{where}: line 1: {', '.join(Header.__slots__)} must be strings")
    cassette = Cassette(read, tuple(_turns(rows, where)))
    for run, turns in sorted(cassette.runs().items()):
        if [t.turn for t in turns] != list(range(1, len(turns) + 1)):
            numbers = ", ".join(str(t.turn) for t in turns)
            raise CassetteError(
                f"{where}: run {run} has the turns {numbers}, not 1 to {len(turns)}"
            )
    return cassette


def _turns(rows: Iterable[Any], where: str) -> Iterable[Turn]:
    for number, row in enumerate(rows, start=2):
        turn = _read(Turn, row, where, number)
        if not all(_counts(n, 1) for n in (turn.run, turn.turn)):
            raise CassetteError(f"{where}: line {number}: `run` and `turn` must be integers from 1")
        if not _counts(turn.latency_ms, 0):
            raise CassetteError(f"{where}: line {number}: `latency_ms` must be an integer from 0")
        if type(turn.sha256) is not str:
            raise CassetteError(f"{where}: line {number}: `sha256` must be a string")
        yield turn


def _counts(value: Any, least: int) -> bool:
    """An integer (never a boolean, which JSON keeps apart) of at least `least`."""
    return type(value) is int and value >= least


def _read(cls: Any, row: Any, where: str, number: int) -> Any:
    names = cls.__slots__
    if not isinstance(row, dict) or any(name not in row for name in names):
        raise CassetteError(f"{where}: line {number}: expected the keys {', '.join(names)}")
    return cls(**{name: row[name] for name in names})


def kept_latencies(new: Sequence[Turn], old: Cassette | None) -> tuple[Turn, ...]:
    """`new`, each turn that repeats an old one (same request, same reply) with the old
    latency: an unchanged answer re-recorded leaves the file unchanged."""
    if old is None:
        return tuple(new)
    before = {(t.run, t.turn): t for t in old.turns}
    out = []
    for turn in new:
        prior = before.get((turn.run, turn.turn))
        keep = prior is not None and prior.same_exchange(turn)
        out.append(replace(turn, latency_ms=prior.latency_ms) if keep and prior else turn)
    return tuple(out)


def read(path: Path, where: str, allowed: Sequence[Path]) -> Cassette | None:
    """The cassette at `path`, or None when there is none. Only a regular file is read (a
    fifo would block the run for ever), and a link only to a file below one of the `allowed`
    folders (a cloned project must not make a replay read what lies outside it)."""
    from sigspec.compiler.paths import admit, located

    _, refused = admit(located(path), [folder.resolve() for folder in allowed])
    if refused == "outside":
        raise CassetteError(f"{where}: a link to a file outside the project, not read")
    if refused is not None:
        raise CassetteError(f"{where}: {refused}, not a cassette file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"{where}: cannot read it: {exc}") from None
    return loads(text, where)


def write_text(path: Path, text: str) -> None:
    """Writes a cassette's text at `path` in one step (its folders made)."""
    from sigspec.infra.atomic import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
