"""Module paths from file paths: identifiers, reserved names, collisions."""

from __future__ import annotations

import pytest

from sigspec.lower.names import module_collisions, module_path


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ("sentiment.sig", ("sentiment",)),
        ("billing/types.sig", ("billing", "types")),
        ("my-dir/a b.sig", ("my_dir", "a_b")),
        ("2024/q1.sig", ("_2024", "q1")),
        ("class.sig", ("class_",)),
        ("models.sig", ("models_",)),  # the package's own subpackage
        ("_runtime.sig", ("_runtime_",)),
        ("client/api.sig", ("client_", "api")),  # a folder there too
        ("sub/models.sig", ("sub", "models")),  # only the top level is the package's
        ("sub/__init__.sig", ("sub", "__init___")),  # a folder's __init__ is generated
        ("é.sig", ("_",)),
    ],
)
def test_module_path(source: str, path: tuple[str, ...]) -> None:
    assert module_path(source) == path
    assert all(part.isidentifier() and part.isascii() for part in path)


def test_collisions_name_both_files() -> None:
    found = module_collisions(["my-dir/a.sig", "my_dir/a.sig", "b.sig", "b/c.sig", "d.sig"])
    assert sorted(found) == [
        ("b.sig", "b/c.sig", "b"),
        ("my-dir/a.sig", "my_dir/a.sig", "my_dir.a"),
    ]


def test_a_client_names_each_module_alike_under_every_prefix() -> None:
    from sigspec.emit.python.imports import Aliases

    same_last = Aliases.of("support.types", ["billing.types", "common"])
    assert same_last.models == {
        "support.types": "_m_support_types",
        "billing.types": "_m_billing_types",
        "common": "_m_common",
    }
    assert same_last.clients == {"billing.types": "_c_billing_types", "common": "_c_common"}
    flat = Aliases.of("sentiment", ["agent"])
    assert flat.models == {"sentiment": "_m_sentiment", "agent": "_m_agent"}
    clash = Aliases.of("a_b.c", ["a.b.c"])  # both joined are a_b_c
    assert clash.models == {"a_b.c": "_m_a_b_c", "a.b.c": "_m_a_b_c_2"}
