"""sigspec's version: the one place it is written (the build reads it from here too)."""

from __future__ import annotations

VERSION = "0.13.0"

# The labels of `[project.urls]` (normalized as PEP 753 does) that name where to read about
# sigspec, in order of preference.
_HOME_LABELS = ("homepage", "documentation", "source")


def home_page() -> str | None:
    """Where to read about sigspec, as the installed package's metadata says
    (`[project.urls]` in pyproject.toml): None while it names no such page, or when sigspec
    runs from a source tree that was never installed. Nothing here invents an address."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        meta = metadata("sigspec")
    except PackageNotFoundError:
        return None
    urls: dict[str, str] = {}
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        key = "".join(ch for ch in label.lower() if ch.isalnum())
        urls.setdefault(key, url.strip())
    found = [urls[label] for label in _HOME_LABELS if urls.get(label)]
    legacy = [url for url in meta.get_all("Home-page") or [] if url.strip()]
    return (found or legacy or [None])[0]
