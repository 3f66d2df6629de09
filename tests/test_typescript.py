"""The typescript target in a TypeScript project: the examples' output (the goldens) and a
program using it compile with `tsc --strict` and run in Node; hostile .sig content stays data;
what TypeScript cannot do exactly is a compile warning."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, ROOT, run_cli
from test_shared_cases import compile_typescript

GOLDEN_TS = ROOT / "tests" / "golden" / "examples" / "typescript"

# What the README shows: the generated client with the user's own callback.
USAGE = """\
import { classify, triage, parseClassify, validateClassify } from "./sentiment.js";
import { JsonEnforcementError, ValidationError, type Llm, type Request } from "./_runtime.js";

declare const console: { log(text: string): void };

const seen: Request[] = [];
const replies = [
  "Sure! ```json\\n{\\"sentiment\\": \\"Positive\\", \\"score\\": \\"0.9\\"}\\n```",
];
const llm: Llm = async (request) => {
  seen.push(request);
  return { content: replies.shift() ?? "", tokens: { input: 10, output: 3 } };
};

const step = await classify({ text: "Great blender" }, llm);
const sentiment: "positive" | "negative" | "neutral" = step.return.sentiment;
const out: Record<string, unknown> = {
  sentiment,
  score: step.return.score,
  repairs: step.turns[0]?.repairs,
  prompt: seen[0]?.messages[0]?.content,
  usage: step.usage,
};

replies.push('{"sentiment": "negative", "score": 0.2}', '{"action": "escalate", "priority": 1}');
const piped = await triage({ text: "Broke in a day" }, llm);
out["action"] = piped.return.action;
out["priority"] = piped.return.priority;
out["pipelineTurns"] = piped.turns.length;
out["secondPrompt"] = seen[seen.length - 1]?.messages[0]?.content;

try {
  await classify({ text: "x" }, () => "no idea", { maxTurns: 2 });
} catch (e) {
  if (e instanceof JsonEnforcementError) out["failure"] = [e.step.turns.length, e.errors];
}
try {
  validateClassify({ sentiment: "positive", score: 2 });
} catch (e) {
  if (e instanceof ValidationError) out["invalid"] = e.errors;
}
try {
  validateClassify({ sentiment: "positive", score: NaN });
} catch (e) {
  if (e instanceof ValidationError) out["nan"] = e.errors;
}
out["parsed"] = parseClassify('<answer>{"sentiment": "neutral", "score": 0.5}</answer>').value;
console.log(JSON.stringify(out));
"""


def tsc_and_run(folder: Path, program: str) -> subprocess.CompletedProcess[str]:
    """Compile `folder/typescript` plus `program` as main.ts strictly, then run main.js."""
    (folder / "typescript" / "main.ts").write_text(program, "utf-8")
    js = compile_typescript(folder)
    return subprocess.run(
        ["node", str(js / "main.js")], capture_output=True, text=True, check=False, timeout=120
    )


def compile_and_run(folder: Path, sig: str, program: str, name: str = "s") -> dict[str, Any]:
    """`sig` compiled to TypeScript in `folder` (as `NAME.sig`, so `./NAME.js`), then
    `program` run against it: the JSON it printed."""
    (folder / f"{name}.sig").write_text(sig, "utf-8")
    result = run_cli(
        "compile", f"{name}.sig", "-o", str(folder / "out"), "--target", "typescript", cwd=folder
    )
    assert result.returncode == 0, result.stderr
    run = tsc_and_run(folder / "out", program)
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def test_examples_compile_with_tsc_and_the_client_runs(
    tmp_path: Path, examples_output: Path
) -> None:
    shutil.copytree(examples_output / "typescript", tmp_path / "typescript")
    run = tsc_and_run(tmp_path, USAGE)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["sentiment"] == "positive" and out["score"] == 0.9
    assert ["sentiment", 'matched "Positive" to enum value "positive"'] in out["repairs"]
    assert "Classify the sentiment of this product review:\n\nGreat blender" in out["prompt"]
    assert out["usage"] == {"input": 10, "output": 3}
    assert out["action"] == "escalate" and out["priority"] == 1
    assert out["pipelineTurns"] == 2
    # The second step's prompt got the first step's values and field descriptions.
    assert "classified as negative (confidence 0.2)" in out["secondPrompt"]
    assert "- sentiment: One of: positive, negative, neutral" in out["secondPrompt"]
    assert out["failure"] == [2, [["root", "no JSON found in the reply"]]]
    assert out["invalid"] == [["score", "2 is greater than the maximum 1"]]
    assert out["nan"] == [["score", "expected a finite number, got NaN"]]  # as in Python
    assert out["parsed"] == {"sentiment": "neutral", "score": 0.5}


HOSTILE = r"""
## Ends a comment */ process.exit(3) /* and "quotes" \ backslashes
type Promise = {then :string "*/ process.exit(3); /*", constructor :int = 1}

type class = "a" | "b\"); process.exit(3); (\""

## `delete` is reserved; */ process.exit(3)
@prompt("Say {{__proto__}} {{class}} ${process.exit(3)} `backtick`")
signature delete(__proto__ :string, class :int = 2) -> {
  constructor :string "*/ process.exit(3) /*",
  then Promise,
  kind class,
  weird-key :bool = false
}

signature validateDelete() -> :string
"""


def test_hostile_names_and_text_stay_data(tmp_path: Path) -> None:
    (tmp_path / "hostile.sig").write_text(HOSTILE, "utf-8")
    result = run_cli(
        "compile", "hostile.sig", "-o", str(tmp_path / "out"), "--target", "typescript",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    program = """\
import * as m from "./hostile.js";
declare const console: { log(text: string): void; error(text: string): void };
const reply = '{"constructor": "x", "then": {"then": "t"}, "kind": "a", "weird_key": true}';
const parsed = m.parseDelete(reply).value;
const args = JSON.parse('{"__proto__": "P", "class": 5}') as m.DeleteInput;
const step = await m.delete_(args, (r) => {
  console.error(r.messages[0]?.content ?? "");
  return reply;
});
console.log(JSON.stringify({
  own: Object.prototype.hasOwnProperty.call(parsed, "constructor"),
  proto: Object.getPrototypeOf(parsed) === Object.prototype,
  value: parsed,
  constructor: parsed.then.constructor,
  polluted: ({} as Record<string, unknown>)["then"] !== undefined,
  step: step.return.kind,
  other: typeof m.validateDelete_,
}));
"""
    run = tsc_and_run(tmp_path / "out", program)
    assert run.returncode == 0, run.stderr  # exit 3 would mean .sig text ran as code
    out = json.loads(run.stdout)
    assert out["own"] is True and out["proto"] is True and out["polluted"] is False
    assert out["value"]["constructor"] == "x" and out["value"]["weird-key"] is True
    assert out["constructor"] == 1 and out["step"] == "a" and out["other"] == "function"
    assert "Say P 5 ${process.exit(3)} `backtick`" in run.stderr  # the prompt, verbatim


def test_what_typescript_cannot_keep_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "w.sig").write_text(
        "signature f() -> {code :string, n :int = 9007199254740993}\n"
        'signature g() -> {code :string @pattern("^[a-z]+$"), n :int = 3}\n',
        "utf-8",
    )
    result = run_cli("compile", "w.sig", "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = result.stdout + result.stderr
    warnings = [line for line in report.splitlines() if "warning[typescript-unsupported]" in line]
    assert len(warnings) == 1, report
    assert "typescript: `n`: an integer" in report
    assert not any(w.startswith("w.sig:2:") for w in warnings)  # g's fits both
    only_python = run_cli(
        "compile", "w.sig", "-o", str(tmp_path / "py"), "--target", "python", cwd=tmp_path
    )
    assert "typescript-unsupported" not in only_python.stdout + only_python.stderr


def test_examples_compile_to_typescript_only(tmp_path: Path) -> None:
    result = run_cli(
        "compile", str(EXAMPLES), "-o", str(tmp_path / "out"), "--target", "typescript"
    )
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in (tmp_path / "out" / "typescript").iterdir())
    runtime = ["_runtime.ts", "_providers.ts", "_stream.ts"]
    assert files == sorted([*runtime, *(f"{p.stem}.ts" for p in EXAMPLES.glob("*.sig"))])
    compile_typescript(tmp_path / "out")
