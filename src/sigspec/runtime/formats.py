# The string formats of JSON Schema 2020-12 that a valid value is checked against, with
# the standard library only, each exactly as the specification defines it:
#   date-time, date, time  RFC 3339 section 5.6: `T` and `Z` in either case, a real
#                          calendar day, an offset; years 0001-9999 and seconds 00-59,
#                          as Python's datetime (the models' type) holds no year 0 and
#                          no leap second
#   duration               RFC 3339 appendix A (ABNF: designators in either case)
#   email                  RFC 5321 Mailbox: a dot-string or quoted local part, then a
#                          domain or an IPv4 / `IPv6:` address literal; ASCII only
#   hostname               RFC 1123: letters, digits, inner hyphens; labels of 1-63
#   ipv4, ipv6             dotted quads without leading zeros; RFC 4291, no zone ids
#   uri, uri-reference     RFC 3986 URI and URI-reference
#   uuid                   RFC 4122 text form, any version
#   json-pointer           RFC 6901
#   relative-json-pointer  draft-handrews-relative-json-pointer-01
# `CHECKS` maps each to its test; `sigspec lint` warns of a format it does not hold
# (`unchecked-format`), which a value then need not follow.
#
# Patterns are linear: no nested quantifiers that could match the same text two ways,
# no possessive quantifiers or atomic groups (Python 3.10 has neither). `re` stays out
# of the import: a generated module must import in a few milliseconds.
from __future__ import annotations

# mypy treats a variable named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Fields in range by the pattern alone; the day of the month (past 28) and the year 0000
# are then checked in code, only when they occur.
_TIME = (
    r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
_DATE = r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_DUR_TIME = r"T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
_DUR_DATE = r"(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)"
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
# RFC 5321 Quoted-string: printable ASCII but `"` and `\`, which come as quoted pairs.
_QUOTED = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_PCT = r"%[0-9A-Fa-f]{2}"
# RFC 3986 unreserved and sub-delims, as the body of a character class
_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_POINTER = r"(?:/(?:[^~/]|~[01])*)*"

# name: (source, case-insensitive); compiled on first use, ASCII only (`\d` would let
# other digits through).
_SOURCES = {
    "date": (_DATE, False),
    "time": (_TIME, False),
    "date-time": (_DATE + "[Tt]" + _TIME, False),
    "duration": (rf"P(?:{_DUR_DATE}(?:{_DUR_TIME})?|{_DUR_TIME}|[0-9]+W)", True),
    "local": (rf"(?:{_ATEXT}+(?:\.{_ATEXT}+)*|{_QUOTED})@(.*)", False),
    "hostname": (rf"{_LABEL}(?:\.{_LABEL})*", False),
    "ipv4": (rf"{_OCTET}(?:\.{_OCTET}){{3}}", False),
    "uuid": (r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}", False),
    "scheme": (r"[A-Za-z][A-Za-z0-9+.\-]*:", False),
    "userinfo": (rf"(?:[{_SUB}:]|{_PCT})*", False),
    "reg-name": (rf"(?:[{_SUB}]|{_PCT})*", False),
    "ipvfuture": (rf"v[0-9A-Fa-f]+\.[{_SUB}:]+", True),
    "port": (r"[0-9]*", False),
    "path": (rf"(?:[{_SUB}:@/]|{_PCT})*", False),
    "query": (rf"(?:[{_SUB}:@/?]|{_PCT})*", False),
    "json-pointer": (_POINTER, False),
    "relative-json-pointer": (rf"(?:0|[1-9][0-9]*)(?:#|{_POINTER})", False),
}
_COMPILED: dict[str, Any] = {}


def _pattern(name: str) -> Any:
    compiled = _COMPILED.get(name)
    if compiled is None:
        import re

        source, folded = _SOURCES[name]
        flags = re.ASCII | re.DOTALL | (re.IGNORECASE if folded else 0)
        compiled = _COMPILED[name] = re.compile(source, flags)
    return compiled


def _whole(name: str, value: str) -> bool:
    return _pattern(name).fullmatch(value) is not None


def _day_ok(year: str, month: str, day: str) -> bool:
    """A year from 0001 whose month has the day (past the 28th, which every month has)."""
    if year == "0000":
        return False
    if day <= "28":
        return True
    if month == "02":
        y = int(year)
        return day == "29" and y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return day <= "30" or month in ("01", "03", "05", "07", "08", "10", "12")


def is_date(value: str) -> bool:
    """RFC 3339 full-date: YYYY-MM-DD, a day the month has."""
    found = _pattern("date").fullmatch(value)
    return found is not None and _day_ok(*found.groups())


def is_time(value: str) -> bool:
    """RFC 3339 full-time: hh:mm:ss, an optional fraction and a required offset."""
    return _whole("time", value)


def is_datetime(value: str) -> bool:
    """RFC 3339 date-time: a full-date, `T` (or `t`), a full-time."""
    found = _pattern("date-time").fullmatch(value)
    return found is not None and _day_ok(*found.groups())


def is_duration(value: str) -> bool:
    """RFC 3339 appendix A duration: `P1Y2M3DT4H5M6S`, `PT36H`, `P2W`, ..."""
    return _whole("duration", value)


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens,
    each of 1-63 characters, 253 characters in all."""
    return len(value) <= 253 and _whole("hostname", value)


def is_ipv4(value: str) -> bool:
    """A dotted quad of decimal octets 0-255, without leading zeros."""
    return _whole("ipv4", value)


_HEX = frozenset("0123456789abcdefABCDEF")


def is_ipv6(value: str) -> bool:
    """RFC 4291 section 2.2: eight groups of 1-4 hex digits, one `::` for a run of zero
    groups, the last two groups possibly written as an IPv4 address; no zone id."""
    if len(value) > 45:  # ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255
        return False
    text, size = value, 8
    if "." in value:
        head, colon, tail = value.rpartition(":")
        if not colon or not is_ipv4(tail):
            return False
        text, size = (head + ":" if head.endswith(":") else head), 6
    halves = text.split("::")
    if len(halves) > 2:
        return False
    if len(halves) == 2:
        groups = [g for half in halves if half for g in half.split(":")]
        if len(groups) >= size:
            return False
    else:
        groups = text.split(":")
        if len(groups) != size:
            return False
    return all(0 < len(g) <= 4 and _HEX.issuperset(g) for g in groups)


def is_email(value: str) -> bool:
    """RFC 5321 Mailbox: Local-part `@` (Domain / address-literal); a local part of at
    most 64 characters, a domain of at most 255."""
    found = _pattern("local").fullmatch(value)
    if found is None:
        return False
    domain: str = found.group(1)
    if len(value) - len(domain) - 1 > 64 or len(domain) > 255:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        if literal[:5].lower() == "ipv6:":
            return is_ipv6(literal[5:])
        return is_ipv4(literal)
    return is_hostname(domain)


def _authority(text: str) -> bool:
    userinfo, at, host = text.rpartition("@")
    if at and not _whole("userinfo", userinfo):
        return False
    if host.startswith("["):
        literal, bracket, port = host[1:].partition("]")
        if not bracket or not (is_ipv6(literal) or _whole("ipvfuture", literal)):
            return False
        if port:
            return port[0] == ":" and _whole("port", port[1:])
        return True
    name, _, port = host.partition(":")
    return _whole("reg-name", name) and _whole("port", port)


def _uri(value: str, absolute: bool) -> bool:
    rest, hash_, fragment = value.partition("#")
    if hash_ and not _whole("query", fragment):
        return False
    rest, mark, query = rest.partition("?")
    if mark and not _whole("query", query):
        return False
    scheme = _pattern("scheme").match(rest)
    if scheme is not None:
        rest = rest[scheme.end() :]
    elif absolute or ":" in rest.partition("/")[0]:
        return False  # a relative path's first segment has no colon (path-noscheme)
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if not _authority(authority):
            return False
        rest = slash + path
    return _whole("path", rest)


def is_uri(value: str) -> bool:
    """RFC 3986 URI: a scheme, then hier-part, query and fragment; ASCII only."""
    return _uri(value, absolute=True)


def is_uri_reference(value: str) -> bool:
    """RFC 3986 URI-reference: a URI or a relative one (`//h/p`, `/p`, `p`, `#f`)."""
    return _uri(value, absolute=False)


def is_uuid(value: str) -> bool:
    """RFC 4122 text form: 8-4-4-4-12 hex digits, either case, any version."""
    return _whole("uuid", value)


def is_json_pointer(value: str) -> bool:
    """RFC 6901: empty, or `/`-prefixed reference tokens, `~` only as `~0` or `~1`."""
    return _whole("json-pointer", value)


def is_relative_json_pointer(value: str) -> bool:
    """A non-negative integer without leading zeros, then `#` or a JSON pointer."""
    return _whole("relative-json-pointer", value)


# format: (its test, what an error message says was expected)
CHECKS: dict[str, tuple[Callable[[str], bool], str]] = {
    "date-time": (
        is_datetime,
        "an RFC 3339 date-time with an offset (year 0001 or later, no leap second)",
    ),
    "date": (is_date, "an RFC 3339 date (year 0001 or later)"),
    "time": (is_time, "an RFC 3339 time with an offset (no leap second)"),
    "duration": (is_duration, "an RFC 3339 duration"),
    "email": (is_email, "an email address"),
    "hostname": (is_hostname, "a host name"),
    "ipv4": (is_ipv4, "an IPv4 address"),
    "ipv6": (is_ipv6, "an IPv6 address"),
    "uri": (is_uri, "an absolute URI"),
    "uri-reference": (is_uri_reference, "a URI reference"),
    "uuid": (is_uuid, "a UUID"),
    "json-pointer": (is_json_pointer, "a JSON pointer"),
    "relative-json-pointer": (is_relative_json_pointer, "a relative JSON pointer"),
}


def format_error(name: str, value: str) -> str | None:
    """The message for a string that does not have the format, None when it does (or the
    format is not one of `CHECKS`)."""
    entry = CHECKS.get(name)
    if entry is None or entry[0](value):
        return None
    return "expected " + entry[1]
