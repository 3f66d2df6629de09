"""The language server's navigation latency. In process (what a request costs once its
texts are frozen): loading a project's view and index (a first request, or one after an
edit), then hover, definition and references on a loaded one (every later request). Then
the same requests over stdio to `sigspec lsp`, as round trips of pygls's client.

Projects: `bench/corpus/` (5 signatures), `examples/` (6 files), and the generated project
of `lint_scale.py` (100 files, 1,000 signatures). `python bench/lsp_navigate.py`
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate

from sigspec.commands.lsp import hover, navigate
from sigspec.commands.lsp.symbols import Reference
from sigspec.commands.lsp.views import Loaded, Views
from sigspec.lower.views import Lowered

HERE = Path(__file__).resolve().parent


def _median_ms(run: Callable[[], object], times: int = 7) -> float:
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        spent.append(time.perf_counter() - start)
    return statistics.median(spent) * 1000


def _measure(label: str, root: Path, document: Path) -> None:
    views = Views()
    path, workspace = document.resolve(), root.resolve()
    text = path.read_text("utf-8")
    # The index is computed on first use (completion does without): a navigation request's
    # load includes it.
    cold = _median_ms(lambda: Views().get(path, {}, workspace).index, times=5)
    # An edit: the buffer differs each time, so each request loads the project again.
    edits = iter(range(1000))
    edited = _median_ms(
        lambda: views.get(path, {path: text + f"\n# {next(edits)}\n"}, workspace).index
    )
    loaded: Loaded = views.get(path, {}, workspace)
    name = loaded.path_name(path) or ""
    index = loaded.index
    reference = next((s for s in index.sites[name] if isinstance(s, Reference)), None)
    offset = reference.span.start if reference is not None else index.top_level(name)[0].span.start

    def request(answer: Callable[[Loaded], object]) -> Callable[[], object]:
        return lambda: answer(views.get(path, {}, workspace))

    project = loaded.view.project
    sig_offset = next(d.span.start for d in index.top_level(name) if d.kind == "signature")
    sig = project.signatures[0]
    lowering = _median_ms(lambda: Lowered(project).output_schema(sig), times=5)
    results = {
        "load (first request)": cold,
        "load after an edit": edited,
        "hover on a signature": _median_ms(
            request(lambda lo: hover.hover(lo.index, project, lo.schema, name, sig_offset))
        ),
        "lowering (once per load, by a hover)": lowering,
        "definition": _median_ms(request(lambda lo: navigate.definition(lo.index, name, offset))),
        "references": _median_ms(
            request(lambda lo: navigate.references(lo.index, name, offset, declaration=True))
        ),
    }
    files = len(loaded.view.files)
    sigs = len(project.signatures)
    print(f"\n{label}: {files} files, {sigs} signatures")
    for what, ms in results.items():
        print(f"  {what:34} {ms:8.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        shutil.copy(HERE / "corpus" / "corpus.sig", corpus / "corpus.sig")
        _measure("bench/corpus", corpus, corpus / "corpus.sig")
        _measure("examples", HERE.parent / "examples", HERE.parent / "examples" / "sentiment.sig")
        scale = Path(tmp) / "scale"
        paths = generate(scale, files=100, per_file=10)
        _measure("generated (lint_scale.py)", scale, paths[50])
        for label, root, document, needle in [
            (
                "examples",
                HERE.parent / "examples",
                HERE.parent / "examples" / "sentiment.sig",
                "Sentiment ",
            ),
            ("generated (lint_scale.py)", scale, paths[50], "Label "),
        ]:
            found = asyncio.run(_over_stdio(root.resolve(), document.resolve(), needle))
            print(f"\n{label}, over stdio (`sigspec lsp`, pygls's client), round trips:")
            for what, ms in found.items():
                print(f"  {what:34} {ms:8.1f} ms")


async def _over_stdio(root: Path, document: Path, needle: str) -> dict[str, float]:
    """The same requests sent by pygls's client to `sigspec lsp` over stdio: round trips,
    the first one loading the project."""
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        pass  # the checks' findings: not measured here

    await client.start_io(sys.executable, "-m", "sigspec", "lsp")
    await client.initialize_async(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri())
    )
    client.initialized(lsp.InitializedParams())
    text = document.read_text("utf-8")
    uri = document.as_uri()
    item = lsp.TextDocumentItem(uri=uri, language_id="sigspec", version=1, text=text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
    at = text.index(needle)
    line = text.count("\n", 0, at)
    where = lsp.Position(line, at - text.rfind("\n", 0, at) - 1)
    document_id = lsp.TextDocumentIdentifier(uri)
    spent: dict[str, list[float]] = {}

    async def timed(what: str, request: Callable[[], Awaitable[object]]) -> None:
        start = time.perf_counter()
        await request()
        spent.setdefault(what, []).append(time.perf_counter() - start)

    await timed(
        "first request (loads)",
        lambda: client.text_document_hover_async(lsp.HoverParams(document_id, where)),
    )
    for _ in range(7):
        await timed(
            "hover", lambda: client.text_document_hover_async(lsp.HoverParams(document_id, where))
        )
        await timed(
            "definition",
            lambda: client.text_document_definition_async(lsp.DefinitionParams(document_id, where)),
        )
        await timed(
            "references",
            lambda: client.text_document_references_async(
                lsp.ReferenceParams(
                    context=lsp.ReferenceContext(include_declaration=True),
                    text_document=document_id,
                    position=where,
                )
            ),
        )
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    return {what: statistics.median(times) * 1000 for what, times in spent.items()}


if __name__ == "__main__":
    main()
