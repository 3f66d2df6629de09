"""Time and peak memory of the reply parser on hostile reply shapes, at N and 10N, in Python
and TypeScript (issue 22): each run is its own process, so `ru_maxrss` is that run's peak.

    python bench/reply_scale.py [--sizes 30000,300000] [--shapes nested_tags,...] [--ts]

Prints one line per shape, size and language: seconds, peak RSS in MB, and how the parse ended.
The limits on reply size and tags are raised out of the way (`--limits` keeps the defaults):
what is measured is the parser's own work on each shape.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_TS = ROOT / "src" / "sigspec" / "runtime" / "runtime.ts"
TSC = ROOT / "tests" / "node" / "node_modules" / ".bin" / "tsc"
# {name :string}, as the runtime's descriptor.
DESCRIPTOR = ["map", [["name", "name", ["str"], True, False, None, False, []]], False]
ANSWER = '{"name": "x"}'


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


# Each shape: a reply of about `size` characters.
SHAPES = {
    "nested_tags": lambda n: "<a>" * (n // 7) + ANSWER + "</a>" * (n // 7),
    "many_tags": lambda n: _repeat("<b>x</b> ", n) + ANSWER,
    "unclosed_tags": lambda n: _repeat("<answer>", n) + ANSWER,
    "unterminated_string": lambda n: '{"name": "' + "a" * n,
    "many_fences": lambda n: _repeat("```\n{}\n```\n", n) + ANSWER,
    "open_braces": lambda n: "{" * n,
    "deep_brackets": lambda n: "[" * n + "]" * n,
    "prose_candidates": lambda n: _repeat('see {"name": 1} or ', n),
    "nested_objects": lambda n: '{"a": ' * (n // 6) + "1" + "}" * (n // 6),
    "code_spans": lambda n: _repeat("`{x` ", n) + ANSWER,
    "quotes_in_brackets": lambda n: "[" + _repeat("\"'", n),
    # A run of fence markers and no line break (Python 3.10's `re` has no possessive
    # quantifier: each shorter marker retried was quadratic), a list of strings (one repeated
    # group per string: unbounded, its backtracking state was 75 bytes a character), and the
    # same list in single quotes (the lenient reader's pieces).
    "backtick_run": lambda n: "`" * n,
    "string_list": lambda n: "[" + _repeat('"ab", ', n) + '"x"]',
    "single_quoted_list": lambda n: "[" + _repeat("'ab', ", n) + "'x']",
}

PYTHON_RUN = """
import json, resource, sys, time
sys.path.insert(0, {src!r})
from bench_shapes import SHAPES
from sigspec.runtime import parse
from sigspec.runtime.common import ReplyError
try:
    from sigspec.runtime.common import Limits
    limits = None if {keep!r} else Limits(reply_chars=10**9, tags=10**9)
except ImportError:  # before issue 22: no limits
    limits = None
text = SHAPES[{shape!r}]({size})
descriptor = json.loads({descriptor!r})
def tuples(d):
    return tuple(tuples(x) for x in d) if isinstance(d, list) else d
start = time.perf_counter()
try:
    parse(text, tuples(descriptor), {{}}, *([limits] if limits else []))
    end = "ok"
except ReplyError as exc:
    end = "ReplyError: " + exc.reason[:60]
seconds = time.perf_counter() - start
print(json.dumps([seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, end]))
"""

NODE_RUN = """
import {{ parseReply, ReplyError }} from {runtime!r};
import {{ SHAPES }} from {shapes!r};
const text = SHAPES[{shape!r}]({size});
const start = performance.now();
let end = "ok";
const limits = {keep} ? undefined : {{ replyChars: 1e9, tags: 1e9 }};
try {{
  parseReply(text, {descriptor}, {{}}, limits);
}} catch (e) {{
  if (!(e instanceof ReplyError)) throw e;
  end = "ReplyError: " + e.reason.slice(0, 60);
}}
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify([seconds, process.resourceUsage().maxRSS / 1024, end]));
"""


def _js_shapes() -> str:
    """The same shapes in JavaScript (one builder per line, as above)."""
    return """
const rep = (unit, n) => unit.repeat(Math.max(1, Math.floor(n / unit.length)));
const ANSWER = '{"name": "x"}';
export const SHAPES = {
  nested_tags: (n) => "<a>".repeat(Math.floor(n / 7)) + ANSWER + "</a>".repeat(Math.floor(n / 7)),
  many_tags: (n) => rep("<b>x</b> ", n) + ANSWER,
  unclosed_tags: (n) => rep("<answer>", n) + ANSWER,
  unterminated_string: (n) => '{"name": "' + "a".repeat(n),
  many_fences: (n) => rep("```\\n{}\\n```\\n", n) + ANSWER,
  open_braces: (n) => "{".repeat(n),
  deep_brackets: (n) => "[".repeat(n) + "]".repeat(n),
  prose_candidates: (n) => rep('see {"name": 1} or ', n),
  nested_objects: (n) => '{"a": '.repeat(Math.floor(n / 6)) + "1" + "}".repeat(Math.floor(n / 6)),
  code_spans: (n) => rep("`{x` ", n) + ANSWER,
  quotes_in_brackets: (n) => "[" + rep("\\"'", n),
  backtick_run: (n) => "`".repeat(n),
  string_list: (n) => "[" + rep('"ab", ', n) + '"x"]',
  single_quoted_list: (n) => "[" + rep("'ab', ", n) + "'x']",
};
"""


def run(cmd: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"timeout > {timeout:.0f} s"
    if done.returncode != 0:
        return "crash: " + (done.stderr.strip().splitlines() or ["?"])[-1][:100]
    seconds, rss, end = json.loads(done.stdout)
    return f"{seconds:8.3f} s {rss:8.1f} MB  {end}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="30000,300000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--ts", action="store_true", help="TypeScript too (needs tests/node)")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--limits", action="store_true", help="keep the default limits")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="reply-scale-"))
    shutil.copy(__file__, work / "bench_shapes.py")
    if args.ts:
        shutil.copy(RUNTIME_TS, work / "runtime.ts")
        (work / "shapes.mjs").write_text(_js_shapes())
        subprocess.run(
            [
                str(TSC),
                "--target",
                "es2022",
                "--module",
                "es2022",
                "--outDir",
                str(work),
                str(work / "runtime.ts"),
            ],
            check=True,
        )
    for shape in args.shapes.split(","):
        for size in sizes:
            code = PYTHON_RUN.format(
                src=str(work),
                shape=shape,
                size=size,
                descriptor=json.dumps(DESCRIPTOR),
                keep=args.limits,
            )
            print(
                f"{shape:<20} {size:>9} py {run([sys.executable, '-c', code], args.timeout)}",
                flush=True,
            )
            if args.ts:
                script = work / "run.mjs"
                script.write_text(
                    NODE_RUN.format(
                        runtime=str(work / "runtime.js"),
                        shapes=str(work / "shapes.mjs"),
                        shape=shape,
                        size=size,
                        descriptor=json.dumps(DESCRIPTOR),
                        keep=json.dumps(args.limits),
                    )
                )
                print(
                    f"{shape:<20} {size:>9} ts {run(['node', str(script)], args.timeout)}",
                    flush=True,
                )


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
