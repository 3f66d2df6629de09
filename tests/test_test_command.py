"""`sigspec test` end to end: the CLI in a subprocess against a scripted OpenAI-compatible
server on 127.0.0.1 (canned answers chosen by the request's prompt), recording cassettes and
replaying them with the server gone: stale requests, missing cassettes, pass rates, retry
turns, the three formats, filters, exit codes, concurrency, and no secret in any cassette."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from recording_server import listening

KEY = "sk-test-0123456789abcdefSECRET"
KEY_ENV = "SIGSPEC_TEST_API_KEY"

POSITIVE = '{"sentiment": "positive", "score": 0.9}'
NEGATIVE = '{"sentiment": "negative", "score": 0.2}'


def default_answer(prompt: str, count: int) -> str:
    """The scripted model: a review with "love" is positive, anything else negative; a
    prompt with "flaky" is right (positive) on its 1st, 3rd and 5th call only; "retry"
    gets an invalid answer first; "summary" gets plain text."""
    if "flaky" in prompt:
        return POSITIVE if count % 2 == 1 else NEGATIVE
    if "retry" in prompt and count == 1:
        return "I am not JSON"
    if "Summarise" in prompt:
        return "A short summary."
    return POSITIVE if "love" in prompt else NEGATIVE


@dataclass
class Server:
    url: str = ""
    answer: Callable[[str, int], str] = default_answer
    delay: float = 0.0
    bodies: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any], authorization: str | None) -> dict[str, Any]:
        prompt = body["messages"][1]["content"]  # the first user message: the test's
        with self.lock:
            self.bodies.append(body)
            self.authorizations.append(authorization)
            self.counts[prompt] = self.counts.get(prompt, 0) + 1
            count = self.counts[prompt]
        message = {"role": "assistant", "content": self.answer(prompt, count)}
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
        }


@contextmanager
def serving(server: Server) -> Iterator[Server]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with server.lock:
                server.in_flight += 1
                server.most_in_flight = max(server.most_in_flight, server.in_flight)
            time.sleep(server.delay)
            data = json.dumps(server.reply(body, self.headers.get("Authorization"))).encode()
            with server.lock:
                server.in_flight -= 1
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        server.url = f"{url}/v1"
        yield server


SIG = """\
@output(json)
@prompt("Classify this review: {{text}}")
signature classify(text :string) -> {sentiment ("positive" | "negative"), score :float}

@output(text)
@prompt("Summarise: {{text}}")
signature summarise(text :string) -> :string

## A clearly positive review.
test positive = classify(text = "I love it") -> {sentiment == "positive", score >= 0.5}
test negative = classify(text = "It broke") -> {"sentiment": "negative", "score": 0.2}
test anything = classify(text = "meh") -> valid
test wrong = classify(text = "I hate it") -> {sentiment == "positive"}
test summary = summarise(text = "a long text") -> {$ ~ "^A ", len($) < 100}
"""

MORE = """\
import "reviews.sig"

@repeat(5)
@min_pass_rate(0.6)
test flaky_ok = classify(text = "flaky one") -> {sentiment == "positive"}

@repeat(5)
@min_pass_rate(0.8)
test flaky_strict = classify(text = "flaky two") -> {sentiment == "positive"}

test retried = classify(text = "retry, love") -> {sentiment == "positive"}
"""


def project(folder: Path, url: str, *, extra: str = "", sig: str = SIG) -> Path:
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [tool.sigspec.test]
            model = "scripted"
            base_url = "{url}"
            api_key_env = "{KEY_ENV}"
            params = {{ temperature = 0, seed = 7 }}
            {extra}
            """
        ),
        encoding="utf-8",
    )
    (folder / "reviews.sig").write_text(sig, encoding="utf-8")
    return folder


def sigspec_test(folder: Path, *args: str, key: str | None = KEY) -> Any:
    env = {KEY_ENV: key} if key is not None else {}
    if key is None:
        os.environ.pop(KEY_ENV, None)
    return run_cli("test", *args, cwd=folder, env=env)


def rows(stdout: str) -> list[list[str]]:
    """The table's rows (after the header), split on runs of two spaces."""
    lines = stdout.split("\n\n", maxsplit=1)[0].splitlines()[1:]
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines]


def outcomes(stdout: str) -> dict[str, str]:
    return {row[0]: row[1] for row in rows(stdout)}


def test_record_then_replay_gives_the_same_results(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        recorded = sigspec_test(folder, "--record")
    assert recorded.returncode == 1, recorded.stderr  # `wrong` fails, as it should
    assert outcomes(recorded.stdout) == {
        "reviews.sig::positive": "pass",
        "reviews.sig::negative": "pass",
        "reviews.sig::anything": "pass",
        "reviews.sig::wrong": "fail",
        "reviews.sig::summary": "pass",
    }
    assert 'sentiment == "positive": sentiment is "negative"' in recorded.stdout
    assert "5 tests (live, recorded): 4 passed, 1 failed, 0 stale, 0 errors" in recorded.stderr
    cassettes = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.jsonl"))
    assert cassettes == [
        f"cassettes/reviews/{name}.jsonl"
        for name in ("anything", "negative", "positive", "summary", "wrong")
    ]
    # The server is gone: the replay reads the cassettes alone.
    replayed = sigspec_test(folder)
    assert replayed.returncode == 1
    assert rows(replayed.stdout) == rows(recorded.stdout)
    assert "(replayed from cassettes): 4 passed, 1 failed" in replayed.stderr


def test_a_cassette_records_the_request_body_and_the_reply(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        assert sigspec_test(folder, "-k", "positive", "--record").returncode == 0
        sent = server.bodies[0]
    lines = (folder / "cassettes/reviews/positive.jsonl").read_text(encoding="utf-8")
    header, turn = (json.loads(line) for line in lines.splitlines())
    assert header == {
        "file": "reviews.sig",
        "format": "sigspec-cassette/1",
        "model": "scripted",
        "provider": "openai",
        "signature": "classify",
        "test": "positive",
    }
    assert turn["request"] == sent  # the body the server got, params included
    assert sent["temperature"] == 0 and sent["seed"] == 7 and sent["model"] == "scripted"
    assert turn["reply"]["content"] == POSITIVE
    assert (turn["run"], turn["turn"]) == (1, 1)
    assert isinstance(turn["latency_ms"], int)


def test_re_recording_an_unchanged_answer_changes_no_byte(tmp_path: Path) -> None:
    with serving(Server(delay=0.05)) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "--record")
        before = {p: p.read_bytes() for p in folder.rglob("*.jsonl")}
        again = sigspec_test(folder, "--record")
    assert "cassette unchanged: cassettes/reviews/positive.jsonl" in again.stdout
    assert {p: p.read_bytes() for p in folder.rglob("*.jsonl")} == before


def test_a_changed_prompt_makes_the_test_stale(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "--record")
    sig = folder / "reviews.sig"
    sig.write_text(sig.read_text().replace("Classify this review", "Classify the review"))
    replayed = sigspec_test(folder)
    assert replayed.returncode == 1
    found = outcomes(replayed.stdout)
    assert found["reviews.sig::positive"] == "stale"
    assert found["reviews.sig::summary"] == "pass"  # its prompt did not change
    assert "the request changed since it was recorded" in replayed.stdout
    assert "run `sigspec test --record`" in replayed.stdout
    assert "0 passed" not in replayed.stderr and "4 stale" in replayed.stderr


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ('model = "other"', "recorded with openai scripted, configured openai other"),
        ("params = { temperature = 1 }", "the request changed since it was recorded"),
    ],
)
def test_a_changed_model_or_params_makes_the_test_stale(
    tmp_path: Path, extra: str, why: str
) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "-k", "positive", "--record")
    config = (folder / "pyproject.toml").read_text()
    key = extra.split(" =", maxsplit=1)[0]
    kept = [line for line in config.splitlines() if not line.startswith(key + " ")]
    (folder / "pyproject.toml").write_text("\n".join([*kept, extra]) + "\n")
    replayed = sigspec_test(folder, "-k", "positive")
    assert replayed.returncode == 1
    assert outcomes(replayed.stdout) == {"reviews.sig::positive": "stale"}
    assert why in replayed.stdout


def test_a_missing_cassette_fails_and_says_how_to_record(tmp_path: Path) -> None:
    folder = project(tmp_path, "http://127.0.0.1:9/v1")
    replayed = sigspec_test(folder, "-k", "positive")
    assert replayed.returncode == 1
    assert outcomes(replayed.stdout) == {"reviews.sig::positive": "fail"}
    assert "no cassette: run `sigspec test --record`" in replayed.stdout


def test_pass_rates_over_repeated_runs(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "more.sig").write_text(MORE, encoding="utf-8")
        recorded = sigspec_test(folder, "more.sig", "-k", "flaky*", "--record", "--jobs", "1")
        assert server.counts == {
            "Classify this review: flaky one\n" + _tail(server, "flaky one"): 5,
            "Classify this review: flaky two\n" + _tail(server, "flaky two"): 5,
        }
    assert recorded.returncode == 1
    expected = [
        ["more.sig::flaky_ok", "pass", "3/5 60% [23%-88%]", "5", "75"],
        ["more.sig::flaky_strict", "fail", "3/5 60% [23%-88%]", "5", "75"],
    ]
    assert [row[:5] for row in rows(recorded.stdout)] == expected
    assert "more.sig::flaky_strict (fail): pass rate 3/5 is below 0.8\n" in recorded.stdout
    assert 'run 2 (fail): sentiment == "positive": sentiment is "negative"' in recorded.stdout
    assert "run 1 (" not in recorded.stdout  # a passed run has no reason to give
    runs = (folder / "cassettes/more/flaky_ok.jsonl").read_text().splitlines()[1:]
    assert sorted(json.loads(line)["run"] for line in runs) == [1, 2, 3, 4, 5]
    replayed = sigspec_test(folder, "more.sig", "-k", "flaky*")
    assert [row[:5] for row in rows(replayed.stdout)] == expected
    fewer = sigspec_test(folder, "more.sig", "-k", "flaky_ok", "--repeat", "3")
    assert rows(fewer.stdout)[0][:3] == ["more.sig::flaky_ok", "pass", "2/3 67% [21%-94%]"]
    more = sigspec_test(folder, "more.sig", "-k", "flaky_ok", "--repeat", "6")
    assert more.returncode == 1
    assert "5 runs were recorded, 6 asked: run `sigspec test --record --repeat 6`" in more.stdout


def _tail(server: Server, text: str) -> str:
    """The rest of the user message after its first line (the shape instructions)."""
    prompt = next(p for p in server.counts if text in p)
    return prompt.split("\n", 1)[1]


def test_retry_turns_are_recorded_and_replayed(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "more.sig").write_text(MORE, encoding="utf-8")
        recorded = sigspec_test(folder, "-k", "retried", "--record", "--format", "json")
        assert len(server.bodies) == 2
        retry = server.bodies[1]["messages"]
    assert recorded.returncode == 0, recorded.stdout
    result = json.loads(recorded.stdout)["tests"][0]
    assert (result["result"], result["turns"]) == ("pass", 2)
    assert retry[-2] == {"role": "assistant", "content": "I am not JSON"}
    lines = (folder / "cassettes/more/retried.jsonl").read_text().splitlines()[1:]
    assert [json.loads(line)["turn"] for line in lines] == [1, 2]
    replayed = sigspec_test(folder, "-k", "retried", "--format", "json")
    (again,) = json.loads(replayed.stdout)["tests"]
    assert result.pop("notes") == ["cassette written: cassettes/more/retried.jsonl"]
    assert again.pop("notes") == []
    assert again == result


def test_a_client_asking_more_turns_than_recorded_is_stale(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "-k", "positive", "--record")
    cassette = folder / "cassettes/reviews/positive.jsonl"
    header, turn = cassette.read_text().splitlines()
    bad = json.loads(turn)
    bad["reply"]["content"] = "not an answer"  # the replay asks for a second turn
    cassette.write_text(header + "\n" + json.dumps(bad) + "\n")
    replayed = sigspec_test(folder, "-k", "positive")
    assert outcomes(replayed.stdout) == {"reviews.sig::positive": "stale"}
    assert "the client asked for turn 2, but 1 turn was recorded" in replayed.stdout


def test_a_lowered_max_turns_is_stale(tmp_path: Path) -> None:
    # Recorded: a retry in turn 2. With `@max_turns(1)` the client gives up after turn 1,
    # which the recording does not describe: stale, as a raised one asking turn 3 would be.
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "more.sig").write_text(MORE, encoding="utf-8")
        assert sigspec_test(folder, "-k", "retried", "--record").returncode == 0
    lowered = SIG.replace('@prompt("Classify', '@max_turns(1)\n@prompt("Classify')
    (folder / "reviews.sig").write_text(lowered, encoding="utf-8")
    replayed = sigspec_test(folder, "-k", "retried")
    assert outcomes(replayed.stdout) == {"more.sig::retried": "stale"}
    assert "the client finished after 1 turn, but 2 turns were recorded" in replayed.stdout


def test_junit_output(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "--record")
    done = sigspec_test(folder, "--format", "junit")
    assert done.returncode == 1
    root = ET.fromstring(done.stdout)
    assert root.tag == "testsuites"
    (suite,) = root
    assert suite.tag == "testsuite"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "1", "0")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("reviews.sig", n) for n in ("positive", "negative", "anything", "wrong", "summary")
    ]
    for case in cases:
        float(case.get("time") or "x")
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert properties["runs"] == "1" and "pass_rate" in properties
    failure = cases[3].find("failure")
    assert failure is not None and failure.get("type") == "fail"
    assert 'sentiment is "negative"' in (failure.get("message") or "")
    assert all(c.find("failure") is None for c in cases if c.get("name") != "wrong")


def test_junit_escapes_what_xml_cannot_hold() -> None:
    from sigspec.commands.test.report import as_junit, xml_text
    from sigspec.commands.test.run import RunResult, TestResult
    from sigspec.semantics import ir

    nasty = 'a <b> & "c" \x00\x1b\ud800 é 😀'
    test = ir.Test("t", "s", (), ())
    run = RunResult(1, "fail", nasty, 1, 0, 3, 0)
    text = as_junit([TestResult("x.sig::t", test, "fail", (run,), nasty)])
    root = ET.fromstring(text.encode("utf-8"))  # parses: nothing invalid left
    message = root.find(".//failure")
    assert message is not None
    assert message.get("message") == 'a <b> & "c" \\u0000\\u001b\\ud800 é 😀'
    assert xml_text("\t\n ok") == "\t\n ok"


def test_json_output(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "--record")
    done = sigspec_test(folder, "--format", "json", "-k", "wrong")
    data = json.loads(done.stdout)
    assert data["mode"] == "replay"
    assert data["summary"] == {"pass": 0, "fail": 1, "stale": 0, "error": 0}
    (test,) = data["tests"]
    assert set(test) == {
        "id", "file", "name", "signature", "result", "reason", "passed", "total",
        "pass_rate", "interval", "min_pass_rate", "turns", "tokens", "latency_ms",
        "repairs", "notes", "runs",
    }  # fmt: skip
    assert (test["id"], test["result"], test["passed"], test["total"]) == (
        "reviews.sig::wrong",
        "fail",
        0,
        1,
    )
    (run,) = test["runs"]
    assert run["output"] == {"sentiment": "negative", "score": 0.2}
    assert run["reason"] == 'sentiment == "positive": sentiment is "negative"'
    assert (run["turns"], run["tokens"]) == (1, 15)


def test_filters_by_name_and_by_file(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "more.sig").write_text(MORE, encoding="utf-8")
        sigspec_test(folder, "--record", "--repeat", "5")
    by_file = sigspec_test(folder, "more.sig")
    assert list(outcomes(by_file.stdout)) == [
        "more.sig::flaky_ok",
        "more.sig::flaky_strict",
        "more.sig::retried",
    ]
    substring = sigspec_test(folder, "-k", "ative")
    assert list(outcomes(substring.stdout)) == ["reviews.sig::negative"]
    glob = sigspec_test(folder, "-k", "reviews.sig::*i*")
    assert list(outcomes(glob.stdout)) == [
        "reviews.sig::positive",
        "reviews.sig::negative",
        "reviews.sig::anything",
    ]
    name_glob = sigspec_test(folder, "-k", "flaky_*")
    assert list(outcomes(name_glob.stdout)) == ["more.sig::flaky_ok", "more.sig::flaky_strict"]
    nothing = sigspec_test(folder, "-k", "nomatch")
    assert nothing.returncode == 1 and nothing.stdout == ""
    assert "no tests selected matching `nomatch`" in nothing.stderr


@pytest.mark.parametrize(
    ("config", "args", "said"),
    [
        ('[tool.sigspec.test]\nbase_url = "http://x"\n', (), "no model configured"),
        ('[tool.sigspec.test]\nmodel = "m"\nprovider = "acme"\n', (), "unknown provider `acme`"),
        ('[tool.sigspec.test]\nmodel = "m"\ntimeout = 3\n', (), "unknown key timeout"),
        ('[tool.sigspec.test]\nmodel = "m"\nconcurrency = 0\n', (), "`concurrency` must be"),
        (
            '[tool.sigspec.test]\nmodel = "m"\napi_key_env = "sk-abc 123"\n',
            (),
            "must be the NAME of an environment variable",
        ),
        (
            '[tool.sigspec.test]\nmodel = "m"\napi_key_env = "NOT_SET_ANYWHERE_42"\n',
            ("--live",),
            "NOT_SET_ANYWHERE_42 (`api_key_env`) is not set",
        ),
        (
            '[tool.sigspec.test]\nmodel = "m"\nparams = { stream = true }\n',
            ("--live",),
            "extra_body must not set stream",
        ),
    ],
)
def test_configuration_errors_exit_2(
    tmp_path: Path, config: str, args: tuple[str, ...], said: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    (tmp_path / "reviews.sig").write_text(SIG, encoding="utf-8")
    done = run_cli("test", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert "sk-abc 123" not in done.stderr
    assert "Traceback" not in done.stderr


def test_live_and_record_exclude_each_other(tmp_path: Path) -> None:
    folder = project(tmp_path, "http://127.0.0.1:9/v1")
    done = sigspec_test(folder, "--live", "--record")
    assert done.returncode == 2 and "exclude each other" in done.stderr


def test_a_project_with_errors_runs_nothing(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(
            tmp_path, server.url, sig=SIG + "test broken = classify(txt = 1) -> valid\n"
        )
        done = sigspec_test(folder, "--live")
        assert server.bodies == []
    assert done.returncode == 1
    assert "error[test-argument]" in done.stderr
    assert "no test was run" in done.stderr


def test_an_unreachable_model_is_an_error_and_keeps_the_cassette(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        sigspec_test(folder, "-k", "positive", "--record")
    before = (folder / "cassettes/reviews/positive.jsonl").read_bytes()
    config = folder / "pyproject.toml"
    config.write_text(config.read_text().replace(server.url, "http://127.0.0.1:9/v1"))
    config.write_text(config.read_text() + "\n")
    done = run_cli("test", "-k", "positive", "--record", cwd=folder, env={KEY_ENV: KEY})
    assert done.returncode == 1
    assert outcomes(done.stdout) == {"reviews.sig::positive": "error"}
    assert "cassette not written" in done.stdout
    assert (folder / "cassettes/reviews/positive.jsonl").read_bytes() == before


def test_concurrent_runs_overlap_and_keep_declaration_order(tmp_path: Path) -> None:
    with serving(Server(delay=0.3)) as server:
        folder = project(tmp_path, server.url)
        parallel = sigspec_test(folder, "--live", "--jobs", "5")
        overlapping = server.most_in_flight
        server.most_in_flight = 0
        serial = sigspec_test(folder, "--live", "--jobs", "1")
        one_at_a_time = server.most_in_flight
    assert overlapping > 1 and one_at_a_time == 1
    names = ["positive", "negative", "anything", "wrong", "summary"]
    for done in (parallel, serial):
        assert list(outcomes(done.stdout)) == [f"reviews.sig::{n}" for n in names]
    assert not list(folder.rglob("*.jsonl"))  # --live records nothing


def test_ctrl_c_starts_no_further_run_and_writes_no_cassette(tmp_path: Path) -> None:
    with serving(Server(delay=0.3)) as server:
        folder = project(tmp_path, server.url)
        command = [sys.executable, "-m", "sigspec", "test", "--record", "-k", "positive"]
        process = subprocess.Popen(
            [*command, "--repeat", "40", "--jobs", "1"],
            cwd=folder,
            env={**os.environ, KEY_ENV: KEY},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while len(server.bodies) < 2 and time.monotonic() < deadline:  # running, not loading
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        asked = len(server.bodies)
    assert process.returncode == 1
    assert asked < 10  # the queued runs (12 s of them) were not started
    assert "error: interrupted: no further run was started; no cassette was written" in err
    assert "Traceback" not in err
    assert not list(folder.rglob("*.jsonl"))


def test_tests_whose_cassettes_differ_only_in_case_are_not_run(tmp_path: Path) -> None:
    # On macOS and Windows `Positive.jsonl` is `positive.jsonl`: one would hold the other's
    # runs. The first keeps it; the second is an error, also when `-k` selects it alone.
    twin = 'test Positive = classify(text = "I love it too") -> valid\n'
    with serving(Server()) as server:
        folder = project(tmp_path, server.url, sig=SIG + twin)
        done = sigspec_test(folder, "--record", "-k", "Positive")
        both = sigspec_test(folder, "--record", "-k", "*ositive")
    assert done.returncode == 1
    assert outcomes(done.stdout) == {"reviews.sig::Positive": "error"}
    assert (
        "its cassette cassettes/reviews/Positive.jsonl differs from reviews.sig::positive's "
        "only in case, which macOS and Windows do not tell apart: rename one of the two tests"
    ) in done.stdout
    assert outcomes(both.stdout) == {
        "reviews.sig::positive": "pass",
        "reviews.sig::Positive": "error",
    }
    assert [p.name for p in folder.rglob("*.jsonl")] == ["positive.jsonl"]


def test_a_test_named_as_a_windows_device_is_not_run(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(
            tmp_path, server.url, sig=SIG + 'test Con = classify(text = "x") -> valid\n'
        )
        done = sigspec_test(folder, "--record", "-k", "Con")
    assert outcomes(done.stdout) == {"reviews.sig::Con": "error"}
    said = "its cassette Con.jsonl would be a device on Windows, which reserves the name `Con`"
    assert said in done.stdout
    assert not list(folder.rglob("*.jsonl"))


def test_a_cassette_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "cassettes/reviews/positive.jsonl").mkdir(parents=True)  # in the way
        done = sigspec_test(folder, "--record", "-k", "*tive")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert outcomes(done.stdout) == {
        "reviews.sig::positive": "error",
        "reviews.sig::negative": "pass",
    }
    said = "its cassette cassettes/reviews/positive.jsonl could not be written ("
    assert said in done.stdout
    assert (folder / "cassettes/reviews/negative.jsonl").is_file()


def test_from_a_subfolder_the_whole_project_runs(tmp_path: Path) -> None:
    folder = project(tmp_path, "http://127.0.0.1:9/v1")  # replayed: no model is asked
    (folder / "more").mkdir()
    (folder / "more/more.sig").write_text(MORE.replace('"reviews.sig"', '"../reviews.sig"'))
    other = 'import "reviews.sig"\n\ntest elsewhere = classify(text = "x") -> valid\n'
    (folder / "other.sig").write_text(other)  # imported by no file below more/
    whole = sigspec_test(folder / "more")
    assert len(outcomes(whole.stdout)) == 9  # every file's, not only those more/ reaches
    assert "other.sig::elsewhere" in outcomes(whole.stdout)
    below = sigspec_test(folder / "more", ".")
    assert list(outcomes(below.stdout)) == [
        "more/more.sig::flaky_ok",
        "more/more.sig::flaky_strict",
        "more/more.sig::retried",
    ]


def test_no_cassette_holds_the_key_or_an_authorization_header(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        (folder / "more.sig").write_text(MORE, encoding="utf-8")
        done = sigspec_test(folder, "--record")
        assert set(server.authorizations) == {f"Bearer {KEY}"}  # the key was sent
    files = list(folder.rglob("*.jsonl"))
    assert len(files) == 8
    for path in files:
        data = path.read_bytes()
        assert KEY.encode() not in data
        assert b"authorization" not in data.lower()
        assert b"bearer" not in data.lower()
    assert KEY not in done.stdout + done.stderr


def test_a_key_echoed_by_the_server_is_redacted(tmp_path: Path) -> None:
    def echo(prompt: str, count: int) -> str:
        return f"my key is {KEY}"

    with serving(Server(answer=echo)) as server:
        folder = project(tmp_path, server.url)
        done = sigspec_test(folder, "-k", "summary", "--record", "--format", "json")
    assert KEY not in done.stdout + done.stderr
    assert "my key is [redacted]" in done.stdout
    assert KEY.encode() not in (folder / "cassettes/reviews/summary.jsonl").read_bytes()


def test_a_placeholder_key_is_not_redacted_out_of_the_cassettes(tmp_path: Path) -> None:
    # Local servers take any key: `k` is no secret, and replacing it would break `tokens`.
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        recorded = sigspec_test(folder, "-k", "positive", "--record", key="k")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = (folder / "cassettes/reviews/positive.jsonl").read_text(encoding="utf-8")
    assert "[redacted]" not in text + recorded.stdout
    assert '"tokens": {"input": 11, "output": 4}' in text
    replayed = sigspec_test(folder, "-k", "positive")
    assert rows(replayed.stdout) == rows(recorded.stdout)


def test_text_signatures_are_judged_on_their_text(tmp_path: Path) -> None:
    with serving(Server()) as server:
        folder = project(tmp_path, server.url)
        done = sigspec_test(folder, "-k", "summary", "--live", "--format", "json")
    (test,) = json.loads(done.stdout)["tests"]
    assert test["result"] == "pass"
    assert test["runs"][0]["output"] == "A short summary."


# ---- a real model -------------------------------------------------------------------------

REAL_SIG = """\
@output(json)
@prompt("Classify the sentiment of this product review:\\n\\n{{text}}")
@max_turns(3)
signature classify(text :string) -> {
  sentiment ("positive" | "negative" | "neutral"),
  score :float @min(0) @max(1)
}

test happy = classify(text = "I love it, it works perfectly.") -> valid
test angry = classify(text = "Broken. Refund!") -> {sentiment in ["negative", "neutral"]}
"""


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import real_model

    reason = real_model.missing()
    if reason is not None:
        real_model.unavailable(reason)
    model = real_model.gguf()
    assert model is not None
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with real_model.serve(model, log) as running:
        yield running


def test_record_against_a_real_model_then_replay_offline(tmp_path: Path, real_server: Any) -> None:
    import real_model

    params = ", ".join(f"{k} = {json.dumps(v)}" for k, v in real_model.SAMPLING.items())
    (tmp_path / "sigspec.toml").write_text(
        f'[test]\nmodel = "{real_server.model}"\nbase_url = "{real_server.base_url}"\n'
        f"params = {{ {params} }}\nconcurrency = 1\n",
        encoding="utf-8",
    )
    (tmp_path / "reviews.sig").write_text(REAL_SIG, encoding="utf-8")
    recorded = run_cli("test", "--record", cwd=tmp_path)
    assert recorded.returncode in (0, 1), recorded.stderr
    assert "Traceback" not in recorded.stderr
    found = outcomes(recorded.stdout)
    assert list(found) == ["reviews.sig::happy", "reviews.sig::angry"]
    assert set(found.values()) <= {"pass", "fail"}  # reached the model: no error, no stale
    assert len(list(tmp_path.rglob("*.jsonl"))) == 2
    replayed = run_cli("test", cwd=tmp_path)
    assert replayed.returncode == recorded.returncode
    assert rows(replayed.stdout) == rows(recorded.stdout)


# ---- the official SDKs ----------------------------------------------------------------------

OK_SIG = """\
@output(json)
@prompt("Is this fine? {{text}}")
signature fine(text :string) -> {ok :bool}

test fine_yes = fine(text = "yes") -> {ok == true}
"""


# `params` as each SDK takes them: body fields (Anthropic), `config` fields (Gemini), `chat`'s
# arguments (Ollama: sampling goes in `options`).
PARAMS = {
    "anthropic": "{ temperature = 0, max_tokens = 64 }",
    "gemini": "{ temperature = 0 }",
    "ollama": "{ options = { temperature = 0 } }",
}


@pytest.mark.parametrize("provider", ["anthropic", "gemini", "ollama"])
def test_sdk_providers_record_and_replay(tmp_path: Path, provider: str) -> None:
    from recording_server import recording_server

    with recording_server() as recorder:
        (tmp_path / "sigspec.toml").write_text(
            f'[test]\nprovider = "{provider}"\nmodel = "m"\nbase_url = "{recorder.url}"\n'
            f'api_key_env = "{KEY_ENV}"\nparams = {PARAMS[provider]}\n',
            encoding="utf-8",
        )
        (tmp_path / "ok.sig").write_text(OK_SIG, encoding="utf-8")
        recorded = run_cli("test", "--record", cwd=tmp_path, env={KEY_ENV: KEY})
        assert len(recorder.requests) == 1, recorded.stdout + recorded.stderr
        (sent,) = recorder.requests
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert outcomes(recorded.stdout) == {"ok.sig::fine_yes": "pass"}
    cassette = (tmp_path / "cassettes/ok/fine_yes.jsonl").read_text(encoding="utf-8")
    header, turn = (json.loads(line) for line in cassette.splitlines())
    assert header["provider"] == provider
    assert KEY not in cassette
    if provider != "gemini":  # Gemini's SDK sends the body in its own form
        # The body built for the SDK, as the SDK sends it (Ollama's adds `"tools": []`).
        sent_body = {k: v for k, v in sent.body.items() if (k, v) != ("tools", [])}
        assert turn["request"] == sent_body
    replayed = run_cli("test", cwd=tmp_path)
    assert replayed.returncode == 0 and rows(replayed.stdout) == rows(recorded.stdout)


def test_a_missing_sdk_is_a_configuration_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "sigspec.toml").write_text(
        '[test]\nprovider = "anthropic"\nmodel = "m"\n', encoding="utf-8"
    )
    (tmp_path / "ok.sig").write_text(OK_SIG, encoding="utf-8")
    # The SDK made unimportable, as in an environment without it.
    code = "import sys; sys.modules['anthropic'] = None; from sigspec.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "test", "--live"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "provider `anthropic` needs its official SDK: pip install anthropic" in done.stderr


def test_threads_parsing_their_first_replies_at_once_load_the_parser_once() -> None:
    """`sigspec test` runs calls in threads: the runtime's lazily loaded reply parser must
    survive its first use from several at once (it was extended once per thread)."""
    from sigspec.runtime import validate

    def valid(value: Any, punt: Any) -> Any:
        return value

    validate._PARSER.clear()
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def parse() -> None:
        barrier.wait()
        try:
            validate.parse_checked('{"a": 1}', ("any",), {}, valid)
        except BaseException as exc:  # collected for the assertion
            failures.append(exc)

    threads = [threading.Thread(target=parse) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(validate._PARSER) == 3


def test_an_sdk_refusing_its_settings_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "sigspec.toml").write_text('[test]\nprovider = "gemini"\nmodel = "m"\n')
    (tmp_path / "ok.sig").write_text(OK_SIG, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "GEMINI_API_KEY")}
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "sigspec", "test", "--live"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: gemini: ValueError:")
    assert "Traceback" not in done.stderr


def test_the_endpoint_never_shows_its_key() -> None:
    from sigspec.commands.test.live import Endpoint

    endpoint = Endpoint("openai", "m", None, {}, KEY)
    assert KEY not in repr(endpoint) and KEY not in str(endpoint)


def test_the_examples_replay_from_their_cassettes_and_pass() -> None:
    """The cassettes committed with the examples, recorded against a real model, replay
    offline: every test passes, none is stale (a change of a prompt or schema in the
    examples must come with re-recorded cassettes)."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    result = run_cli("test", "--format", "json", cwd=examples)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["mode"] == "replay"
    assert {t["result"] for t in report["tests"]} == {"pass"}
    assert len(report["tests"]) >= 4
    repeated = [t for t in report["tests"] if t["total"] > 1]
    assert repeated and all(t["interval"][0] < t["pass_rate"] for t in repeated)
    for cassette in (examples / "cassettes").rglob("*.jsonl"):
        text = cassette.read_text("utf-8").lower()
        assert "authorization" not in text and "bearer" not in text, cassette
