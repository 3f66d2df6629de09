"""`sigspec compile` end to end: goldens, determinism, --check, ownership, configuration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema

from conftest import ROOT, run_cli, tree

GOLDEN = ROOT / "tests" / "golden" / "examples"


def compile_examples(out: Path, *extra: str, env: dict[str, str] | None = None) -> None:
    result = run_cli("compile", "examples", "-o", str(out), *extra, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stdout + result.stderr


# Copies of sigspec's own runtime in the output: not stored as goldens, but held to their
# source (test_shipped_runtimes_are_their_source).
RUNTIME = ROOT / "src" / "sigspec" / "runtime"


def is_runtime_copy(path: str) -> bool:
    folder, _, name = path.rpartition("/")
    if folder == "typescript":
        return name in ("_runtime.ts", "_providers.ts", "_stream.ts")
    return folder == "python/signatures" and name.startswith("_") and not name.startswith("__")


def test_examples_match_the_goldens(examples_output: Path, update_goldens: bool) -> None:
    produced = {p: data for p, data in tree(examples_output).items() if not is_runtime_copy(p)}
    if update_goldens:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(examples_output, GOLDEN)
        for path in GOLDEN.rglob("*"):
            if path.is_file() and is_runtime_copy(path.relative_to(GOLDEN).as_posix()):
                path.unlink()
    expected = tree(GOLDEN)
    assert sorted(produced) == sorted(expected), "missing or extra golden files"
    stale = [path for path in produced if produced[path] != expected[path]]
    assert stale == [], f"stale goldens (run pytest --update-goldens and review): {stale}"


def test_shipped_runtimes_are_their_source(examples_output: Path) -> None:
    """Each runtime file in the output is its source with a header line; the Python copies
    differ from it only where one runtime module imports another, and then only in the
    module's name, which must be the copy of that module in the same package."""
    out = examples_output
    copies = sorted(p for p in tree(out) if is_runtime_copy(p))
    shipped = [("_runtime.ts", "runtime.ts"), ("_providers.ts", "providers.ts")]
    for copy, source in [*shipped, ("_stream.ts", "stream.ts")]:
        ts = (out / "typescript" / copy).read_text(encoding="utf-8")
        header, _, body = ts.partition("\n")
        assert "DO NOT EDIT" in header
        assert body == (RUNTIME / source).read_text(encoding="utf-8")
    python = [p for p in copies if p.endswith(".py")]
    sources = {p.name: p.read_text(encoding="utf-8") for p in RUNTIME.glob("*.py")}
    sources.pop("__init__.py")
    source_of_copy: dict[str, str] = {}
    for copy in python:  # which source each copy is: the one it equals outside imports
        lines = (out / copy).read_text(encoding="utf-8").splitlines()[1:]
        found = [
            name
            for name, text in sources.items()
            if len(text.splitlines()) == len(lines)
            and all(
                a == b or a.lstrip().startswith("from .")
                for a, b in zip(lines, text.splitlines(), strict=True)
            )
        ]
        assert len(found) == 1, (copy, found)
        source_of_copy[Path(copy).stem] = found[0].removesuffix(".py")
    assert sorted(source_of_copy.values()) == sorted(n.removesuffix(".py") for n in sources)
    for copy in python:
        lines = (out / copy).read_text(encoding="utf-8").splitlines()[1:]
        original = sources[source_of_copy[Path(copy).stem] + ".py"].splitlines()
        for mine, theirs in zip(lines, original, strict=True):
            if mine == theirs:
                continue
            head, _, names = mine.partition(" import ")
            source_head, _, source_names = theirs.partition(" import ")
            assert names == source_names, (copy, mine, theirs)
            target = head.strip().removeprefix("from .")
            assert source_of_copy[target] == source_head.strip().removeprefix("from ."), mine


def test_goldens_work(tmp_path: Path) -> None:
    """Not just equal: every schema is valid 2020-12 and accepts or rejects real replies."""
    files = tree(GOLDEN)
    for path, data in files.items():
        text = data.decode("utf-8")
        if not path.endswith(".json"):  # Mustache, Python: the header is the first line
            assert "DO NOT EDIT" in text.splitlines()[0], path
            if path.endswith(".py"):
                compile(text, path, "exec")  # every generated module is valid Python
            continue
        assert "DO NOT EDIT" in text.splitlines()[1], path
        body = json.loads(text)
        if path.startswith("jsonschema/"):
            jsonschema.Draft202012Validator.check_schema(body)
    classify = json.loads(files["jsonschema/classify.output.json"])
    validator = jsonschema.Draft202012Validator(classify)
    assert validator.is_valid({"sentiment": "positive", "score": 0.93})
    assert not validator.is_valid({"sentiment": "happy", "score": 0.93})
    assert not validator.is_valid({"sentiment": "positive", "score": 1.5})
    assert not validator.is_valid({"sentiment": "positive", "score": 0.5, "extra": 1})
    manifest = json.loads(files["manifest.json"])
    from sigspec.infra.digest import digest

    listed = manifest["files"]
    stored = sorted(p for p in files if p != "manifest.json")
    assert sorted(p for p in listed if not is_runtime_copy(p)) == stored
    assert all(listed[p] == digest(files[p]) for p in stored)
    names = [s["name"] for s in manifest["signatures"]]
    assert "classify" in names and manifest["pipelines"][0]["steps"] == [
        "classify",
        "act_on_sentiment",
    ]
    entry = next(s for s in manifest["signatures"] if s["name"] == "classify")
    assert entry["inline"] == "(text :string) -> {sentiment Sentiment, score :float}"
    assert entry["providers"] == "providers/classify.json"


def test_output_is_byte_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    # Each run with its own empty cache, so that no run reads another's generated models.
    for name, seed in (("a", "0"), ("b", "4242"), ("c", "random")):
        env = {"PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(tmp_path / f"cache-{name}")}
        compile_examples(tmp_path / name, env=env)
    assert tree(tmp_path / "a") == tree(tmp_path / "b") == tree(tmp_path / "c")


def project(tmp_path: Path, body: str) -> Path:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "main.sig").write_text(body)
    return src


TWO = "signature a() -> {x :int}\nsignature b() -> {y :string}\n"


def test_check_reports_stale_missing_and_orphaned(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    clean = run_cli("compile", "src", "-o", "out", "--check", cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (tmp_path / "out/jsonschema/a.output.json").write_text("{}")
    (tmp_path / "out/jsonschema/a.input.json").unlink()
    project(tmp_path, "signature a() -> {x :int}\n")  # b removed: its files are orphans
    before = tree(tmp_path / "out")
    result = run_cli("compile", "src", "-o", "out", "--check", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "stale: out/jsonschema/a.output.json" in lines
    assert "missing: out/jsonschema/a.input.json" in lines
    assert "orphaned: out/jsonschema/b.output.json" in lines
    assert tree(tmp_path / "out") == before  # --check writes nothing
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    assert not (tmp_path / "out/jsonschema/b.output.json").exists()
    assert run_cli("compile", "src", "-o", "out", "--check", cwd=tmp_path).returncode == 0


def test_hand_written_files_survive_everything(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    out = tmp_path / "out"
    (out / "jsonschema").mkdir(parents=True)
    (out / "README.md").write_text("mine")
    (out / "jsonschema" / "custom.json").write_text("{}")
    for args in (
        ["compile", "src", "-o", "out"],
        ["compile", "src", "-o", "out"],
        ["compile", "src", "-o", "out", "--clean"],
    ):
        assert run_cli(*args, cwd=tmp_path).returncode == 0
        assert (out / "README.md").read_text() == "mine"
        assert (out / "jsonschema" / "custom.json").read_text() == "{}"
    assert sorted(tree(out)) == ["README.md", "jsonschema/custom.json"]


def test_never_overwrites_a_file_it_does_not_own(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    (tmp_path / "out/jsonschema").mkdir(parents=True)
    (tmp_path / "out/jsonschema/a.output.json").write_text("hand written")
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert "does not own: jsonschema/a.output.json" in result.stderr
    assert (tmp_path / "out/jsonschema/a.output.json").read_text() == "hand written"
    assert not (tmp_path / "out/manifest.json").exists()


def test_refuses_a_foreign_manifest(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    (tmp_path / "out").mkdir()
    (tmp_path / "out/manifest.json").write_text('{"name": "somebody else"}')
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 2 and "not written by sigspec" in result.stderr


def test_errors_write_nothing(tmp_path: Path) -> None:
    project(tmp_path, "signature a() -> {x Missing}\n")
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    # Text diagnostics on stderr: compile's stdout is for data (none here).
    assert result.returncode == 1 and "unknown-type" in result.stderr and not result.stdout
    assert not (tmp_path / "out").exists()
    limit = "signature " + "n" * 70 + "() -> {x :int}\n"
    project(tmp_path, limit)
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 1 and "provider-limit" in result.stderr
    assert not (tmp_path / "out").exists()


def test_refuses_output_folders_that_hold_inputs(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    result = run_cli("compile", "src", "-o", "src", cwd=tmp_path)
    assert result.returncode == 2 and "holds the input" in result.stderr
    assert run_cli("compile", "src", "-o", ".", cwd=tmp_path).returncode == 2


def test_targets_can_be_chosen(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    assert (
        run_cli("compile", "src", "-o", "out", "--target", "jsonschema", cwd=tmp_path).returncode
        == 0
    )
    assert sorted(tree(tmp_path / "out")) == [
        "jsonschema/a.input.json",
        "jsonschema/a.output.json",
        "jsonschema/b.input.json",
        "jsonschema/b.output.json",
        "manifest.json",
    ]
    assert run_cli("compile", "src", "-o", "out", "--target", "nope", cwd=tmp_path).returncode == 2


def test_configuration_is_found_upward_and_flags_override_it(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.sigspec]\nsources = ["src"]\nout = "gen"\n'
        'targets = ["providers"]\n\n[tool.sigspec.options.providers]\nproviders = ["openai"]\n'
    )
    (tmp_path / "deep/er").mkdir(parents=True)
    assert run_cli("compile", cwd=tmp_path / "deep/er").returncode == 0
    providers = json.loads((tmp_path / "gen/providers/a.json").read_text())["providers"]
    assert list(providers) == ["openai"]
    assert not (tmp_path / "gen/jsonschema").exists()
    assert json.loads((tmp_path / "gen/manifest.json").read_text())["inputs"] == {
        "src/main.sig": json.loads((tmp_path / "gen/manifest.json").read_text())["inputs"][
            "src/main.sig"
        ]
    }
    assert (
        run_cli(
            "compile", "-o", str(tmp_path / "flag"), "--target", "jsonschema", cwd=tmp_path / "deep"
        ).returncode
        == 0
    )
    assert (tmp_path / "flag/jsonschema/a.output.json").exists()


def test_malformed_configuration_exits_2(tmp_path: Path) -> None:
    project(tmp_path, TWO)
    for text, message in [
        ("[tool.sigspec]\nout = 3\n", "`out` must be a non-empty string"),
        ('[tool.sigspec]\ntargets = ["flux"]\n', "unknown target `flux`; known: jsonschema"),
        ("[tool.sigspec]\ncolour = true\n", "unknown key colour"),
        ('[tool.sigspec.options.providers]\nproviders = ["bard"]\n', "unknown value bard"),
        (
            '[tool.sigspec.options.python]\nvalidators = "tiny"\n',
            '`validators` must be one of "fast", "compact", not "tiny"',
        ),
        ("[tool.sigspec.options.python]\nvalidators = 1\n", "`validators` must be one of"),
        ('[tool.sigspec.options.python]\npackage = "../up"\n', "must be a dotted Python name"),
        ('[tool.sigspec.options.python]\npackage = "a.class"\n', "`class` is a Python keyword"),
        ("[tool.sigspec.options.jsonschema]\nx = 1\n", "`jsonschema` has no option `x`"),
        ("[tool.sigspec\n", "cannot read the configuration"),
    ]:
        (tmp_path / "pyproject.toml").write_text(text)
        result = run_cli("compile", "src", cwd=tmp_path)
        assert result.returncode == 2, text
        assert message in result.stderr, (text, result.stderr)
        assert "Traceback" not in result.stderr
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "sigspec.toml").write_text('out = "from-sigspec-toml"\n')
    assert run_cli("compile", "src", cwd=tmp_path).returncode == 0
    assert (tmp_path / "from-sigspec-toml/manifest.json").exists()


def test_schema_command(tmp_path: Path) -> None:
    result = run_cli("schema", "examples/sentiment.sig:classify", cwd=ROOT)
    assert result.returncode == 0
    assert json.loads(result.stdout)["required"] == ["sentiment", "score"]
    params = json.loads(
        run_cli("schema", "examples/sentiment.sig:classify", "--input", cwd=ROOT).stdout
    )
    assert params["required"] == ["text"]
    fragment = json.loads(
        run_cli(
            "schema", "examples/sentiment.sig:classify", "--provider", "openai", cwd=ROOT
        ).stdout
    )
    assert fragment["request"]["response_format"]["json_schema"]["name"] == "classify"
    assert run_cli("schema", "examples/sentiment.sig:nope", cwd=ROOT).returncode == 2
    assert run_cli("schema", "examples/sentiment.sig", cwd=ROOT).returncode == 2


def test_python_goldens_import_and_validate(tmp_path: Path, examples_output: Path) -> None:
    """The generated package runs on its own: a fresh interpreter without sigspec's path."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from signatures import sentiment, agent\n"
        "assert sentiment.validate_classify({'sentiment': 'positive', 'score': 0.5})"
        " == {'sentiment': 'positive', 'score': 0.5}\n"
        'r = sentiment.parse_classify(\'Sure: {"sentiment": "Negative", "score": "0.2"}\')\n'
        "assert r.value == {'sentiment': 'negative', 'score': 0.2}, r\n"
        "assert agent.validate_agent_step({'conclusion': 'x'})['confidence'] == 0.8\n"
        "try:\n"
        "    sentiment.validate_classify({'sentiment': 'x', 'score': 2})\n"
        "except sentiment.ValidationError as e:\n"
        "    assert [p for p, _ in e.errors] == ['sentiment', 'score'], e.errors\n"
        "else:\n"
        "    raise AssertionError('accepted an invalid value')\n"
        "import sigspec\n"
    )
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-I", "-B", "-c", script, str(examples_output / "python")],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    # -I isolates from the environment; the last line proves sigspec itself is not needed
    # up to that point (it is importable here only because the test venv has it).
    assert result.returncode in (0, 1), result.stderr
    assert "AssertionError" not in result.stderr and "Error" not in result.stderr.replace(
        "ModuleNotFoundError: No module named 'sigspec'", ""
    ), result.stderr


def test_both_cores_give_the_same_files(monkeypatch: Any) -> None:
    """Large projects emit half of their files in a forked child (sigspec/infra/parallel.py);
    forced on for the examples, every file and every diagnostic is the same."""
    import sigspec.compiler.generate
    from sigspec import load
    from sigspec.compiler.generate import compile_project

    loaded = load([ROOT / "examples"])
    targets = ["jsonschema", "providers", "prompts", "python", "typescript"]

    def files() -> tuple[dict[str, str], tuple[Any, ...]]:
        result = compile_project(loaded.project, targets, {}, inputs={})
        # The order of writing is no output; diagnostics come back sorted.
        return {a.path: a.text for a in result.files}, result.diagnostics

    serial = files()
    assert serial[1], "the examples should give some warnings to compare"
    monkeypatch.setattr(sigspec.compiler.generate, "PARALLEL_FROM", 0)
    assert files() == serial  # the manifest too, which lists every file


def test_parsing_in_two_processes_gives_the_same_project(monkeypatch: Any) -> None:
    """From 16 files on, a forked child parses half of them and sends its ASTs back pickled
    (sigspec/infra/pickling.py); forced on for the examples, the project and every diagnostic,
    with its spans and source, are the same."""
    import sigspec.compiler.project
    from sigspec import load

    folders = [ROOT / "examples", ROOT / "tests" / "cases" / "check"]  # the latter: errors
    serial = load(folders)
    assert serial.diagnostics, "the check cases should give diagnostics to compare"
    monkeypatch.setattr(sigspec.compiler.project, "PARALLEL_FROM", 0)
    forked = load(folders)
    assert forked.project == serial.project
    assert forked.diagnostics == serial.diagnostics
    assert forked.sources == serial.sources


def test_up_to_date_only_for_the_same_build_of_sigspec(tmp_path: Path) -> None:
    """A second compile with nothing changed answers from the manifest without compiling; a
    compile recorded by another build of sigspec (an editable install since edited, say) is
    never taken as up to date, even at the same version."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = tmp_path / "out"
    args = ("compile", str(ROOT / "examples"), "-o", str(out), "--target", "jsonschema")
    assert "wrote" in run_cli(*args, env=env).stderr
    assert "is up to date" in run_cli(*args, env=env).stderr
    [state] = (tmp_path / "cache" / "sigspec").glob("outputs-*.json")
    recorded = json.loads(state.read_text(encoding="utf-8"))
    state.write_text(json.dumps({**recorded, "compiler": "another build"}), encoding="utf-8")
    again = run_cli(*args, env=env)
    assert again.returncode == 0 and "wrote" in again.stderr and "(0 changed)" in again.stderr
    assert "is up to date" in run_cli(*args, env=env).stderr  # recorded anew


def test_a_target_loads_only_its_own_emitters(tmp_path: Path) -> None:
    """The registry imports a target's module when it runs: a JSON Schema and providers
    compile never loads the prompt, Python or TypeScript emitters (nor jinja2), which would
    cost every such compile their import time."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from sigspec.cli import main\n"
        "sys.argv = ['sigspec', 'compile', sys.argv[1], '-o', sys.argv[2],"
        " '--target', 'jsonschema', '--target', 'providers']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "heavy = ('jinja2', 'sigspec.emit.prompts', 'sigspec.emit.python',"
        " 'sigspec.emit.typescript', 'sigspec.runtime.client')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "examples"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "manifest.json").is_file()
