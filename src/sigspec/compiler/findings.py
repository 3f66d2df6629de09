"""What a command reports of what the stages found: the configuration's severities
(`[severity]`), then the provider losses grouped (providers chosen) or summed up (none
chosen). Pure: the commands call it on diagnostics already filtered by suppressions.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sigspec.diagnostics import Diagnostic, Severity, codes, sort_diagnostics
from sigspec.diagnostics.words import counted

if TYPE_CHECKING:
    from sigspec.semantics import ir

# The errors `[severity]` may lower to a warning or ignore: those after which every file
# written is still correct. `unused-param`: the parameter only never reaches the model.
# Breaking changes: a project's policy (as `breaking_ignore` is), not a broken output.
# Every other error guards the output (a type that does not resolve, a schema a provider
# refuses, a pattern that backtracks forever), so lowering it is refused when the
# configuration is read.
DOWNGRADABLE = frozenset({"unused-param", *codes.BREAKING})

_LEVELS = {"warn": Severity.WARNING, "error": Severity.ERROR}


def apply_severity(
    diagnostics: Iterable[Diagnostic], severity: Mapping[str, str]
) -> list[Diagnostic]:
    """Each diagnostic at its configured level; those set to "ignore" dropped."""
    if not severity:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        level = severity.get(d.code)
        if level == "ignore":
            continue
        wanted = _LEVELS.get(level or "")
        out.append(d if wanted is None or wanted is d.severity else replace(d, severity=wanted))
    return out


def judge(
    diagnostics: Iterable[Diagnostic], severity: Mapping[str, str], *, chosen: bool
) -> tuple[Diagnostic, ...]:
    """Severities applied, then the losses grouped (`chosen`: providers were chosen) or
    summed up per provider; in report order."""
    return sort_diagnostics(group_losses(apply_severity(diagnostics, severity), chosen=chosen))


def _pattern(template: str) -> re.Pattern[str]:
    """A code's message template as a pattern that reads its fields back."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name:
            parts.append(f"(?P<{name}>.*?)")
    return re.compile("".join(parts), re.DOTALL)


_LOSS = _pattern(codes.PROVIDER_LOSS.template)


def _fields(d: Diagnostic) -> dict[str, str] | None:
    """A per-field loss's provider, path and constraint; None for anything else (a line
    already grouped has no span: grouping twice changes nothing)."""
    if d.code != codes.PROVIDER_LOSS.name or d.span is None:
        return None
    found = _LOSS.fullmatch(d.message)
    return found.groupdict() if found else None


def group_losses(diagnostics: Sequence[Diagnostic], *, chosen: bool) -> list[Diagnostic]:
    """`provider-loss` warnings, one per field and constraint, as one line per declaration
    and provider (`chosen`), or one line per provider (no choice made: the user has not
    said which providers matter, so the details would be noise)."""
    groups: dict[tuple[str, str, str, Severity], list[tuple[Diagnostic, dict[str, str]]]] = {}
    out = []
    for d in diagnostics:
        fields = _fields(d)
        if fields is None:
            out.append(d)
            continue
        provider, declaration = fields["provider"], fields["where"].split(".", 1)[0]
        if chosen:
            key = (provider, d.path, declaration, d.severity)
        else:
            key = (provider, "", "", d.severity)
        groups.setdefault(key, []).append((d, fields))
    for (provider, _, declaration, severity), members in groups.items():
        if chosen:
            out.append(_grouped(provider, declaration, severity, members))
        else:
            out.append(_summed(provider, severity, members))
    return out


def _grouped(
    provider: str,
    declaration: str,
    severity: Severity,
    members: list[tuple[Diagnostic, dict[str, str]]],
) -> Diagnostic:
    by_field: dict[str, list[str]] = {}
    for _, fields in members:  # the first clause says what is lost; the rest, what is done
        inner = fields["where"].partition(".")[2]
        by_field.setdefault(inner, []).append(fields["what"].split(";", 1)[0])
    items = [f"`{k}`: {', '.join(v)}" if k else ", ".join(v) for k, v in by_field.items()]
    count = len(members)
    message = (
        f"{provider}: `{declaration}`: {counted(count, 'constraint')} the "
        "provider does not enforce as sigspec does (sigspec's validator checks them): "
        f"{'; '.join(items)}"
    )
    first = members[0][0]
    return Diagnostic(codes.PROVIDER_LOSS.name, severity, message, first.source)


def _summed(
    provider: str, severity: Severity, members: list[tuple[Diagnostic, dict[str, str]]]
) -> Diagnostic:
    count = len(members)
    places = len({(d.path, fields["where"].split(".", 1)[0]) for d, fields in members})
    message = (
        f"{provider}: {counted(count, 'constraint')} in {counted(places, 'declaration')}"
        " the provider does not enforce as sigspec "
        "does (sigspec's validator checks them); to see them for the providers you use, set "
        "`providers = [...]` in the configuration or pass `--provider`"
    )
    return Diagnostic(codes.PROVIDER_LOSS.name, severity, message)


def provider_limits(project: ir.Project, providers: Sequence[str]) -> list[Diagnostic]:
    """`provider-limit` errors of every json-mode signature and tool for these providers:
    what `compile` would refuse, found by `lint` too."""
    from sigspec.lower.fragments import Fragments  # not the views: `lint` stays light

    fragments = Fragments(project)
    found = []
    for sig in (*project.signatures, *project.tools):
        if sig.kind == "signature" and sig.mode != "json":
            continue
        for name in providers:
            diagnostics = fragments.of(sig, name).diagnostics
            found += [d for d in diagnostics if d.code == codes.PROVIDER_LIMIT.name]
    return found
