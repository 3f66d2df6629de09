"""Configuration: `[tool.sigspec]` in pyproject.toml, or sigspec.toml, found upward from the
working directory. Paths in it are relative to the file's folder. Flags override it.

    [tool.sigspec]
    sources = ["signatures"]          # files or folders; default: the config's folder
    out = "build/sigspec"             # default: "build"
    targets = ["jsonschema", "providers"]   # default: all

    [tool.sigspec.options.providers]
    providers = ["openai", "anthropic"]     # default: all five
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigspec.emit.targets import PROVIDER_NAMES


class ConfigError(ValueError):
    """A malformed configuration: reported with exit code 2."""


# target -> option -> (check, description)
TARGET_OPTIONS: dict[str, dict[str, tuple[Any, str]]] = {
    "jsonschema": {},
    "providers": {"providers": (list, "a list of provider names")},
    "prompts": {},
    "python": {
        "package": (str, "a Python package name"),
        "validators": (str, '"fast" or "compact"'),
    },
    "manifest": {},
}


@dataclass(frozen=True)
class Config:
    root: Path
    path: Path | None = None
    sources: tuple[Path, ...] = ()
    out: Path | None = None
    targets: tuple[str, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    breaking_ignore: tuple[str, ...] = ()  # rule ids `sigspec breaking` does not report


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


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc}") from exc


def load_config(start: Path) -> Config:
    found = find_config(start.resolve())
    if found is None:
        return Config(root=start.resolve())
    path, data = found
    where = f"{path}" + (" [tool.sigspec]" if path.name == "pyproject.toml" else "")
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = set(data) - {"sources", "out", "targets", "options", "breaking_ignore"}
    if unknown:
        raise ConfigError(f"{where}: unknown key(s): {', '.join(sorted(unknown))}")
    root = path.parent
    return Config(
        root=root,
        path=path,
        sources=tuple(root / s for s in _strings(data, "sources", where)),
        out=root / _string(data["out"], "out", where) if "out" in data else None,
        targets=_targets(data, where),
        options=_options(data.get("options", {}), where),
        breaking_ignore=_breaking_ignore(data, where),
    )


def _breaking_ignore(data: dict[str, Any], where: str) -> tuple[str, ...]:
    from sigspec.diagnostics.codes import BREAKING

    names = _strings(data, "breaking_ignore", where)
    unknown = sorted(set(names) - BREAKING)
    if unknown:
        raise ConfigError(
            f"{where}: unknown breaking rule(s) {', '.join(unknown)}; known: "
            f"{', '.join(sorted(BREAKING))}"
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
    names = _strings(data, "targets", where)
    for name in names:
        if name not in TARGET_OPTIONS:
            raise ConfigError(
                f"{where}: unknown target `{name}`; known: {', '.join(TARGET_OPTIONS)}"
            )
    return tuple(names)


def _options(data: Any, where: str) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: `options` must be a table of per-target tables")
    out: dict[str, dict[str, Any]] = {}
    for target, options in data.items():
        known = TARGET_OPTIONS.get(target)
        if known is None or not isinstance(options, dict):
            raise ConfigError(f"{where}: `options.{target}` is not a target's option table")
        for key, value in options.items():
            if key not in known or not isinstance(value, known[key][0]):
                expected = f"; `{key}` takes {known[key][1]}" if key in known else ""
                raise ConfigError(f"{where}: bad option `options.{target}.{key}`{expected}")
        out[target] = dict(options)
    layout = out.get("python", {}).get("validators", "fast")
    if layout not in ("fast", "compact"):
        raise ConfigError(
            f'{where}: `options.python.validators` must be "fast" or "compact", not {layout!r}'
        )
    bad = [p for p in out.get("providers", {}).get("providers", []) if p not in PROVIDER_NAMES]
    if bad:
        raise ConfigError(
            f"{where}: unknown provider(s) {', '.join(map(str, bad))}; "
            f"known: {', '.join(PROVIDER_NAMES)}"
        )
    return out
