"""Configuration: `[tool.sigspec]` in pyproject.toml, or sigspec.toml, found upward from the
working directory. Paths in it are relative to the file's folder. Flags override it.

    [tool.sigspec]
    sources = ["signatures"]          # files or folders; default: the config's folder
    out = "build/sigspec"             # default: "build"
    targets = ["jsonschema", "providers"]   # default: all
    providers = ["openai", "ollama"]  # the providers you send to: their fragments, losses
                                      # and limits only (`--provider` overrides it);
                                      # default: every provider, losses summed up
    import_roots = ["../shared"]      # folders outside this one that .sig files may import
                                      # from; default: none

    [tool.sigspec.options.python]
    package = "acme.signatures"       # each target's options: sigspec/emit/options.py

    [tool.sigspec.severity]           # a code's severity: "ignore", "warn" or "error"
    provider-loss = "ignore"          # (errors that guard correctness cannot be lowered)

    [tool.sigspec.test]               # `sigspec test` (docs/testing.md)
    provider = "openai"               # openai (any OpenAI-compatible endpoint), anthropic,
                                      # gemini, ollama
    model = "gpt-4o-mini"             # required to run or replay tests
    base_url = "http://127.0.0.1:8080/v1"
    api_key_env = "OPENAI_API_KEY"    # the NAME of the variable holding the key, never a key
    params = { temperature = 0, seed = 1 }   # more fields of every request body
    cassettes = "cassettes"           # the recorded exchanges, beside this file
    concurrency = 4                   # runs at once (`--jobs` overrides)

    [tool.sigspec.limits]             # each optional; the defaults are generous
    sig_file_bytes = 4194304          # the size of one .sig file
    declarations = 10000              # declarations in one .sig file
    reply_chars = 1048576             # `sigspec validate`: characters in a reply,
    depth = 128                       # how deep a value nests,
    tags = 10000                      # tags in a reply that must be searched

Every source file is a regular file below the project root (the folder of this file) or
below an import root, links resolved first: a `.sig` link to a file elsewhere (a secrets
file, /proc/self/environ), a fifo or a device is an error that quotes nothing of it. A file
under an import root is named relative to the project root (`../shared/money.sig`) in
diagnostics, the manifest and generated module names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigspec.diagnostics import Diagnostic
from sigspec.diagnostics.words import noun
from sigspec.syntax.limits import DEFAULT_LIMITS, SourceLimits


class ConfigError(ValueError):
    """A malformed configuration: reported with exit code 2."""


TEST_PROVIDERS = ("openai", "anthropic", "gemini", "ollama")


@dataclass(frozen=True)
class TestConfig:
    """`[test]`: how `sigspec test` reaches a model. `cassettes` is None until a
    configuration file places it (then `cassettes` beside that file)."""

    __test__ = False  # not a pytest test class, whatever its name says

    provider: str = "openai"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None  # the environment variable's name; never the key
    params: dict[str, Any] = field(default_factory=dict)
    cassettes: Path | None = None
    concurrency: int = 4


@dataclass(frozen=True)
class Config:
    root: Path
    path: Path | None = None
    sources: tuple[Path, ...] = ()
    out: Path | None = None
    targets: tuple[str, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    breaking_ignore: tuple[str, ...] = ()  # rule ids `sigspec breaking` does not report
    import_roots: tuple[Path, ...] = ()  # resolved folders that sources may import from
    source_limits: SourceLimits = DEFAULT_LIMITS
    # Overrides of the runtime's reply limits (`Limits` keyword arguments) for `validate`.
    reply_limits: tuple[tuple[str, int], ...] = ()
    # The providers chosen (`providers = [...]`); None: no choice made, every provider.
    providers: tuple[str, ...] | None = None
    severity: dict[str, str] = field(default_factory=dict)  # code -> "ignore" | "warn" | "error"
    # What reading the configuration found that is not fatal (a deprecated key).
    warnings: tuple[Diagnostic, ...] = ()
    test: TestConfig = field(default_factory=TestConfig)


def project_root(config: Config, paths: Sequence[Path]) -> Path:
    """The project root: the configuration file's folder, which must hold every given path;
    without one, the common folder of the given paths."""
    from sigspec.compiler.paths import common_root, located

    if config.path is None:
        return common_root(paths)
    for path in paths:  # a link is judged where it is; where it points, when it is read
        if not located(path).is_relative_to(config.root):
            raise ConfigError(
                f"{path} is outside the project root {config.root} (the folder of "
                f"{config.path.name}); give paths inside it, or run sigspec from elsewhere"
            )
    return config.root


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    for folder in (start, *start.parents):
        own = folder / "sigspec.toml"
        if own.is_file():
            return own, _read(own)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            data = _read(pyproject)
            tool = data.get("tool", {})
            if isinstance(tool, dict) and "sigspec" in tool:
                return pyproject, tool["sigspec"]
    return None


def holds_config(folder: Path) -> bool:
    """Does `folder` hold a configuration of its own: a `sigspec.toml`, or a `pyproject.toml`
    with `[tool.sigspec]`? (An unreadable `pyproject.toml` is taken for one: it may be.)"""
    if (folder / "sigspec.toml").is_file():
        return True
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return False
    try:
        tool = _read(pyproject).get("tool", {})
    except ConfigError:
        return True
    return isinstance(tool, dict) and "sigspec" in tool


def own_files(root: Path) -> tuple[Path, ...]:
    """The .sig files of the project at `root` that names no `sources`: those below it, but
    not in a folder below it that holds a configuration of its own (another project, with
    its own names and settings) nor in a hidden folder."""
    from sigspec.compiler.paths import discover

    nested: dict[Path, bool] = {}  # folder -> whether it, or a folder above it, is a project

    def other_project(folder: Path) -> bool:
        if folder == root or not folder.is_relative_to(root):
            return False
        if folder not in nested:
            nested[folder] = other_project(folder.parent) or holds_config(folder)
        return nested[folder]

    return tuple(p for p in discover([root], root) if not other_project(p.parent))


def _read(path: Path) -> dict[str, Any]:
    import tomllib  # here: without a configuration file, no run pays for the TOML reader

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc}") from exc


# The configuration's keys: top level in sigspec.toml, under [tool.sigspec] in pyproject.toml.
KEYS = frozenset(
    {
        "sources",
        "out",
        "targets",
        "providers",
        "options",
        "breaking_ignore",
        "import_roots",
        "limits",
        "severity",
        "test",
    }
)


def _unknown(thing: str, names: Sequence[str]) -> str:
    """`unknown key x`, `unknown keys x, y`."""
    return f"unknown {noun(len(names), thing)} {', '.join(names)}"


def load_config(start: Path) -> Config:
    found = find_config(start.resolve())
    if found is None:
        return Config(root=start.resolve())
    path, data = found
    where = f"{path}" + (" [tool.sigspec]" if path.name == "pyproject.toml" else "")
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = set(data) - KEYS
    if unknown == {"tool"} and path.name == "sigspec.toml":
        # The pyproject.toml form copied into sigspec.toml, which takes the keys at the top.
        raise ConfigError(
            f"{where}: sigspec.toml takes its keys at the top level: write `[test]` or"
            " `providers = [...]` there, not `[tool.sigspec...]` (that is pyproject.toml's form)"
        )
    if unknown:
        raise ConfigError(f"{where}: {_unknown('key', sorted(unknown))}")
    root = path.parent
    options = _options(data.get("options", {}), where)
    providers, warnings = _providers(data, options, path, where)
    return Config(
        root=root,
        path=path,
        sources=tuple(root / s for s in _strings(data, "sources", where)),
        out=root / _string(data["out"], "out", where) if "out" in data else None,
        targets=_targets(data, where),
        options=options,
        breaking_ignore=_breaking_ignore(data, where),
        import_roots=_import_roots(data, root, where),
        **_limits(data.get("limits", {}), where),
        providers=providers,
        severity=_severity(data.get("severity", {}), where),
        warnings=warnings,
        test=_test(data.get("test", {}), root, where),
    )


_TEST_KEYS = (
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "params",
    "cassettes",
    "concurrency",
)


def _test(data: Any, root: Path, where: str) -> TestConfig:
    """`[test]`: each key checked; the cassettes' folder resolved beside the configuration."""
    import re

    if not isinstance(data, dict):
        raise ConfigError(f"{where}: `test` must be a table")
    unknown = sorted(set(data) - set(_TEST_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: [test]: {_unknown('key', unknown)}; known: {', '.join(_TEST_KEYS)}"
        )
    provider = _string(data.get("provider", "openai"), "test.provider", where)
    if provider not in TEST_PROVIDERS:
        raise ConfigError(
            f"{where}: [test]: unknown provider `{provider}`; known: {', '.join(TEST_PROVIDERS)}"
        )
    key_env = data.get("api_key_env")
    if key_env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key_env)):
        # Never echoed: a key pasted here by mistake must not reach a log.
        raise ConfigError(
            f"{where}: [test]: `api_key_env` must be the NAME of an environment variable "
            "(letters, digits and `_`), not the key itself"
        )
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise ConfigError(f"{where}: [test]: `params` must be a table of request fields")
    concurrency = data.get("concurrency", 4)
    if type(concurrency) is not int or not 1 <= concurrency <= 256:
        raise ConfigError(f"{where}: [test]: `concurrency` must be an integer from 1 to 256")
    optional = {k: _string(data[k], f"test.{k}", where) for k in ("model", "base_url") if k in data}
    cassettes = _string(data.get("cassettes", "cassettes"), "test.cassettes", where)
    return TestConfig(
        provider=provider,
        model=optional.get("model"),
        base_url=optional.get("base_url"),
        api_key_env=key_env,
        params=dict(params),
        cassettes=root / cassettes,
        concurrency=concurrency,
    )


def _providers(
    data: dict[str, Any], options: dict[str, dict[str, Any]], path: Path, where: str
) -> tuple[tuple[str, ...] | None, tuple[Diagnostic, ...]]:
    """The chosen providers: the top-level `providers`, or the deprecated nested key
    `[options.providers] providers` (read, with a `deprecated-setting` warning, and taken
    out of the target's table: the compile step puts the choice back there)."""
    nested = options.get("providers", {}).pop("providers", None)
    if nested is not None and "providers" in data:
        raise ConfigError(
            f"{where}: `providers` and the deprecated `[options.providers] providers` are both "
            "set; keep the top-level `providers` only"
        )
    if nested is not None:
        return tuple(dict.fromkeys(nested)), (_deprecated_providers(path),)
    if "providers" not in data:
        return None, ()
    from sigspec.lower.providers import NAMES

    names = _strings(data, "providers", where)
    if not names:
        raise ConfigError(
            f"{where}: `providers` must name at least one provider ({', '.join(NAMES)}); "
            "to write no fragments, leave the `providers` target out of `targets`"
        )
    for name in names:
        if name not in NAMES:
            raise ConfigError(f"{where}: unknown provider `{name}`; known: {', '.join(NAMES)}")
    return tuple(dict.fromkeys(names)), ()


def _deprecated_providers(path: Path) -> Diagnostic:
    """The warning, pointing at the nested key's line when it can be found."""
    import re

    from sigspec.diagnostics import codes
    from sigspec.diagnostics.source import SourceFile, Span

    text = path.read_text(encoding="utf-8")
    source = SourceFile(path.name, text)
    found = re.search(
        r"^\[\s*(?:tool\.sigspec\.)?options\.providers\s*\][^\[]*?^[ \t]*(providers)\s*=",
        text,
        re.MULTILINE | re.DOTALL,
    )
    span = Span(found.start(1), found.end(1)) if found else None
    place = "in [tool.sigspec]" if path.name == "pyproject.toml" else "at the top level"
    return codes.DEPRECATED_SETTING.at(
        source,
        span,
        old="[options.providers] providers",
        new=f"`providers = [...]` {place}",
    )


SEVERITIES = ("ignore", "warn", "error")


def _severity(data: Any, where: str) -> dict[str, str]:
    """`[severity]`: code -> "ignore", "warn" or "error". An error that guards the output's
    correctness cannot be lowered (`compiler/findings.py` says which can)."""
    from sigspec.compiler.findings import DOWNGRADABLE
    from sigspec.diagnostics.codes import CODES
    from sigspec.diagnostics.suggest import did_you_mean

    if not isinstance(data, dict):
        raise ConfigError(f"{where}: `severity` must be a table of code = level")
    for code, level in data.items():
        entry = CODES.get(code)
        if entry is None:
            hint = " ".join(did_you_mean(code, CODES))
            raise ConfigError(f"{where}: [severity]: unknown code `{code}`. {hint}".strip())
        if level not in SEVERITIES:
            raise ConfigError(
                f"{where}: [severity]: `{code}` must be one of "
                f"{', '.join(map(repr, SEVERITIES))}, not {level!r}"
            )
        if level != "error" and entry.severity.value == "error" and code not in DOWNGRADABLE:
            raise ConfigError(
                f"{where}: [severity]: `{code}` is an error that guards the output's "
                f"correctness and cannot be set to {level!r}"
            )
    return dict(data)


_SOURCE_LIMITS = {"sig_file_bytes": "max_file_bytes", "declarations": "max_declarations"}
_REPLY_LIMITS = ("reply_chars", "depth", "tags")


def _limits(data: Any, where: str) -> dict[str, Any]:
    """The `[limits]` table: the front end's (a `SourceLimits`) and the reply limits `sigspec
    validate` passes to the runtime; each a positive integer."""
    from sigspec.runtime.common import MAX_DEPTH

    if not isinstance(data, dict):
        raise ConfigError(f"{where}: `limits` must be a table")
    known = (*_SOURCE_LIMITS, *_REPLY_LIMITS)
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown limit `{key}`; known: {', '.join(known)}")
        if type(value) is not int or value < 1:
            raise ConfigError(f"{where}: limit `{key}` must be a positive integer")
        if key == "depth" and value > MAX_DEPTH:  # the runtime's validators recurse per level
            raise ConfigError(f"{where}: limit `depth` can be at most {MAX_DEPTH}")
    source = {_SOURCE_LIMITS[k]: v for k, v in data.items() if k in _SOURCE_LIMITS}
    reply = tuple((k, data[k]) for k in _REPLY_LIMITS if k in data)
    return {"source_limits": SourceLimits(**source), "reply_limits": reply}


def _import_roots(data: dict[str, Any], root: Path, where: str) -> tuple[Path, ...]:
    """Each import root, resolved: it must be a folder (a typo would otherwise turn every
    import from it into an `outside-root` error far from its cause)."""
    found = []
    for name in _strings(data, "import_roots", where):
        folder = (root / name).resolve()
        if not folder.is_dir():
            raise ConfigError(f"{where}: import root `{name}` is not a folder ({folder})")
        found.append(folder)
    return tuple(found)


def _breaking_ignore(data: dict[str, Any], where: str) -> tuple[str, ...]:
    from sigspec.diagnostics.codes import BREAKING

    names = _strings(data, "breaking_ignore", where)
    unknown = sorted(set(names) - BREAKING)
    if unknown:
        raise ConfigError(
            f"{where}: {_unknown('breaking rule', unknown)}; known: {', '.join(sorted(BREAKING))}"
        )
    return tuple(names)


def _string(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: `{key}` must be a non-empty string")
    return value


def _strings(data: dict[str, Any], key: str, where: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def _targets(data: dict[str, Any], where: str) -> tuple[str, ...]:
    from sigspec.emit.registry import NAMES

    names = _strings(data, "targets", where)
    for name in names:
        if name not in NAMES:
            raise ConfigError(f"{where}: unknown target `{name}`; known: {', '.join(NAMES)}")
    return tuple(names)


def _options(data: Any, where: str) -> dict[str, dict[str, Any]]:
    """Each target's table, checked against its options (`emit/options.py`)."""
    from sigspec.emit.options import OptionsError, parse_options
    from sigspec.emit.registry import TARGETS

    if not isinstance(data, dict):
        raise ConfigError(f"{where}: `options` must be a table of per-target tables")
    out: dict[str, dict[str, Any]] = {}
    for name, options in data.items():
        target = TARGETS.get(name)
        if target is None or not isinstance(options, dict):
            known = ", ".join(TARGETS)
            raise ConfigError(f"{where}: `options.{name}` is not a target's option table ({known})")
        try:
            parse_options(target, options)
        except OptionsError as exc:
            raise ConfigError(f"{where}: bad option in `options.{name}`: {exc}") from None
        out[name] = dict(options)
    return out
