"""The reference Mustache renderer, and `literal()`: static text never becomes a tag."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sigspec.lower.prompts.escape import comment, literal
from sigspec.runtime.mustache import render


def test_variables_sections_and_standalone_lines() -> None:
    template = (
        "{{! header }}\nHi {{name}}.\n{{#items}}\n- {{n}}\n{{/items}}\n"
        "{{^items}}\nnone\n{{/items}}\n{{a.b}} {{{raw}}} {{&amp}} {{flag}} {{obj}} {{missing}}|"
    )
    values = {
        "name": "Ann",
        "items": [{"n": 1}, {"n": "two"}],
        "a": {"b": 3},
        "raw": "<&>",
        "amp": '"',
        "flag": True,
        "obj": {"k": [1]},
    }
    assert render(template, values) == 'Hi Ann.\n- 1\n- two\n3 <&> " true {"k": [1]} |'
    assert render(template, {**values, "items": []}).startswith("Hi Ann.\nnone\n")


def test_scalar_lists_and_conditions() -> None:
    assert render("{{#tags}}{{.}}, {{/tags}}", {"tags": ["a", "b"]}) == "a, b, "
    assert render("{{#on}}yes{{/on}}{{^on}}no{{/on}}", {"on": False}) == "no"
    assert render("{{#user}}{{name}}{{/user}}", {"user": {"name": "Bo"}}) == "Bo"


def test_values_are_never_parsed_as_templates() -> None:
    assert render("{{x}}", {"x": "{{y}}", "y": "leak"}) == "{{y}}"


def test_comments_cannot_be_closed_early() -> None:
    assert render(comment("a }} b") + "\nok", {}) == "ok"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("{}<>%[]()|:ab \n=!#^/&.")))
def test_literal_renders_to_itself(text: str) -> None:
    assert render(literal(text), {"a": "VAR", "b": "VAR"}) == text
