"""compiler/findings.py: severities, and provider losses grouped or summed up."""

from __future__ import annotations

import string

from sigspec.compiler.findings import DOWNGRADABLE, apply_severity, group_losses, judge
from sigspec.diagnostics import Diagnostic, Severity, codes
from sigspec.diagnostics.source import SourceFile, Span

SOURCE = SourceFile("a.sig", "signature f() -> {a :int, b :string}\n" * 3)


def _loss(provider: str, where: str, what: str, start: int = 0) -> Diagnostic:
    return codes.PROVIDER_LOSS.at(
        SOURCE, Span(start, start + 5), provider=provider, where=where, what=what
    )


LOSSES = [
    _loss("anthropic", "f.a", "`minimum: 0` is not enforced; moved to the description", 18),
    _loss("anthropic", "f.a", "`maximum: 9` is not enforced; moved to the description", 18),
    _loss("anthropic", "f.b", '`pattern: "x"` is not enforced; moved to the description', 26),
    _loss("ollama", "f.a", "`minimum: 0` applies to integers only here", 18),
    _loss("anthropic", "Money.amount", "`minimum: 0` is not enforced", 40),
]


def test_the_loss_template_holds_the_fields_grouping_reads() -> None:
    names = {name for _, name, _, _ in string.Formatter().parse(codes.PROVIDER_LOSS.template)}
    assert {"provider", "where", "what"} <= names


def test_chosen_providers_get_one_line_per_declaration_and_provider() -> None:
    grouped = group_losses(LOSSES, chosen=True)
    messages = sorted(d.message for d in grouped)
    assert messages == [
        "anthropic: `Money`: 1 constraint the provider does not enforce as sigspec does "
        "(sigspec's validator checks them): `amount`: `minimum: 0` is not enforced",
        "anthropic: `f`: 3 constraints the provider does not enforce as sigspec does "
        "(sigspec's validator checks them): `a`: `minimum: 0` is not enforced, `maximum: 9` "
        'is not enforced; `b`: `pattern: "x"` is not enforced',
        "ollama: `f`: 1 constraint the provider does not enforce as sigspec does (sigspec's "
        "validator checks them): `a`: `minimum: 0` applies to integers only here",
    ]
    assert all(d.path == "a.sig" and d.span is None for d in grouped)
    assert group_losses(grouped, chosen=True) == grouped  # grouping twice changes nothing


def test_no_choice_sums_up_per_provider() -> None:
    summed = sorted(group_losses(LOSSES, chosen=False), key=lambda d: d.message)
    assert [d.message.split(";")[0] for d in summed] == [
        "anthropic: 4 constraints in 2 declarations the provider does not enforce as sigspec "
        "does (sigspec's validator checks them)",
        "ollama: 1 constraint in 1 declaration the provider does not enforce as sigspec does "
        "(sigspec's validator checks them)",
    ]
    assert all(d.source is None for d in summed)
    assert "set `providers = [...]` in the configuration or pass `--provider`" in summed[0].message


def test_other_diagnostics_pass_through() -> None:
    other = codes.UNUSED_PARAM.at(SOURCE, Span(0, 1), name="x", signature="f")
    assert group_losses([other], chosen=False) == [other]


def test_severity_overrides() -> None:
    other = codes.UNUSED_PARAM.at(SOURCE, Span(0, 1), name="x", signature="f")
    lowered = apply_severity([other, *LOSSES], {"unused-param": "warn", "provider-loss": "ignore"})
    assert [(d.code, d.severity) for d in lowered] == [("unused-param", Severity.WARNING)]
    raised = judge(LOSSES, {"provider-loss": "error"}, chosen=True)
    assert {d.severity for d in raised} == {Severity.ERROR} and len(raised) == 3


def test_only_output_safe_errors_can_be_lowered() -> None:
    assert "unused-param" in DOWNGRADABLE and "removed-param" in DOWNGRADABLE
    for code in ("unknown-type", "provider-limit", "slow-pattern", "syntax-error"):
        assert code not in DOWNGRADABLE
    assert all(codes.CODES[c].severity is Severity.ERROR for c in DOWNGRADABLE)
