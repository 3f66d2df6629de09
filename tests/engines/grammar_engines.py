"""The real grammar engines behind vLLM and Ollama, driven with a synthetic byte-level
vocabulary (256 byte tokens and an end token; nothing downloads).

- xgrammar 0.2.8 and llguidance 1.9.1 compile a JSON Schema as vLLM asks them to (any
  whitespace between tokens).
- llama.cpp's JSON-Schema-to-grammar converter (the one Ollama's `format` goes through) is a
  program `.ci/run` builds from the `llama-cpp-python` sdist (`tests/engines/llama_cpp.cpp`);
  its path comes in `SIGSPEC_LLAMA_CPP_CONVERTER`. Its GBNF grammar is run by llguidance
  (`gbnf_to_lark`), which reads GBNF as llama.cpp's sampler does.

Each `accepts(schema, text)` says whether the engine lets a model produce `text` whole.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from functools import lru_cache
from typing import Any

import llguidance
from llguidance.gbnf_to_lark import gbnf_to_lark

EOS = 256
CONVERTER = "SIGSPEC_LLAMA_CPP_CONVERTER"


class _ByteVocabulary:
    eos_token_id = EOS
    bos_token_id = None
    tokens = (*(bytes([i]) for i in range(256)), b"<eos>")
    special_token_ids = (EOS,)

    def __call__(self, text: bytes) -> list[int]:
        return list(text)


LL_TOKENIZER = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteVocabulary()))


class Refused(Exception):
    """The engine does not compile the schema (the message is the engine's)."""


def _matcher(grammar: str) -> llguidance.LLMatcher:
    matcher = llguidance.LLMatcher(LL_TOKENIZER, grammar, log_level=0)
    if matcher.is_error():
        raise Refused(matcher.get_error())
    return matcher


def _ll_accepts(grammar: str, text: str) -> bool:
    matcher = _matcher(grammar)
    ok = matcher.consume_tokens(list(text.encode()))
    return bool(ok) and not matcher.is_error() and matcher.is_accepting()


@lru_cache(maxsize=256)
def _llguidance_grammar(schema_text: str) -> str:
    grammar = llguidance.LLMatcher.grammar_from_json_schema(
        schema_text, defaults={"whitespace_flexible": True}
    )
    _matcher(grammar)
    return grammar


def llguidance_accepts(schema: Any, text: str) -> bool:
    return _ll_accepts(_llguidance_grammar(json.dumps(schema)), text)


@lru_cache(maxsize=1)
def _xgrammar() -> Any:
    import xgrammar

    vocabulary = [bytes([i]) for i in range(256)] + [b"<eos>"]
    info = xgrammar.TokenizerInfo(vocabulary, xgrammar.VocabType.RAW, stop_token_ids=[EOS])
    return xgrammar, xgrammar.GrammarCompiler(info, cache_enabled=False)


@lru_cache(maxsize=256)
def _xgrammar_compiled(schema_text: str) -> Any:
    _, compiler = _xgrammar()
    try:
        return compiler.compile_json_schema(schema_text, any_whitespace=True)
    except RuntimeError as exc:
        raise Refused(str(exc)) from exc


def xgrammar_accepts(schema: Any, text: str) -> bool:
    xgrammar, _ = _xgrammar()
    matcher = xgrammar.GrammarMatcher(_xgrammar_compiled(json.dumps(schema)))
    return bool(matcher.accept_string(text)) and bool(matcher.accept_token(EOS))


def llama_cpp_gbnf(schema: Any) -> tuple[str, str]:
    """(the GBNF grammar, the converter's warnings) for `schema`."""
    program = os.environ.get(CONVERTER)
    assert program, f"{CONVERTER} names no llama.cpp converter (.ci/run builds one)"
    done = subprocess.run(
        [program], input=json.dumps(schema), capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise Refused(done.stderr.strip())
    return done.stdout, done.stderr.strip()


# gbnf_to_lark unwraps a group of one item, `("a"+)*` becoming `"a"+*` and a repeated group
# repeated again becoming `(("a" | "b"))+*`: wrapped again.
_ITEM = r'"(?:[^"\\]|\\.)*"|/(?:[^/\\]|\\.)*/|[^()"/]'
_GROUP = rf"\((?:{_ITEM}|\((?:{_ITEM})*\))*\)"  # a group, holding groups one level deep
_TWICE = re.compile(
    rf'("(?:[^"\\]|\\.)*"|/(?:[^/\\]|\\.)*/|[A-Za-z_][\w]*|{_GROUP})'
    r"([*+?]|\{[\d,]*\})([*+?]|\{[\d,]*\})"
)


def _as_rules(lark: str) -> str:
    """gbnf_to_lark makes rules of terminals alone into Lark terminals, which llguidance
    lexes greedily (`R1: /[0-9a]/ "a"` takes "9a" whole where llama.cpp's character-level
    sampler may take the "a" alone): each becomes a rule, as GBNF means it."""
    for name in re.findall(r"^([A-Z][A-Z0-9_]*):", lark, re.MULTILINE):
        lark = re.sub(rf"\b{name}\b", f"t_{name.lower()}", lark)
    return lark


@lru_cache(maxsize=256)
def _llama_cpp_grammar(schema_text: str) -> str:
    gbnf, _ = llama_cpp_gbnf(json.loads(schema_text))
    lark = _as_rules(_TWICE.sub(r"(\1\2)\3", gbnf_to_lark(gbnf)))
    grammar = llguidance.LLMatcher.grammar_from_lark(lark)
    _matcher(grammar)
    return grammar


def llama_cpp_accepts(schema: Any, text: str) -> bool:
    return _ll_accepts(_llama_cpp_grammar(json.dumps(schema)), text)


ENGINES = {
    "xgrammar": xgrammar_accepts,
    "llguidance": llguidance_accepts,
    "llama.cpp": llama_cpp_accepts,
}
# Which engines run which provider's schema.
PROVIDER_ENGINES = {
    "vllm": ("xgrammar", "llguidance"),
    "openai": ("xgrammar", "llguidance"),
    "ollama": ("llama.cpp",),
}
