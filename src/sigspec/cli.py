"""The `sigspec` command: parse arguments, call the library, render, set the exit code.

Exit codes: 0 clean, 1 findings (errors, formatting needed), 2 usage or configuration error.
Heavy modules are imported inside commands so that `sigspec lint` starts fast.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sigspec.diagnostics import Diagnostic

# The formats of diagnostics/render/__init__.py (a test holds the two to one list): the
# renderers stay out of the import of the command line.
FORMATS = ("text", "json", "github", "sarif")


FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="How to print diagnostics.",
)


class _Registered(click.Choice[str]):
    """A choice among a registry's names, read when first needed (to check a value given, or
    for `--help`): a command that is not given the option never imports the registry, which
    keeps it out of `sigspec lint`'s start-up."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        # No super().__init__: it would read the names now. `choices` is set on first use.
        self._names = names
        self.case_sensitive = True

    def __getattr__(self, name: str) -> Any:
        if name != "choices":
            raise AttributeError(name)
        self.choices = tuple(self._names())
        return self.choices


def _target_names() -> Sequence[str]:
    from sigspec.emit.registry import NAMES

    return NAMES


def _provider_names() -> Sequence[str]:
    from sigspec.lower.providers import NAMES

    return NAMES


PROVIDER_OPTION = click.option(
    "--provider",
    "providers",
    multiple=True,
    type=_Registered(_provider_names),
    help="A provider you send to; repeat for several (default: `providers` in the config, "
    "else all). `compile` and `schema` report what it cannot enforce; `lint` checks its "
    "limits.",
)
QUIET_OPTION = click.option(
    "-q", "--quiet", is_flag=True, help="Print errors only: no warnings, no summary lines."
)
OUTPUT_OPTION = click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the diagnostics (in --format) to this file instead of printing them "
    "(default: text to standard error, the other formats to standard output).",
)


class _CompileCommand(click.Command):
    """`compile --help` ends with the targets and their options, read from the registry
    when the help is shown."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.epilog = _targets_help()
        super().format_epilog(ctx, formatter)


def _use_color(err: bool = False) -> bool:
    stream = sys.stderr if err else sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR")


def _emit(
    diagnostics: Sequence[Diagnostic],
    fmt: str = "text",
    *,
    quiet: bool = False,
    output: Path | None = None,
    root: Path | None = None,
) -> None:
    """Text diagnostics are for people: standard error, beside the data a command prints.
    A report in a machine format (json, sarif, github) is data: standard output, or the
    file `output`. `quiet` keeps the errors only. `root` is the folder the paths are
    relative to, when known (a SARIF log names files from its repository's root)."""
    from sigspec.diagnostics.render import renderer

    if quiet:
        diagnostics = [d for d in diagnostics if d.is_error]

    def render(color: bool) -> str:
        if fmt == "sarif":
            from sigspec.diagnostics.render import sarif

            return sarif.render(diagnostics, color, root)
        return renderer(fmt)(diagnostics, color)

    if output is not None:
        try:
            output.write_text(render(False), encoding="utf-8")
        except OSError as exc:
            raise click.FileError(str(output), exc.strerror or str(exc)) from None
        return
    err = fmt == "text"
    text = render(err and _use_color(err))
    if text:
        click.echo(text, nl=False, err=err)


def _say(quiet: bool) -> Callable[[str], None]:
    """Summary lines (standard error), unless `quiet`."""
    return (lambda _: None) if quiet else (lambda text: click.echo(text, err=True))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sigspec")
def main() -> None:
    """sigspec: a compiler for LLM function signatures.

    Write what an LLM call takes and returns in .sig files; sigspec checks them and compiles
    them to JSON Schema, provider request fragments, prompts, and Python and TypeScript
    clients that validate and repair the replies. The configuration is sigspec.toml, or
    [tool.sigspec] in pyproject.toml, found from the working directory upward.

    Exit codes: 0 clean, 1 findings, 2 usage or configuration error. `sigspec COMMAND
    --help` tells more.
    """
    # A run allocates objects (AST, IR, schemas) that nearly all live to its end: collecting
    # them in small generations frees nothing and cost 10-20% of a large compile (mypy raises
    # the threshold for the same reason).
    gc.set_threshold(100_000, 20, 20)


@main.command(short_help="Check .sig files for errors and providers' limits.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@FORMAT_OPTION
@OUTPUT_OPTION
@PROVIDER_OPTION
@QUIET_OPTION
@click.option(
    "--project",
    is_flag=True,
    help="Check the whole project of each given file (the nearest configuration above it: "
    "its `sources`, else its folder; without one, the working directory), so that a change "
    "that breaks a file importing it, or a name clash with another file, is found. Files "
    "of several projects are checked each with its own; paths then start at the working "
    "directory.",
)
@click.option(
    "--warnings",
    type=click.Choice(("show", "summary")),
    default="show",
    show_default=True,
    help="`summary`: report the errors only, and count the warnings on standard error "
    "(what the pre-commit hook does, so that warnings never bury an error).",
)
def lint(
    *,
    paths: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    providers: tuple[str, ...],
    quiet: bool,
    project: bool,
    warnings: str,
) -> None:
    """Check .sig files (and the files they import) for errors, and the chosen providers'
    limits.

    PATHS are .sig files or folders (searched for .sig files; default: the working
    directory). Exit 0: no errors (warnings alone: 0); 1: errors; 2: usage or configuration.
    """
    from sigspec.commands import lint as command

    sys.exit(
        command.run(
            paths,
            lambda diags, root: _emit(diags, fmt, quiet=quiet, output=output, root=root),
            summary=(fmt == "text" or warnings == "summary") and not quiet,
            providers=tuple(dict.fromkeys(providers)),
            project=project,
            warnings=warnings,
        )
    )


@main.command(short_help="Format .sig files in the canonical layout.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True, path_type=Path))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change.")
@click.option("--diff", is_flag=True, help="Print a diff instead of writing; exit 1 on changes.")
def fmt(paths: tuple[Path, ...], check: bool, diff: bool) -> None:
    """Format .sig files in the canonical layout, in place.

    PATHS are .sig files or folders (default: the working directory); `-` alone reads
    standard input and prints the formatted text. A file whose meaning the new layout would
    change is left as it is, and said so. Exit 0: done (or nothing to change); 1: a file
    would change (--check, --diff), or could not be parsed or was refused.
    """
    from sigspec.commands import fmt as command

    if paths == (Path("-"),):
        sys.exit(command.format_stdin())
    from sigspec.compiler.paths import discover

    files = discover(paths or (Path("."),))
    if not files:
        raise click.UsageError("no .sig files found")
    sys.exit(command.format_files(files, check=check, diff=diff, color=_use_color()))


def _targets_help() -> str:
    """The targets and their options, as the registry declares them (`\b`: kept as laid out)."""
    from sigspec.emit.options import describe
    from sigspec.emit.registry import TARGETS

    lines = ["\b", "Targets (each takes its options from [options.TARGET] in the configuration):"]
    for target in TARGETS.values():
        lines.append(f"  {target.name:<11} {target.summary}")
        for name, default, text in describe(target.options):
            lines.append(f"      {name} = {default}: {text}")
    return "\n".join(lines)


@main.command(name="compile", cls=_CompileCommand)
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder (default: `out` from the configuration, else ./build).",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=_Registered(_target_names),
    help="A target to write (the list below); repeat for several (default: `targets` from "
    "the configuration, else all).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if the output folder is not what a compile would write now "
    "(for CI).",
)
@click.option(
    "--clean",
    is_flag=True,
    help="Delete the files sigspec wrote in the output folder (those it lists in its "
    "manifest and still holding what it wrote), then stop.",
)
@click.option("--watch", is_flag=True, help="Recompile whenever a .sig file or the config changes.")
@click.option(
    "--interval",
    type=click.FloatRange(0.05, 60),
    default=0.5,
    show_default=True,
    help="Seconds between checks for changes (with --watch).",
)
@FORMAT_OPTION
@OUTPUT_OPTION
@PROVIDER_OPTION
@QUIET_OPTION
def compile_command(
    *,
    paths: tuple[Path, ...],
    out: Path | None,
    targets: tuple[str, ...],
    check: bool,
    clean: bool,
    watch: bool,
    interval: float,
    fmt: str,
    output: Path | None,
    providers: tuple[str, ...],
    quiet: bool,
) -> None:
    """Compile .sig files to the chosen targets' files and a manifest.

    PATHS are .sig files or folders (default: `sources` from the configuration, else the
    configuration's folder, else the working directory). Nothing is written when there are
    errors. Exit 0: written or already up to date; 1: errors, or --check found the output
    out of date; 2: usage or configuration.
    """
    from sigspec.commands import compile as command

    request = command.Request(
        paths,
        out,
        targets,
        check=check,
        clean=clean,
        providers=tuple(dict.fromkeys(providers)),
        quiet=quiet,
    )

    def report(diags: Sequence[Diagnostic], root: Path) -> None:
        _emit(diags, fmt, quiet=quiet, output=output, root=root)

    if watch:
        sys.exit(command.watch(request, report, interval=interval))
    sys.exit(command.run(request, report))


@main.command(short_help="Print one signature's JSON Schema or provider fragment.")
@click.argument("spec", metavar="FILE.sig:NAME")
@click.option(
    "--input",
    "want_input",
    is_flag=True,
    help="Print the input (params) schema instead of the output's.",
)
@click.option(
    "--provider",
    "providers",
    multiple=True,
    type=_Registered(_provider_names),
    help="The provider's fragment instead of the plain JSON Schema (the default); repeat for "
    "several (an object of fragments by provider).",
)
@QUIET_OPTION
def schema(spec: str, want_input: bool, providers: tuple[str, ...], quiet: bool) -> None:
    """Print one signature's JSON Schema (of its output, by default) or its provider
    fragments, as JSON on standard output.

    FILE.sig:NAME names a signature in a .sig file, e.g. examples/sentiment.sig:classify.
    Exit 0: printed; 1: the file has errors, or a provider cannot take the schema; 2: usage
    (a text-mode signature asks for no JSON).
    """
    from sigspec.commands import schema as command

    sys.exit(
        command.show_schema(
            spec,
            want_input=want_input,
            providers=tuple(dict.fromkeys(providers)),
            report=lambda diags: _emit(diags, quiet=quiet),
        )
    )


@main.command(
    name="import", short_help="Import a JSON Schema, OpenAPI or Pydantic model as .sig text."
)
@click.argument("schema_spec", metavar="SCHEMA")
@click.option(
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the .sig text to this file (default: print it on standard output; "
    "nothing is written when the import has errors).",
)
@click.option("--force", is_flag=True, help="Replace the -o file when it exists (default: refuse).")
@click.option("--name", help="The root type's name (default: the schema's title, else the file's).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How the diagnostics are written (standard error).",
)
def import_command(
    schema_spec: str, output: Path | None, force: bool, name: str | None, fmt: str
) -> None:
    """Import a JSON Schema, OpenAPI 3.x document or Pydantic v2 model as .sig text.

    SCHEMA is a JSON file (draft 2020-12, 2019-09 or draft-07; an OpenAPI document's
    components.schemas), or module:Model for a Pydantic v2 model. The module is imported
    from the current folder as Python would import it: importing runs that module's code.
    Exit 0: imported; 1: something could not be expressed (named by its JSON Pointer);
    2: usage.
    """
    from sigspec.commands import import_ as command
    from sigspec.diagnostics.render import renderer

    def report(diags: Sequence[Diagnostic]) -> None:
        text = renderer(fmt)(diags, fmt == "text" and _use_color(True))
        if text:
            click.echo(text, nl=False, err=True)

    sys.exit(command.run(schema_spec, output, name, force, report))


@main.command(short_help="Parse and validate an LLM reply as the generated parser would.")
@click.argument("spec", metavar="FILE.sig:NAME")
@click.argument(
    "reply", required=False, metavar="[REPLY]", type=click.Path(allow_dash=True, path_type=Path)
)
@click.option(
    "--jsonl",
    is_flag=True,
    help='Read lines {"id": ..., "text": ...} from standard input (no REPLY); print one '
    "JSON result a line.",
)
@QUIET_OPTION
def validate(spec: str, reply: Path | None, jsonl: bool, quiet: bool) -> None:
    """Parse and validate an LLM reply as the generated parse_NAME would, and print the
    result as JSON: the value and the repairs made, or the errors.

    FILE.sig:NAME names a signature, e.g. examples/sentiment.sig:classify. REPLY is a file
    holding the reply's text (`-`: standard input). Exit 0: valid; 1: rejected (or the file
    has errors); 2: usage.
    """
    from sigspec.commands import validate as command

    sys.exit(command.run(spec, reply, jsonl, lambda diags: _emit(diags, quiet=quiet)))


@main.command(short_help="Report changes that break callers or consumers.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--against",
    "ref",
    metavar="GIT_REF",
    help="Compare PATHS (default: the configured sources) with their state at GIT_REF.",
)
@FORMAT_OPTION
@OUTPUT_OPTION
@QUIET_OPTION
def breaking(
    paths: tuple[Path, ...], ref: str | None, fmt: str, output: Path | None, quiet: bool
) -> None:
    """Report changes that break callers or consumers: `sigspec breaking OLD NEW` (two
    files or folders), or `sigspec breaking [PATHS] --against GIT_REF` (PATHS now against
    their state at a git revision).

    Exit 0: nothing breaks; 1: a breaking change, or a version has errors; 2: usage,
    configuration, or git cannot read the revision.
    """
    from sigspec.commands import breaking as command

    def report(diags: Sequence[Diagnostic]) -> None:
        _emit(diags, fmt, quiet=quiet, output=output)

    sys.exit(command.run(paths, ref, report, say=_say(quiet)))


@main.command(name="test", short_help="Run the test declarations of .sig files.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "-k",
    "pattern",
    metavar="PATTERN",
    help="Run only the tests PATTERN selects: a glob (with * ? [...]) matched against "
    "FILE.sig::NAME or against NAME, else a substring of FILE.sig::NAME (default: every "
    "test). A filter that selects no test exits 1.",
)
@click.option(
    "--live", is_flag=True, help="Call the model; record nothing (default: replay cassettes)."
)
@click.option(
    "--record", is_flag=True, help="Call the model and rewrite each selected test's cassette."
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 1000),
    help="Runs per test, instead of each test's @repeat (default: its @repeat, else 1; "
    "a replay runs at most the runs recorded).",
)
@click.option(
    "--jobs",
    type=click.IntRange(1, 256),
    help="Runs at once (default: `concurrency` in [test], else 4).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("table", "json", "junit")),
    default="table",
    show_default=True,
    help="How to print the results (standard output; the summary goes to standard error).",
)
def test_command(
    *,
    paths: tuple[Path, ...],
    pattern: str | None,
    live: bool,
    record: bool,
    repeat: int | None,
    jobs: int | None,
    fmt: str,
) -> None:
    """Run the test declarations of the .sig files in PATHS (default: the project) through
    the generated Python client: replayed from cassettes (the default, for CI), or against
    the model configured in [tool.sigspec.test] of pyproject.toml or [test] of sigspec.toml
    (--live, --record).

    A replayed test whose request no longer hashes as recorded (its prompt, schema, model
    or params changed) is stale, not replayed. Exit 0: every test passed; 1: a test failed,
    was stale or could not run, the project has errors, or no test was selected; 2: usage
    or configuration (no `model`, the key's variable unset for a live run, an SDK missing).
    """
    from sigspec.commands import test as command

    if live and record:
        raise click.UsageError("--live and --record exclude each other (--record calls live)")
    mode = "record" if record else "live" if live else "replay"
    options = command.Options(paths, pattern, mode, repeat, jobs, fmt)
    sys.exit(command.run(options, _emit))


@main.command(short_help="Explain a diagnostic code, with an example.")
@click.argument("code")
def explain(code: str) -> None:
    """Print the long explanation of a diagnostic code, with an example.

    CODE is the name a diagnostic prints in brackets, e.g. `sigspec explain unknown-type`.
    Exit 2 for a code that does not exist (the closest codes suggested).
    """
    from sigspec.commands import explain as command

    sys.exit(command.run(code))


@main.command(short_help="Run the language server (for editors).")
def lsp() -> None:
    """Run the language server on standard input and output, for an editor to start (needs
    pygls: `pip install "sigspec[lsp]"`, or `pip install ".[lsp]"` in a checkout)."""
    try:
        from sigspec.commands import lsp as server
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in {"pygls", "lsprotocol"}:
            raise
        raise click.UsageError(
            f"the language server needs pygls ({exc.name} is not installed): "
            'pip install "sigspec[lsp]" (or ".[lsp]" in a checkout of sigspec)'
        ) from None
    from importlib.metadata import version

    server.serve(version("sigspec"))
