"""The formats the runtime checks (runtime/formats.py), as JSON Schema 2020-12 defines them.

The tables hold the JSON-Schema-Test-Suite's cases (tests/draft2020-12/optional/format/) and
edge cases of our own. Where the `jsonschema` package checks a format with the standard
library and follows the specification (date, ipv4, ipv6, uuid), it is a second opinion.
"""

from __future__ import annotations

import ast
import datetime
import importlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conftest import ROOT, run_cli, write_python_package
from sigspec.runtime import formats
from sigspec.runtime.formats import CHECKS, format_error

# format: (valid, invalid)
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "date-time": (
        (
            "1963-06-19T08:30:06.283185Z",
            "1963-06-19T08:30:06Z",
            "1937-01-01T12:00:27.87+00:20",
            "1990-12-31T15:59:50.123-08:00",
            "1963-06-19t08:30:06.283185z",
            "1985-04-12T00:59:59.999999999999999Z",
            "2024-02-29T00:00:00Z",
            "2000-02-29T00:00:00+14:00",
        ),
        (
            # RFC 3339 allows them; Python's datetime (the models' type) does not
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60.123-08:00",
            "0000-01-01T00:00:00-00:00",
            "1998-12-31T23:59:61Z",
            "1998-12-31T23:58:60Z",
            "1998-12-31T22:59:60Z",
            "1990-02-31T15:59:59.123-08:00",
            "1990-12-31T15:59:59-24:00",
            "1963-06-19T08:30:06.28123+01:00Z",
            "1990-12-31T24:00:00Z",
            "1990-12-31T15:60:00Z",
            "1990-12-31T10:00:00+10:60",
            "06/19/1963 08:30:06 PST",
            "2013-350T01:01:01",
            "1963-6-19T08:30:06.283185Z",
            "1963-06-1T08:30:06.283185Z",
            "1963-06-1\u09eaT00:00:00Z",
            "1963-06-11T0\u09ea:00:00Z",
            "+11963-06-19T08:30:06.283185Z",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00Z\n",
            "2024-01-01",
            "",
        ),
    ),
    "date": (
        ("1963-06-19", "2020-01-31", "2020-02-29", "2000-02-29", "2021-04-30", "0001-01-01"),
        (
            "0000-01-01",  # no year 0 in Python's date (the models' type)
            "06/19/1963",
            "2020-01-32",
            "2021-02-29",
            "2020-02-30",
            "2024-02-30",
            "1900-02-29",
            "2020-03-32",
            "2020-04-31",
            "2020-13-01",
            "2020-00-01",
            "2020-01-00",
            "1998-1-20",
            "1998-01-1",
            "1998-13-01",
            "2013-350",
            "1963-06-1\u09ea",
            "20230328",
            "2023-W01",
            "2023-W13-2",
            "2022W527",
            "2024-01-01T00:00:00Z",
            "2024-01-01\n",
            "",
        ),
    ),
    "time": (
        (
            "08:30:06Z",
            "23:20:50.52Z",
            "08:30:06.283185Z",
            "08:30:06+00:20",
            "08:30:06-08:00",
            "12:34:56-00:00",
            "08:30:06z",
        ),
        (
            # RFC 3339 allows them; Python's datetime (the models' type) does not
            "23:59:60Z",
            "23:59:60+00:00",
            "01:29:60+01:30",
            "23:29:60+23:30",
            "15:59:60-08:00",
            "00:29:60-23:30",
            "008:030:006Z",
            "8:3:6Z",
            "8:0030:6Z",
            "22:59:60Z",
            "23:58:60Z",
            "22:59:60+00:00",
            "23:58:60+00:00",
            "23:59:60+01:00",
            "23:59:60+00:30",
            "23:59:60-01:00",
            "23:59:60-00:30",
            "08:30:06-8:000",
            "24:00:00Z",
            "00:60:00Z",
            "00:00:61Z",
            "01:02:03+24:00",
            "01:02:03+00:60",
            "01:02:03Z+00:30",
            "08:30:06 PST",
            "01:01:01,1111",
            "12:00:00",
            "12:00:00.52",
            "1\u09e8:00:00Z",
            "08:30:06#00:20",
            "ab:cd:ef",
            "2020-11-28T23:55:45Z",
            "08:30:06+0130",
            "08:30:06+01",
            "08:30:06Z\n",
            "24:59:00+01:00",
        ),
    ),
    "duration": (
        (
            "P4DT12H30M5S",
            "P4Y",
            "PT0S",
            "P0D",
            "P1M",
            "PT1M",
            "PT36H",
            "P1DT12H",
            "P2W",
            "P1Y2M3DT4H5M6S",
            "P1Y2M3D",
            "PT1H2M3S",
            "P1M2D",
            "PT1H30M",
            "P10Y10M10DT10H10M10S",
            "P1Y2M",
            "PT1H2M",
            "PT1M2S",
            "P01D",
            "P" + "9" * 80 + "D",
            "p1dt2h",  # RFC 5234: ABNF literals are case-insensitive
        ),
        (
            "PT1D",
            "4DT12H30M5S",
            "P",
            "P1YT",
            "PT",
            "P2D1Y",
            "P1D2H",
            "P2S",
            "P1Y2W",
            "P\u09e8Y",
            "P1",
            "PT0.5S",
            " P1D",
            "P1D ",
            "",
            "P1Y2D",
            "PT1H2S",
            "-P1D",
            "P1D2T3H",
            "P1e2D",
            "P1D\n",
            "P1WT1H",
            "P0Y1W",
            "PT0,5S",
            "P-1D",
        ),
    ),
    "email": (
        (
            "joe.bloggs@example.com",
            "te~st@example.com",
            "~test@example.com",
            "test~@example.com",
            '"joe bloggs"@example.com',
            '"joe..bloggs"@example.com',
            '"joe@bloggs"@example.com',
            "joe.bloggs@[127.0.0.1]",
            "joe.bloggs@[IPv6:::1]",
            "te.s.t@example.com",
            "test@255.255.255.255",
            '""@iana.org',
            '" "@iana.org',
            "test@c--n.com",
            "test@123.com",
            '"test"@iana.org',
            '"\\a"@iana.org',
            '"\\""@iana.org',
            '"\\\\"@iana.org',
            "test@io",
            "a@[ipv6:::1]",
            "a@[IPv6:1::d6:192.168.0.1]",
            "x" * 64 + "@example.com",
            "!#$%&'*+-/=?^_`{|}~@example.com",
        ),
        (
            "2962",
            ".test@example.com",
            "test.@example.com",
            "te..st@example.com",
            "joe.bloggs@invalid=domain.com",
            "joe.bloggs@[127.0.0.300]",
            "user1@oceania.org, user2@oceania.org",
            '"Winston Smith" <winston.smith@recdep.minitrue> (Records Department)',
            "@example.com",
            "joe.bloggs@",
            "joe bloggs@example.com",
            "a\u00e9@iana.org",
            "a@\u00e9.org",
            "a\uff20iana.org",
            '"test\\\u00a9"@iana.org',
            "test@iana.org\n",
            "test@iana.org\r",
            "a@iana.org ",
            " a@iana.org",
            "a\tb@iana.org",
            "\u007f@iana.org",
            'test"@iana.org',
            '"test"test@iana.org',
            '"test@iana.org',
            "a@b@c.org",
            "test\\@test@iana.org",
            "[1.2.3.4]@iana.org",
            "",
            "test@-iana.org",
            "test@iana-.com",
            "test@.iana.org",
            "test@iana.org.",
            "test@iana..com",
            "test@[1.2.3.4",
            "a@[]",
            "a@[1.2.3]",
            "a@[1.2.3.4.5]",
            "test@[RFC-5322-domain-literal]",
            "test@a[255.255.255.255]",
            "a,b@iana.org",
            "a;b@iana.org",
            "a:b@iana.org",
            "test(comment)@iana.org",
            "a@b(c).org",
            "a@[IPv6:fe80::1%eth0]",
            "a@[IPv6:127.0.0.1]",
            "x" * 65 + "@example.com",
            '"a\nb"@example.com',
        ),
    ),
    "hostname": (
        (
            "www.example.com",
            "xn--4gbwdl.xn--wgbh1c",
            "a" * 63 + ".com",
            "hostname",
            "host-name",
            "h0stn4me",
            "1host",
            "hostnam3",
            "a",
            "c--n.com",
            ".".join(["a" * 63] * 3 + ["a" * 61]),  # 253 characters
        ),
        (
            "-a-host-name-that-starts-with--",
            "not_a_valid_host_name",
            "a-vvvvvvvvvvvvvvvveeeeeeeeeeeeeeeerrrrrrrrrrrrrrrryyyyyyyyyyyyyyyy-long-host-name-component",
            "-hostname",
            "hostname-",
            "_hostname",
            "hostname_",
            "host_name",
            "a" * 64 + ".com",
            "",
            ".",
            ".example.com",
            "example.com.",
            "example..com",
            "ex ample.com",
            "ex\u00e4mple.com",
            "example.com\n",
            ".".join(["a" * 63] * 3 + ["a" * 62]),  # 254 characters
        ),
    ),
    "ipv4": (
        ("192.168.0.1", "0.0.0.0", "255.255.255.255", "87.10.0.1", "1.2.3.4"),
        (
            "127.0.0.0.1",
            "256.256.256.256",
            "127.0",
            "0x7f000001",
            "2130706433",
            "087.10.0.1",
            "192.168.01.1",
            "1\u09e87.0.0.1",
            "192.168.1.0/24",
            "1.2.3.4 ",
            " 1.2.3.4",
            "1.2.3.4\n",
            "1..2.3",
            "",
        ),
    ),
    "ipv6": (
        (
            "::1",
            "::abef",
            "::",
            "::42:ff:1",
            "d6::",
            "1:d6::42",
            "1::d6:192.168.0.1",
            "1:2::192.168.0.1",
            "::ffff:192.168.0.1",
            "1:2:3:4:5:6:7:8",
            "1000:1000:1000:1000:1000:1000:255.255.255.255",
            "::192.168.0.1",
            "1:2:3:4:5:6::",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "FE80::0202:B3FF:FE1E:8329",
            "0000:0000:0000:0000:0000:0000:0000:0001",
        ),
        (
            "12345::",
            "::abcef",
            "1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1",
            "::laptop",
            ":2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:",
            ":2:3:4::8",
            "1::d6::42",
            "1::2:192.168.256.1",
            "1::2:192.168.ff.1",
            "1:2:3:4:5:::8",
            "1:2:3:4:5:6:7",
            "1",
            "127.0.0.1",
            "1:2:3:4:1.2.3",
            "  ::1",
            "::1  ",
            "fe80::/64",
            "fe80::a%eth1",
            "fe80::1%25eth1",
            "100:100:100:100:100:100:255.255.255.255.255",
            "100:100:100:100:100:100:100:255.255.255.255",
            "1:2:3:4:5:6:7:\u09ea",
            "1:2::192.16\u09ea.0.1",
            "::ffff:256.1.1.1",
            "::ffff:192.168.0.01",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7:8::",
            "1:2:3:4:5:6:7::1.2.3.4",
            ":::",
            ":",
            "",
            "[::1]",
            "::1\n",
        ),
    ),
    "uri": (
        (
            "http://foo.bar/?baz=qux#quux",
            "http://foo.com/blah_(wikipedia)_blah#cite-1",
            "http://foo.bar/?q=Test%20URL-encoded%20stuff",
            "http://xn--nw2a.xn--j6w193g/",
            "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
            "http://223.255.255.254",
            "ftp://ftp.is.co.za/rfc/rfc1808.txt",
            "http://www.ietf.org/rfc/rfc2396.txt",
            "ldap://[2001:db8::7]/c=GB?objectClass?one",
            "mailto:John.Doe@example.com",
            "news:comp.infosystems.www.servers.unix",
            "tel:+1-816-555-1212",
            "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
            "http://087.10.0.1/",
            "http://999.999.999.999/",
            "http://a.com:",
            "http://a.com:999999999",
            "http://:80",
            "http://@a.com",
            "http://user@",
            "http://!$&'()*+,;=.com",
            "http://example.com.",
            "http://exa~mple.com/",
            "http://under_score.com/",
            "http://[v1.fe]/p",
            "http://[::ffff:1.2.3.4]:8080/",
            "file:///etc/hosts",
            "a:",
            "urn:isbn:0451450523#",
        ),
        (
            "//foo.bar/?baz=qux#quux",
            "/abc",
            "\\\\WINDOWS\\fileshare",
            "abc",
            "http:// shouldfail.com",
            ":// should fail",
            "bar,baz:foo",
            "https://[@example.org/test.txt",
            "https://example.org/foobar\u00ae.txt",
            "https://example.org/foobar\\.txt",
            'https://example.org/foobar".txt',
            "https://example.org/foobar<>.txt",
            "https://example.org/foobar{}.txt",
            "https://example.org/foobar^.txt",
            "https://example.org/foobar`.txt",
            "https://example.org/foo bar.txt",
            "https://example.org/foobar|.txt",
            "http://example.com/%6G",
            "http://example.com/%A",
            "http://example.com/%",
            "1http://example.com",
            "ht_tp://example.com",
            "http://example.com:abc/path",
            "http://a.com:8:0",
            "http://a.com::",
            "http://[fe80::1%25eth0]/",
            "http://[::1/",
            "http://example.com/#a#b",
            "http://example.com/\n",
            "",
        ),
    ),
    "uri-reference": (
        (
            "http://foo.bar/?baz=qux#quux",
            "//foo.bar/?baz=qux#quux",
            "/abc",
            "abc",
            "#fragment",
            "http://087.10.0.1/",
            "http://999.999.999.999/",
            "",
            "?query=1",
            "//",
            "./this:that",
            "//[V1.fe]/p",
            "../a/b?c#d",
        ),
        (
            "\\\\WINDOWS\\fileshare",
            "#frag\\ment",
            "/foobar\u00ae.txt",
            "https://example.org/foobar\\.txt",
            "/%zz",
            '/a"b',
            "/[::1]",
            "//example.com:abc/p",
            "//a@b@example.com/",
            "//[::ffff:192.168.0.01]/p",
            "1:b",
            "/p\n",
            "a b",
        ),
    ),
    "uuid": (
        (
            "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
            "2eb8aa08-AA98-11ea-B4Aa-73B441D16380",
            "00000000-0000-0000-0000-000000000000",
            "98d80576-482e-427f-8434-7f86890ab222",
            "99c17cbb-656f-564a-940f-1a4568f03487",
            "99c17cbb-656f-664a-940f-1a4568f03487",
            "99c17cbb-656f-f64a-940f-1a4568f03487",
        ),
        (
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
            "2eb8aa08-aa98-11ea-73b441d16380",
            "2eb8aa08-aa98-11ea-b4ga-73b441d16380",
            "2eb8aa08aa9811eab4aa73b441d16380",
            "2eb8aa08aa98-11ea-b4aa73b441d16380",
            "2eb8-aa08-aa98-11ea-b4aa73b44-1d16380",
            "2eb8aa08aa9811eab4aa73b441d16380----",
            "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
            "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d16380\n",
            "",
        ),
    ),
    "json-pointer": (
        (
            "/foo/bar~0/baz~1/%a",
            "/foo//bar",
            "/foo/bar/",
            "",
            "/foo",
            "/foo/0",
            "/",
            "/a~1b",
            "/c%d",
            "/e^f",
            "/g|h",
            "/i\\j",
            '/k"l',
            "/ ",
            "/m~0n",
            "/foo/-",
            "/foo/-/bar",
            "/~1~0~0~1~1",
            "/~1.1",
            "/~0.1",
            "/\u00e9/\n",
        ),
        (
            "/foo/bar~",
            "#",
            "#/",
            "#a",
            "/~0~",
            "/~0/~",
            "/~2",
            "/~-1",
            "/~~",
            "a",
            "0",
            "a/a",
        ),
    ),
    "relative-json-pointer": (
        ("1", "0/foo/bar", "2/0/baz/1/zip", "0#", "120/foo/bar", "0", "10#"),
        (
            "/foo/bar",
            "-1/foo/bar",
            "+1/foo/bar",
            "0##",
            "01/a",
            "01#",
            "",
            "0/~",
            "#",
            "1a",
        ),
    ),
}

# The formats the `jsonschema` package checks with the standard library as the
# specification says (its email check only looks for an `@`).
ORACLE = ("date", "ipv4", "ipv6", "uuid")


def _cases(valid: bool) -> list[tuple[str, str]]:
    return [
        (name, value) for name, (good, bad) in CASES.items() for value in (good if valid else bad)
    ]


def test_every_checked_format_has_cases() -> None:
    assert set(CASES) == set(CHECKS)


@pytest.mark.parametrize(("name", "value"), _cases(valid=True))
def test_valid(name: str, value: str) -> None:
    assert CHECKS[name][0](value), (name, value)
    assert format_error(name, value) is None


@pytest.mark.parametrize(("name", "value"), _cases(valid=False))
def test_invalid(name: str, value: str) -> None:
    assert not CHECKS[name][0](value), (name, value)
    assert format_error(name, value) == "expected " + CHECKS[name][1]


@pytest.mark.parametrize("name", ORACLE)
def test_jsonschema_agrees(name: str) -> None:
    checker = Draft202012Validator.FORMAT_CHECKER
    good, bad = CASES[name]
    assert [v for v in good if not checker.conforms(v, name)] == []
    assert [v for v in bad if checker.conforms(v, name)] == []


def test_unknown_format_is_not_checked() -> None:
    assert format_error("uri-template", "{") is None
    assert format_error("no-such-format", "") is None


# Inputs that a backtracking pattern would take exponential or quadratic time on.
_HOSTILE = (
    "a" * 100_000,
    "a." * 50_000,
    "a-" * 50_000,
    "1" * 100_000,
    "P" + "1" * 100_000,
    "/" + "~0" * 50_000 + "~",
    "%" * 100_000,
    "a:" + "%4" * 50_000,
    "//" + "a" * 100_000 + "@",
    '"' + "\\a" * 50_000,
    "a." * 50_000 + "@",
    ":" * 100_000,
)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_linear_time(name: str) -> None:
    test = CHECKS[name][0]
    start = time.perf_counter()
    for value in _HOSTILE:
        test(value)
        test(value + "!")
    assert time.perf_counter() - start < 1.0


def test_import_is_cheap() -> None:
    """Nothing but `__future__` is imported at the top level: `re` loads on first use."""
    tree = ast.parse(Path(formats.__file__).read_text(encoding="utf-8"))
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [ast.unparse(n) for n in imports] == ["from __future__ import annotations"]


# -- the generated package: fast validators, the runtime's, the reply parser, the command --

FIXTURE = ROOT / "tests" / "cases" / "formats" / "every_format.sig"
# every_format.sig's fields and their formats (`stamp` is the `:datetime` primitive)
FIELDS = {
    "stamp": "date-time",
    "date_time": "date-time",
    "day": "date",
    "clock": "time",
    "period": "duration",
    "email": "email",
    "host": "hostname",
    "address4": "ipv4",
    "address6": "ipv6",
    "uri": "uri",
    "reference": "uri-reference",
    "id": "uuid",
    "pointer": "json-pointer",
    "relative": "relative-json-pointer",
}
VALID = {field: CASES[name][0][0] for field, name in FIELDS.items()}


def _records() -> list[tuple[dict[str, Any], str | None]]:
    """Records with one field changed, and that field's name when the record is invalid."""
    out: list[tuple[dict[str, Any], str | None]] = [(VALID, None)]
    for field, name in FIELDS.items():
        good, bad = CASES[name]
        out += [({**VALID, field: value}, None) for value in good]
        out += [({**VALID, field: value}, field) for value in bad]
    out += [({**VALID, "template": value}, None) for value in ("{", "", "http://x/{a}")]
    return out


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    modules = []
    for validators in ("fast", "compact"):
        root = tmp_path_factory.mktemp(validators)
        package = f"formats_{validators}"
        folder, _ = write_python_package(root, FIXTURE.read_text("utf-8"), package, validators)
        sys.path.insert(0, str(folder))
        modules.append(importlib.import_module(f"{package}.p"))
    yield modules[0], modules[1]
    for _ in modules:
        sys.path.pop(0)


def _outcome(validate: Callable[[Any], Any], record: dict[str, Any]) -> list[Any]:
    try:
        validate(record)
    except ValueError as exc:  # ValidationError
        return [list(e) for e in exc.errors]  # type: ignore[attr-defined]
    return []


def test_validators_and_parser_agree_on_every_format(packages: tuple[Any, Any]) -> None:
    fast, compact = packages
    failures = []
    for record, invalid in _records():
        expected = []
        if invalid is not None:
            message = CHECKS[FIELDS[invalid]][1]
            expected = [[invalid, "expected " + message]]
        text = json.dumps(record)
        try:
            parsed = fast.parse_read_record(text).value
            parse_errors: list[Any] = []
        except ValueError as exc:  # ReplyError
            parsed, parse_errors = None, [list(e) for e in getattr(exc, "errors", [])]
        got = (
            _outcome(fast.validate_read_record, record),
            _outcome(compact.validate_read_record, record),
            parse_errors,
        )
        if got != (expected, expected, expected) or (not invalid and parsed != record):
            failures.append((record, invalid, got))
    assert failures == []


def test_the_validate_command_agrees(packages: tuple[Any, Any]) -> None:
    records = _records()
    stdin = "".join(
        json.dumps({"id": i, "text": json.dumps(r)}) + "\n" for i, (r, _) in enumerate(records)
    )
    done = run_cli("validate", f"{FIXTURE}:read_record", "--jsonl", stdin=stdin)
    assert done.returncode == 1, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["ok"] for r in results] == [invalid is None for _, invalid in records]
    wrong = [
        (r["errors"], invalid)
        for r, (_, invalid) in zip(results, records, strict=True)
        if invalid is not None and [e["path"] for e in r["errors"]] != [invalid]
    ]
    assert wrong == []


def test_a_default_must_have_its_format(write_files) -> None:  # type: ignore[no-untyped-def]
    from sigspec import load

    root = write_files(
        {"main.sig": 'signature f() -> {e :string = "not an email" @format("email")}\n'}
    )
    assert [d.code for d in load([root / "main.sig"]).diagnostics] == ["invalid-default"]


# -- the models: pydantic alone, the standard types for date-time, date, time and uuid --

_MODELS = """
import json, sys
sys.modules["email_validator"] = None  # not installed: importing it fails
sys.path.insert(0, sys.argv[1])
from datetime import date, datetime, time
from uuid import UUID
from formats_fast.models.p import ReadRecordOutput as Out
types = {name: f.annotation for name, f in Out.model_fields.items()}
assert types["stamp"] is datetime and types["date_time"] is datetime, types
assert types["day"] is date and types["clock"] is time and types["id"] is UUID, types
plain = [n for n in types if n not in ("stamp", "date_time", "day", "clock", "id")]
assert all(types[n] in (str, str | None) for n in plain), types
record = json.loads(sys.argv[2])
model = Out.model_validate(record)
assert all(getattr(model, n) == record.get(n) for n in plain), model
print("ok")
"""


def test_models_import_with_pydantic_alone(packages: tuple[Any, Any]) -> None:
    folder = Path(packages[0].__file__).parents[1]
    record = {**VALID, "uri": "HTTP://Example.COM", "email": "Joe@Example.COM"}
    done = subprocess.run(
        [sys.executable, "-c", _MODELS, str(folder), json.dumps(record)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout == "ok\n", done.stderr


def test_model_documents_keep_only_the_typed_formats() -> None:
    from sigspec.emit.python.models import untyped_formats

    schema = {
        "type": "object",
        "properties": {
            "format": {"type": "string", "format": "email"},
            "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
            "ids": {"type": "array", "items": {"type": "string", "format": "uuid"}},
            "hosts": {"type": "array", "items": {"type": "string", "format": "hostname"}},
        },
        "$defs": {"U": {"type": "string", "format": "uri"}},
    }
    assert untyped_formats(schema) == {
        "type": "object",
        "properties": {
            "format": {"type": "string"},
            "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
            "ids": {"type": "array", "items": {"type": "string", "format": "uuid"}},
            "hosts": {"type": "array", "items": {"type": "string"}},
        },
        "$defs": {"U": {"type": "string"}},
    }


_TYPED = {"date-time": datetime.datetime, "date": datetime.date, "time": datetime.time}


@st.composite
def _rfc3339_like(draw: st.DrawFn, name: str) -> str:
    """Strings of the date and time formats' shape, with every field drawn over its whole
    width (year 0000, second 60, day 31 of any month), so both verdicts come up."""
    year = draw(st.sampled_from(["0000", "0001", "1900", "2000", "2024", "9999"]))
    month, day = draw(st.integers(0, 13)), draw(st.integers(0, 32))
    date = f"{year}-{month:02}-{day:02}"
    clock = ":".join(draw(st.sampled_from(["00", "23", "59", "60", "24"])) for _ in range(3))
    fraction = draw(st.sampled_from(["", ".5", ".123456789"]))
    zone = draw(st.sampled_from(["Z", "z", "+00:00", "-23:59", "+01:30", "+24:00"]))
    separator = draw(st.sampled_from(["T", "t"]))
    return {
        "date": date,
        "time": clock + fraction + zone,
        "date-time": date + separator + clock + fraction + zone,
    }[name]


@pytest.mark.parametrize("name", sorted(_TYPED))
@given(data=st.data())
def test_what_the_validators_accept_the_models_hold(name: str, data: st.DataObject) -> None:
    """A date, time or date-time the validators accept becomes the models' `datetime`,
    `date` or `time` (pydantic): a value the validator passes and the model refuses would
    send the client into retries it cannot win."""
    value = data.draw(_rfc3339_like(name))
    if not CHECKS[name][0](value):
        return
    pydantic.TypeAdapter(_TYPED[name]).validate_python(value)
