"""llguidance (light, in the test extra) in the default run: the vLLM and OpenAI schemas of
the examples compile, and it agrees with the validator on vLLM's. The other engines
(xgrammar, llama.cpp) and the random signatures run in tests/engines/ (`.ci/run`)."""

from __future__ import annotations

from tests.engines.agreement import run

from conftest import EXAMPLES


def test_llguidance_agrees_with_the_validator_on_the_examples() -> None:
    counts = run(sorted(EXAMPLES.glob("*.sig")), ("vllm", "openai"), engines=("llguidance",))
    assert set(counts) == {"vllm/llguidance", "openai/llguidance"}
    for key, tally in counts.items():
        assert not tally.refused and not tally.disagree, (key, tally.refused, tally.disagree)
    vllm = counts["vllm/llguidance"]
    assert vllm.agree > 500 and not vllm.narrower, vllm.narrower[:5]
