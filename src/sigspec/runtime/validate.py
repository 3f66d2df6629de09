# Validation of JSON values against sigspec type descriptors: the meaning of a valid
# value.
#
# A descriptor is a tuple whose first item names its kind, built by the classes below so
# that a generated module reads as the type it checks:
#   Str() Keyword() Int() Float() Bool() DateTime() Object() AnyValue()
#   List(ITEM)  Nullable(INNER)  Const(VALUE)  Enum((VALUES...))  Union((MEMBERS...))
#   Ref(NAME)   Map((FIELD...), open=False)
#   Field(NAME, TYPE, required=True, default=..., fallback=False, minimum=...,
#         clamp=(LO, HI), ...)
# The validator and the reply parser read them by position, as the plain tuples they are
# (the form the TypeScript runtime reads as JSON):
#   ("str",) ("keyword",) ("int",) ("float",) ("bool",) ("datetime",) ("object",)
#   ("any",)
#   ("list", ITEM)                     ("opt", INNER)          ("lit", VALUE)
#   ("enum", (VALUES...))              ("union", (MEMBERS...)) ("ref", NAME)
#   ("map", (FIELD...), OPEN)          FIELD = (NAME, FOLDED, TYPE, REQUIRED,
#                                               HAS_DEFAULT, DEFAULT, FALLBACK,
#                                               CONSTRAINTS)
#   CONSTRAINTS = ((KEYWORD, VALUE), ...) with JSON Schema keywords, plus
#                 ("clamp", (LO, HI)).
# Strict mode is `validate_NAME`; lenient mode adds the reply policy's coercions, each
# one recorded as a repair. Nothing here executes anything taken from a descriptor or a
# value.
#
# Messages (errors, repairs, the reply parser's notes) read the same in the TypeScript
# runtime (runtime.ts), which writes them with JavaScript's own formatting: a value
# quoted in a message is in JSON notation (`shown` in common.py), strings as JSON string
# literals that keep non-ASCII (`"café"`, `"say \"hi\""`), true, false and null, maps
# and lists by their kind (`map`, `list`). Numbers are written as JavaScript writes them
# (`number_text`), since JavaScript has one number type and Python two: the reply's
# `1.0` is the float 1.0 here and shows as `1`, as in Node; exponents only below 1e-6
# and from 1e21 on (`1e-7`, `0.00001`, `10000000000000000`, `1e+21`); NaN, Infinity and
# -Infinity, which JSON cannot write, spelled so. Whether a number is an int or a float
# still decides what is valid and is named where it matters (`expected int, got float`),
# never by the way the number is written. Patterns and keys are strings, quoted the same
# way. No message uses `repr`.
from __future__ import annotations

# json, re, typing, dataclasses and datetime stay out of the import (imported where
# first needed): a generated module must import in a few milliseconds, and `re` alone
# costs five. The reply parser (runtime/reply.py, the generated `_reply.py`) loads on
# the first parse.
from .common import (
    LIMITS,
    Limits,
    ParseResult,
    ReplyError,
    depth_message,
    kind_of,
    number_literal,
    shown,
    too_deep,
)
from .ecma import compiled as ecma_pattern
from .formats import (
    CHECKS,
    format_error,
    is_date,
    is_datetime,
    is_duration,
    is_email,
    is_hostname,
    is_ipv4,
    is_ipv6,
    is_json_pointer,
    is_relative_json_pointer,
    is_time,
    is_uri,
    is_uri_reference,
    is_uuid,
)

# mypy treats a variable named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any, ClassVar

    Descriptor = tuple[Any, ...]
    Types = dict[str, Descriptor]
    Issue = tuple[str, str]  # (path, message)


# ---- descriptors ---- Each class is its tuple, so that the validator and the reply
# parser index it as the plain tuple it equals (`Str() == ("str",)`); `arguments` gives
# back what the constructor took.


class _Node(tuple["Any", ...]):
    __slots__ = ()

    def arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The constructor's arguments: positional, then keyword ones not at their
        default."""
        return tuple(self[1:]), {}

    def __repr__(self) -> str:
        args, kwargs = self.arguments()
        shown = [*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]
        return f"{type(self).__name__}({', '.join(shown)})"

    # pickle and copy: the tuple as it is, not through `__new__`
    def __reduce__(self) -> tuple[Any, ...]:
        return (_remade, (type(self), tuple(self)))


def _remade(cls: type[_Node], items: tuple[Any, ...]) -> _Node:
    return super(_Node, cls).__new__(cls, items)


class Str(_Node):
    """A string."""

    __slots__ = ()

    def __new__(cls) -> Str:
        return super().__new__(cls, ("str",))


class Keyword(_Node):
    """A `:keyword`: a string."""

    __slots__ = ()

    def __new__(cls) -> Keyword:
        return super().__new__(cls, ("keyword",))


class Int(_Node):
    """An integer (not a bool, not a float)."""

    __slots__ = ()

    def __new__(cls) -> Int:
        return super().__new__(cls, ("int",))


class Float(_Node):
    """A finite number, int or float."""

    __slots__ = ()

    def __new__(cls) -> Float:
        return super().__new__(cls, ("float",))


class Bool(_Node):
    """true or false."""

    __slots__ = ()

    def __new__(cls) -> Bool:
        return super().__new__(cls, ("bool",))


class DateTime(_Node):
    """An RFC 3339 date-time string with an offset."""

    __slots__ = ()

    def __new__(cls) -> DateTime:
        return super().__new__(cls, ("datetime",))


class Object(_Node):
    """A `:map`: any JSON object (no NaN or infinity inside)."""

    __slots__ = ()

    def __new__(cls) -> Object:
        return super().__new__(cls, ("object",))


class AnyValue(_Node):
    """An `:any`: any JSON value (no NaN or infinity inside)."""

    __slots__ = ()

    def __new__(cls) -> AnyValue:
        return super().__new__(cls, ("any",))


class List(_Node):
    """A list of `item`."""

    __slots__ = ()

    def __new__(cls, item: Descriptor) -> List:
        return super().__new__(cls, ("list", item))


class Nullable(_Node):
    """`inner` or null."""

    __slots__ = ()

    def __new__(cls, inner: Descriptor) -> Nullable:
        return super().__new__(cls, ("opt", inner))


class Const(_Node):
    """Exactly `value` (a string, number, bool or null), of its own type."""

    __slots__ = ()

    def __new__(cls, value: Any) -> Const:
        return super().__new__(cls, ("lit", value))


class Enum(_Node):
    """One of these strings."""

    __slots__ = ()

    def __new__(cls, values: tuple[str, ...]) -> Enum:
        return super().__new__(cls, ("enum", values))


class Union(_Node):
    """The first of `members` the value fits, exactly before with coercion."""

    __slots__ = ()

    def __new__(cls, members: tuple[Descriptor, ...]) -> Union:
        return super().__new__(cls, ("union", members))


class Ref(_Node):
    """The named type `name` (looked up in the module's types)."""

    __slots__ = ()

    def __new__(cls, name: str) -> Ref:
        return super().__new__(cls, ("ref", name))


class Map(_Node):
    """A map of these fields; `open`: other keys are kept (any JSON value), else
    refused."""

    __slots__ = ()

    def __new__(cls, fields: tuple[Field, ...], *, open: bool = False) -> Map:
        return super().__new__(cls, ("map", fields, open))

    def arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self[1],), ({"open": True} if self[2] else {})


_ABSENT: Any = object()  # no default
# Field's constraint keywords -> the runtime's (JSON Schema's) keywords, in the order
# checked.
_CONSTRAINTS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_items": "minItems",
    "max_items": "maxItems",
    "pattern": "pattern",
    "format": "format",
    "clamp": "clamp",
}


class Field(_Node):
    """A map's field: its key, its type, whether it must be present, its default (filled
    in when absent; with `fallback`, also in place of an invalid value) and its
    constraints."""

    __slots__ = ()

    def __new__(
        cls,
        name: str,
        type: Descriptor,
        *,
        required: bool = True,
        default: Any = _ABSENT,
        fallback: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        min_items: int | None = None,
        max_items: int | None = None,
        pattern: str | None = None,
        format: str | None = None,
        clamp: tuple[float, float] | None = None,
    ) -> Field:
        given = {
            "minimum": minimum,
            "maximum": maximum,
            "minLength": min_length,
            "maxLength": max_length,
            "minItems": min_items,
            "maxItems": max_items,
            "pattern": pattern,
            "format": format,
            "clamp": clamp,
        }
        constraints = tuple((k, v) for k, v in given.items() if v is not None)
        has_default = default is not _ABSENT
        return super().__new__(
            cls,
            (
                name,
                name.replace("-", "_"),
                type,
                required,
                has_default,
                default if has_default else None,
                fallback,
                constraints,
            ),
        )

    def arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        name, _folded, type_, required, has_default, default, fallback, constraints = (
            self
        )
        kwargs: dict[str, Any] = {}
        if not required:
            kwargs["required"] = False
        if has_default:
            kwargs["default"] = default
        if fallback:
            kwargs["fallback"] = True
        keywords = {v: k for k, v in _CONSTRAINTS.items()}
        for keyword, bound in constraints:
            kwargs[keywords[keyword]] = bound
        return (name, type_), kwargs


class ValidationError(ValueError):
    """The value does not fit the type; `.errors` lists every problem as (path,
    message).

    Made as `ValidationError(errors)`, or by a generated validator, which stops at the
    first failed check, as `ValidationError(descriptor, value, types)`: the runtime's
    validator then names every error when `.errors` is first read. So an invalid value
    costs a caller that only needs a yes or no (the reply parser, a filter) no more than
    the exception itself; the errors describe the value as it is when they are read. No
    `__init__`, and a message formatted only when shown, for the same reason."""

    @property
    def errors(self) -> list[Issue]:
        found: list[Issue] | None = self.__dict__.get("_found")
        if found is not None:
            return found
        args = self.args
        made: list[Issue] = (
            args[0] if len(args) == 1 else check(args[0], args[1], args[2])[1]
        )
        self.__dict__["_found"] = made
        return made

    def __str__(self) -> str:
        errors = self.errors
        shown = "; ".join(f"{p}: {m}" for p, m in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        return shown + more

    def __repr__(self) -> str:  # the errors, not a generated validator's descriptor
        return f"{type(self).__name__}({self.errors!r})"


_INVALID = object()
# ASCII digits only: json.loads rejects other digits, and `\d` alone would let them
# through.
_JSON_NUMBER = r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\Z"
_COMPILED: dict[str, Any] = {}  # the pattern above, compiled on first use (ASCII)


def _ascii_pattern(source: str) -> Any:
    compiled = _COMPILED.get(source)
    if compiled is None:
        import re

        compiled = _COMPILED[source] = re.compile(source, re.ASCII)
    return compiled


_NAMES = {
    "str": "string",
    "keyword": "string",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "datetime": "date-time string",
    "object": "map",
    "list": "list",
}


def _copy(value: Any) -> Any:
    """A fresh copy of a JSON default (lists and maps are never shared between
    results)."""
    t = value.__class__  # not type(value): type checkers would not know its type
    if t is dict:
        return {k: _copy(v) for k, v in value.items()}
    if t is list:
        return [_copy(v) for v in value]
    return value


def all_finite(v: Any) -> bool:
    """No NaN or infinity anywhere in `v` (a float's v - v is 0.0 only when it is
    finite)."""
    t = v.__class__
    if t is float:
        return bool(v - v == 0.0)
    if t is dict:
        return all(map(all_finite, v.values()))
    if t is list:
        return all(map(all_finite, v))
    return True


def _non_finite(v: Any, path: str) -> Iterator[tuple[str, float]]:
    """Where `v` holds NaN or an infinity, and which: looked for only once one is
    known."""
    t = v.__class__
    if t is float and v - v != 0.0:
        yield path, v
    elif t is dict:
        for key, item in v.items():
            yield from _non_finite(item, _at(path, key))
    elif t is list:
        for index, item in enumerate(v):
            yield from _non_finite(item, _at(path, index))


# List items of these kinds whose types are these are valid as they are, in either mode
# (no coercion applies to them): such a list is checked at C speed, without a path per
# item.
_PLAIN_ITEMS = {
    "str": frozenset({str}),
    "keyword": frozenset({str}),
    "int": frozenset({int}),
    "bool": frozenset({bool}),
    "float": frozenset({int, float}),
}


def _plain(kind: str, items: list[Any]) -> bool:
    """Every item of the kind, found without a Python step per item. Floats must be
    finite too: their sum is finite only if every one is (an overflowing sum, or a huge
    int, takes the item-by-item way, which decides exactly)."""
    types = {*map(type, items)}
    if not types <= _PLAIN_ITEMS[kind]:
        return False
    if kind != "float" or float not in types:
        return True
    try:
        total = sum(items)
    except OverflowError:
        return False
    return bool(total - total == 0.0)


def _key_groups(v: dict[str, Any]) -> dict[str, list[str]] | None:
    """The map's keys by their folded form (`-` read as `_`); two keys in one group are
    an ambiguity. None when no key has a `-` (most maps): then every key is its own
    group, and the caller looks keys up in the map itself instead of building a list for
    each."""
    if not any("-" in key for key in v):
        return None
    groups: dict[str, list[str]] = {}
    for key in v:
        groups.setdefault(key.replace("-", "_"), []).append(key)
    return groups


def _at(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def _where(path: str) -> str:
    return path or "root"


class Checker:
    """One validation run: the errors and repairs it found, and whether it may
    coerce."""

    def __init__(
        self, types: Types, *, lenient: bool, depth: int = LIMITS.depth
    ) -> None:
        self.types = types
        self.lenient = lenient
        self.depth = depth  # how deep a JSON document held in a string may nest
        self.errors: list[Issue] = []
        self.repairs: list[Issue] = []

    def fail(self, path: str, message: str) -> object:
        self.errors.append((_where(path), message))
        return _INVALID

    def repair(self, path: str, message: str) -> None:
        self.repairs.append((path or "root", message))  # _where, inlined: a hot path

    def check(self, d: Descriptor, v: Any, path: str) -> Any:
        tag = d[0]
        if tag == "opt":
            return None if v is None else self.check(d[1], v, path)
        if tag == "ref":
            return self.check(self.types[d[1]], v, path)
        return _DISPATCH[tag](self, d, v, path)

    # ---- scalars ----

    def _str(self, d: Descriptor, v: Any, path: str) -> Any:
        return (
            v
            if type(v) is str
            else self.fail(path, f"expected string, got {kind_of(v)}")
        )

    _keyword = _str

    def _datetime(self, d: Descriptor, v: Any, path: str) -> Any:
        if type(v) is not str:
            return self.fail(path, f"expected date-time string, got {kind_of(v)}")
        if not is_datetime(v):
            return self.fail(path, "expected " + CHECKS["date-time"][1])
        return v

    def _int(self, d: Descriptor, v: Any, path: str) -> Any:
        if type(v) is int:
            return v
        if self.lenient:
            coerced = self._number_text(v, path, want_int=True)
            if coerced is not _INVALID:
                return coerced
            if type(v) is float and v.is_integer():
                self.repair(path, f"coerced {shown(v)} to an integer")
                return int(v)
        return self.fail(path, f"expected int, got {kind_of(v)}")

    def _float(self, d: Descriptor, v: Any, path: str) -> Any:
        t = v.__class__
        # v - v: NaN for NaN and the infinities
        if t is int or (t is float and v - v == 0.0):
            return v
        if t is float:  # no JSON number, and NaN would pass every @min and @max
            return self.fail(path, f"expected a finite number, got {shown(v)}")
        if self.lenient:
            coerced = self._number_text(v, path, want_int=False)
            if coerced is not _INVALID:
                return coerced
        return self.fail(path, f"expected float, got {kind_of(v)}")

    def _number_text(self, v: Any, path: str, *, want_int: bool) -> Any:
        """Reply policy: a string that is exactly a JSON number literal."""
        if type(v) is not str or not _ascii_pattern(_JSON_NUMBER).match(v):
            return _INVALID
        try:
            number = number_literal(v)
        except ValueError:  # an integer longer than int() accepts (so does json.loads)
            return _INVALID
        if number is None:
            return _INVALID
        if want_int and isinstance(number, float):
            if not number.is_integer():
                return _INVALID
            number = int(number)
        self.repair(path, f"coerced string {shown(v)} to a number")
        return number

    def _bool(self, d: Descriptor, v: Any, path: str) -> Any:
        if type(v) is bool:
            return v
        if self.lenient and v in ("true", "false") and type(v) is str:
            self.repair(path, f"coerced string {shown(v)} to a boolean")
            return v == "true"
        return self.fail(path, f"expected bool, got {kind_of(v)}")

    def _any(self, d: Descriptor, v: Any, path: str) -> Any:
        return self._free(v, path)

    def _object(self, d: Descriptor, v: Any, path: str) -> Any:
        if type(v) is dict:
            return self._free(v, path)
        decoded = self._decoded(v, dict, path)
        return (
            self._free(decoded, path)
            if decoded is not _INVALID
            else self.fail(path, f"expected map, got {kind_of(v)}")
        )

    def _free(self, v: Any, path: str) -> Any:
        """A value no type describes (`:any`, `:map`, an open map's extra field): any
        JSON value, and NaN and the infinities are none (a reply's 1e999 decodes to
        infinity)."""
        if all_finite(v):
            return v
        for where, number in _non_finite(v, path):
            self.fail(where, f"expected a finite number, got {shown(number)}")
        return _INVALID

    def _lit(self, d: Descriptor, v: Any, path: str) -> Any:
        if type(v) is type(d[1]) and v == d[1]:
            return v
        expected, got = shown(d[1]), _short(v)
        # the float 2.0 and the int 2 are both written 2: kinds tell them apart
        if expected == got:
            expected, got = f"{kind_of(d[1])} {expected}", f"{kind_of(v)} {got}"
        return self.fail(path, f"expected {expected}, got {got}")

    def _enum(self, d: Descriptor, v: Any, path: str) -> Any:
        values = d[1]
        if type(v) is str and v in values:
            return v
        if self.lenient and type(v) is str:
            folded = v.casefold()
            matches = [m for m in values if m.casefold() == folded]
            if len(matches) == 1:
                self.repair(
                    path, f"matched {shown(v)} to enum value {shown(matches[0])}"
                )
                return matches[0]
        listed = ", ".join(map(shown, values))
        return self.fail(path, f"expected one of {listed}, got {_short(v)}")

    def _union(self, d: Descriptor, v: Any, path: str) -> Any:
        modes = (False, True) if self.lenient else (False,)
        # a member that fits exactly beats one that needs coercion
        for lenient in modes:
            for member in d[1]:
                trial = Checker(self.types, lenient=lenient, depth=self.depth)
                result = trial.check(member, v, path)
                if result is not _INVALID and not trial.errors:
                    self.repairs += trial.repairs
                    return result
        got = _short(v)
        # written as a member is (2.0 and 2): kinds tell them apart
        if got in map(shown, self._literals(d[1])):
            got = f"{kind_of(v)} {got}"
        return self.fail(path, f"{got} matches none of the union's members")

    def _literals(self, members: Sequence[Descriptor]) -> Iterator[Any]:
        """The values of the union's literal members, named or not."""
        for member in members:
            resolved = member
            while resolved[0] == "ref":
                resolved = self.types[resolved[1]]
            if resolved[0] == "lit":
                yield resolved[1]

    # ---- containers ----

    def _decoded(self, v: Any, want: type, path: str) -> Any:
        """Reply policy: a JSON string whose content is JSON of the wanted type."""
        if not self.lenient or type(v) is not str:
            return _INVALID
        from .reply import finite_json

        try:
            decoded = finite_json(v)
        except (ValueError, RecursionError):
            return _INVALID
        # The decoded document nests on its own: checked against the limit before the
        # checks below recurse into it.
        if type(decoded) is not want or too_deep(decoded, self.depth):
            return _INVALID
        self.repair(path, "decoded a JSON document held in a string")
        return decoded

    def _list(self, d: Descriptor, v: Any, path: str) -> Any:
        if list is not type(v):  # so written, type checkers keep `v` as it is (Any)
            decoded = self._decoded(v, list, path)
            if decoded is _INVALID:
                return self.fail(path, f"expected list, got {kind_of(v)}")
            v = decoded
        item = d[1]
        if item[0] in _PLAIN_ITEMS and _plain(item[0], v):  # no path, no call per item
            return list(v)
        out: list[Any] = []
        ok = True
        for index, element in enumerate(v):
            result = self.check(item, element, _at(path, index))
            ok = ok and result is not _INVALID
            out.append(result)
        return out if ok else _INVALID

    def _map(self, d: Descriptor, v: Any, path: str) -> Any:
        if dict is not type(v):
            decoded = self._decoded(v, dict, path)
            if decoded is _INVALID:
                return self.fail(path, f"expected map, got {kind_of(v)}")
            v = decoded
        groups = _key_groups(v)
        out: dict[str, Any] = {}
        ok = True
        if groups is None:
            found = 0
            for field in d[1]:
                keys = (field[1],) if field[1] in v else None
                found += keys is not None
                ok = self._field(field, v, keys, out, path) and ok
            extras = []
            if found < len(v):
                declared = {field[1] for field in d[1]}
                extras = [key for key in v if key not in declared]
        else:
            for field in d[1]:
                ok = self._field(field, v, groups.pop(field[1], None), out, path) and ok
            extras = [key for keys in groups.values() for key in keys]
        if extras and not d[2]:
            for key in extras:
                self.fail(_at(path, key), "unexpected field (the map is closed)")
            return _INVALID
        for key in extras:
            out[key] = self._free(v[key], _at(path, key))
            ok = out[key] is not _INVALID and ok
        return out if ok else _INVALID

    def _field(
        self,
        field: Descriptor,
        v: dict[str, Any],
        keys: Sequence[str] | None,
        out: dict[str, Any],
        path: str,
    ) -> bool:
        name, _folded, type_, required, has_default, default, fallback, constraints = (
            field
        )
        where = f"{path}.{name}" if path else name  # _at, inlined: once per field
        if keys is None:
            if has_default:
                out[name] = _copy(default)
            elif required:
                self.fail(where, "missing required field")
                return False
            return True
        if len(keys) > 1:
            self.fail(where, "ambiguous field aliases: " + ", ".join(sorted(keys)))
            return False
        before = len(self.errors)
        result = self.check(type_, v[keys[0]], where)
        if constraints and result is not _INVALID and v[keys[0]] is not None:
            result = self._constrain(result, constraints, where)
        if result is _INVALID:
            if fallback and has_default:
                del self.errors[before:]
                self.repair(where, "invalid value replaced by the default (@fallback)")
                out[name] = _copy(default)
                return True
            return False
        out[name] = result
        return True

    def _constrain(self, value: Any, constraints: tuple[Any, ...], path: str) -> Any:
        ok = True
        for keyword, bound in constraints:
            if keyword == "clamp" and type(value) in (int, float):
                low, high = bound
                if value < low or value > high:
                    clamped = min(max(value, low), high)
                    self.repair(
                        path, f"clamped {shown(value)} to {shown(clamped)} (@clamp)"
                    )
                    value = clamped
                continue
            message = _scalar_constraint(keyword, bound, value)
            if message is not None:
                ok = False
                self.fail(path, message)
        return value if ok else _INVALID

    # An explicit table, not getattr: a descriptor can only ever reach these methods.
    DISPATCH: ClassVar[dict[str, Any]] = {
        "str": _str,
        "keyword": _keyword,
        "datetime": _datetime,
        "int": _int,
        "float": _float,
        "bool": _bool,
        "any": _any,
        "object": _object,
        "lit": _lit,
        "enum": _enum,
        "union": _union,
        "list": _list,
        "map": _map,
    }


_DISPATCH = Checker.DISPATCH


def _short(value: Any) -> str:
    """A value the reply gave, as messages show it (`shown`), cut at 40 characters."""
    text = shown(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _counted(count: int, thing: str) -> str:
    """`1 character`, `2 characters`."""
    return f"{count} {thing}" + ("" if count == 1 else "s")


def _scalar_constraint(keyword: str, bound: Any, value: Any) -> str | None:
    number = type(value) in (int, float)
    if keyword == "minimum" and number and value < bound:
        return f"{shown(value)} is less than the minimum {shown(bound)}"
    if keyword == "maximum" and number and value > bound:
        return f"{shown(value)} is greater than the maximum {shown(bound)}"
    text = type(value) is str
    if keyword == "minLength" and text and len(value) < bound:
        return f"shorter than {_counted(bound, 'character')}"
    if keyword == "maxLength" and text and len(value) > bound:
        return f"longer than {_counted(bound, 'character')}"
    items = list is type(value)
    if keyword == "minItems" and items and len(value) < bound:
        return f"fewer than {_counted(bound, 'item')}"
    if keyword == "maxItems" and items and len(value) > bound:
        return f"more than {_counted(bound, 'item')}"
    if keyword == "pattern" and text:
        try:
            found = ecma_pattern(bound).search(value)
        except (ValueError, RecursionError, OverflowError):
            return f"the pattern {shown(bound)} is not a portable regular expression"
        if found is None:
            return f"does not match the pattern {shown(bound)}"
    if keyword == "format" and text:
        problem = format_error(bound, value)
        if problem is not None:
            return problem
    return None


def check(
    descriptor: Descriptor,
    value: Any,
    types: Types,
    *,
    lenient: bool = False,
    limits: Limits | None = None,
) -> tuple[Any, list[Issue], list[Issue]]:
    """(normalised value, errors, repairs); the value is meaningful only without errors.
    A value nested deeper than `limits.depth` is one error, found before any check
    recurses."""
    depth = (limits or LIMITS).depth
    if too_deep(value, depth):
        return _INVALID, [("root", depth_message(depth))], []
    checker = Checker(types, lenient=lenient, depth=depth)
    result = checker.check(descriptor, value, "")
    if result is _INVALID and not checker.errors:
        checker.fail("", "invalid value")
    return result, checker.errors, checker.repairs


def validate(
    descriptor: Descriptor, value: Any, types: Types, limits: Limits | None = None
) -> Any:
    """Strict validation: the normalised value, or ValidationError listing every
    error."""
    result, errors, _ = check(descriptor, value, types, limits=limits)
    if errors:
        # Generated validators call this from inside an `except KeyError:`; the errors
        # are the value's own, not a consequence of that lookup.
        raise ValidationError(errors) from None
    return result


def partial(
    descriptor: Descriptor,
    value: Any,
    types: Types,
    growing: str | None = None,
    memo: dict[Any, Any] | None = None,
) -> Any:
    """A stream's partial answer (`PartialReader.value`) as far as it is valid: of a map,
    each member whose value is valid for its field, normalised (the member `growing`, a
    string still being read, kept as it is when its field is a string); of a list, its
    valid items up to the first invalid one; of anything else, None (it shows once
    complete, as the final answer). `memo` keeps what was checked between calls, by the
    identity of the complete values the reader never changes."""
    memo = {} if memo is None else memo
    d = _resolved(descriptor, types)
    if d[0] == "map" and dict is type(value):
        fields = {f[0]: f for f in d[1]}
        out: dict[str, Any] = {}
        members: dict[str, Any] = value
        for key, member in members.items():
            field = fields.get(key)
            if field is None:
                continue
            if key == growing:
                if _resolved(field[2], types)[0] in ("str", "keyword"):
                    out[key] = member
                continue
            checked = _partial_field(field, member, types, memo)
            if checked is not _INVALID:
                out[key] = checked
        return out
    if d[0] == "list" and list is type(value):
        items: list[Any] = value
        return _partial_items(d[1], items, types, memo, "")
    return None


def _resolved(d: Descriptor, types: Types) -> Descriptor:
    """`d` with references and nullability looked through."""
    for _ in range(len(types) + 2):
        if d[0] == "ref":
            d = types[d[1]]
        elif d[0] == "opt":
            d = d[1]
        else:
            break
    return d


def _partial_field(field: Any, value: Any, types: Types, memo: dict[Any, Any]) -> Any:
    key = (field[0], id(value))
    if key in memo and memo[key][0] is value:
        return memo[key][1]
    kind = _resolved(field[2], types)
    if list is type(value) and kind[0] == "list":  # a list still filling
        given: list[Any] = value
        items = _partial_items(kind[1], given, types, memo, field[0])
        return items if len(items) == len(given) or items else _INVALID
    result, errors, _ = check(Map((field,)), {field[0]: value}, types, lenient=True)
    checked: Any = _INVALID if errors else result[field[0]]
    memo[key] = (value, checked)
    return checked


def _partial_items(
    item: Descriptor, items: list[Any], types: Types, memo: dict[Any, Any], at: str
) -> list[Any]:
    out: list[Any] = []
    for value in items:
        key = (at, "[]", id(value))
        if key in memo and memo[key][0] is value:
            checked = memo[key][1]
        else:
            result, errors, _ = check(item, value, types, lenient=True)
            checked = _INVALID if errors else result
            memo[key] = (value, checked)
        if checked is _INVALID:
            break
        out.append(checked)
    return out


class Slow(Exception):
    """Raised by `_punt`, the reply parser's stand-in for the runtime's validator: where
    a generated validator would hand a value to the runtime, the parser checks it
    itself."""


_PARSER: list[Any] = []  # runtime/reply.py's parse_reply and whole_json, once loaded


def parse_reply(
    text: str,
    descriptor: Descriptor,
    types: Types,
    check: Any,
    limits: Limits | None = None,
) -> ParseResult:
    """runtime/reply.py's `parse_reply`: that module (json, re, its patterns) loads on
    the first parse, so that importing a generated module stays cheap. Kept once loaded:
    an `import` statement run on every call would cost a third of parsing a short
    reply."""
    parse = (_PARSER or _load_parser())[0]
    return parse(text, descriptor, types, check, limits)  # type: ignore[no-any-return]


def _load_parser() -> list[Any]:
    from .reply import NOT_JSON, parse_reply, whole_json

    # One slice assignment, not `extend`: threads parsing their first replies at once may
    # each load it, and must leave three items, not three per thread.
    _PARSER[:] = (parse_reply, whole_json, NOT_JSON)
    return _PARSER


def parse_checked(
    text: str,
    descriptor: Descriptor,
    types: Types,
    validate_name: Any,
    limits: Limits | None = None,
) -> ParseResult:
    """`parse_NAME` of a generated module: a reply that is strict JSON and passes the
    generated `validate_NAME`'s own checks as it stands is the answer at once (the
    search would come to it first too); anything else goes to the reply parser, with
    those checks tried first (`checker`)."""
    if limits is None and text.__class__ is str and len(text) <= LIMITS.reply_chars:
        _, whole_json, not_json = _PARSER or _load_parser()
        value = whole_json(text)
        if value is not not_json:
            try:
                return ParseResult(validate_name(value, _punt))
            except (Slow, ValidationError):
                pass  # the runtime's to decide, or lenient mode may coerce it
    return parse_reply(text, descriptor, types, checker(validate_name), limits)


def _punt(descriptor: Descriptor, value: Any, types: Types) -> Any:
    raise Slow


def checker(validate_name: Any) -> Any:
    """A `check` for `parse_reply` that tries a generated `validate_NAME`'s own checks
    first (told to raise `Slow` where it would call the runtime). Limits other than the
    defaults go straight to the runtime: the generated checks hold the defaults."""

    def run(
        descriptor: Descriptor,
        value: Any,
        types: Types,
        *,
        lenient: bool = False,
        limits: Limits | None = None,
    ) -> tuple[Any, list[Issue], list[Issue]]:
        if limits is None or limits == LIMITS:
            try:  # plainly valid: no coercion could apply, in either mode
                return validate_name(value, _punt), [], []
            except (Slow, ValidationError):
                pass  # lenient mode may coerce what strict mode rejects
        return check(descriptor, value, types, lenient=lenient, limits=limits)

    return run


class Validator:
    """`validate_NAME` in a compact module (the python option `validators = "compact"`):
    the runtime's validator bound to one descriptor, in place of generated checks."""

    __slots__ = ("_descriptor", "_types")

    def __init__(self, descriptor: Descriptor, types: Types) -> None:
        self._descriptor = descriptor
        self._types = types

    def __call__(self, value: Any, limits: Limits | None = None) -> Any:
        return validate(self._descriptor, value, self._types, limits)


class Parser:
    """`parse_NAME` in a compact module: the reply parser with the runtime's
    validator."""

    __slots__ = ("_descriptor", "_types")

    def __init__(self, descriptor: Descriptor, types: Types) -> None:
        self._descriptor = descriptor
        self._types = types

    def __call__(self, text: str, limits: Limits | None = None) -> ParseResult:
        return parse_reply(text, self._descriptor, self._types, check, limits)


__all__ = [
    "LIMITS",
    "AnyValue",
    "Bool",
    "Const",
    "DateTime",
    "Enum",
    "Field",
    "Float",
    "Int",
    "Keyword",
    "Limits",
    "List",
    "Map",
    "Nullable",
    "Object",
    "ParseResult",
    "Parser",
    "Ref",
    "ReplyError",
    "Str",
    "Union",
    "ValidationError",
    "Validator",
    "all_finite",
    "check",
    "checker",
    "format_error",
    "is_date",
    "is_datetime",
    "is_duration",
    "is_email",
    "is_hostname",
    "is_ipv4",
    "is_ipv6",
    "is_json_pointer",
    "is_relative_json_pointer",
    "is_time",
    "is_uri",
    "is_uri_reference",
    "is_uuid",
    "kind_of",
    "number_literal",
    "parse_checked",
    "parse_reply",
    "too_deep",
    "validate",
]
