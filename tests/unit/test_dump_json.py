"""The generated-file JSON writer is byte-identical to `json.dumps(indent=2)`, only faster."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sigspec.emit.base import dump_json

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_same_bytes_as_the_stdlib(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"
