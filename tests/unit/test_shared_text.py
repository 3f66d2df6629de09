"""Client modules store prompt paragraphs they repeat once: each template's expression gives
back exactly its text, whatever the text holds, and is made only of names and literals."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from sigspec.emit.python.texts import SharedText, paragraphs

# Texts built from a few long paragraphs and awkward breaks, so that pieces repeat.
PARTS = st.sampled_from(
    [
        "Answer in JSON of this form:\n{\n  label: string\n}",
        "Return ONLY a single fenced JSON code block, with 'quotes' and \"quotes\" and \\.",
        "{{#errors}}\n- {{path}}: {{message}}\n{{/errors}} and some more text to be long",
        "short",
        "",
        "\n",
        "\n\n",
        "\n\n\n",
        "\u2028 unicode \x00 and NUL, long enough to count as a paragraph of its own",
    ]
)
TEXT = st.lists(PARTS, max_size=8).map("".join)


def evaluate(expression: str, constants: list[str]) -> str:
    """The expression's value, read with `ast` alone: names, string literals and `+`."""
    names = {}
    for line in constants:
        name, _, literal = line.partition(" = ")
        names[name] = ast.literal_eval(literal)

    def value(node: ast.expr) -> str:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return value(node.left) + value(node.right)
        if isinstance(node, ast.Name):
            return names[node.id]
        assert isinstance(node, ast.Constant) and isinstance(node.value, str)
        return node.value

    return value(ast.parse(expression, mode="eval").body)


@given(TEXT)
def test_paragraphs_join_back(text: str) -> None:
    assert "".join(paragraphs(text)) == text


@given(st.lists(TEXT, min_size=1, max_size=6))
def test_every_template_comes_back(texts: list[str]) -> None:
    shared = SharedText(texts)
    constants = shared.constants()
    for text in texts:
        assert evaluate(shared.expression(text), constants) == text
    assert shared.expression(None) == "None"


def test_a_repeated_paragraph_is_stored_once() -> None:
    shape = "Answer in JSON of this form:\n{\n  label: string // the label\n}"
    user, retry = f"Do {{{{text}}}}\n\n{shape}\n\nNo prose.\n", f"Wrong.\n\n{shape}\n"
    shared = SharedText([user, retry])
    assert shared.constants() == [f"_TEXT_1 = {shape!r}"]
    assert shared.expression(retry) == "'Wrong.\\n\\n' + _TEXT_1 + '\\n'"
    assert SharedText([user]).constants() == []  # once is not worth a name
