"""The content hash of generated files and inputs, as the manifest records it."""

from __future__ import annotations

import hashlib


def digest(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return "sha256:" + hashlib.sha256(data).hexdigest()
