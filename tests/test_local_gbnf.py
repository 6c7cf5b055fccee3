"""The answer patterns as GBNF (agent_core/providers/local/gbnf.py).

llama.cpp is not needed here: the GBNF written for a pattern is read back into a Python regex
(:func:`gbnf_regex`, a reader for the subset gbnf.py writes) and must accept exactly the JSON text
of the strings the original pattern accepts. The provider's steps use llguidance (they start with a
thought line); an answer-only grammar without one (``output_grammar(…, thought=False)``) is GBNF.
"""

from __future__ import annotations

import json
import re

import pytest

from agent_core.providers.local import gbnf
from agent_core.providers.local.figures import answer_pattern
from agent_core.providers.local.prompt import output_grammar, output_schema, uses_llguidance

_TOKEN = re.compile(r'\s+|"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|[()|*+?]|\{\d+(?:,\d*)?\}')


def _unescape_gbnf(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "xu":
            width = 2 if nxt == "x" else 4
            out.append(chr(int(text[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
            i += 2
    return "".join(out)


def gbnf_regex(expression: str) -> str:
    """A Python regex for a GBNF expression of literals, classes, groups, | and quantifiers."""
    out, at = [], 0
    while at < len(expression):
        m = _TOKEN.match(expression, at)
        assert m, f"unexpected GBNF at {at}: {expression[at : at + 30]!r}"
        token, at = m.group(0), m.end()
        if token.isspace():
            continue
        if token.startswith('"'):
            out.append("(?:" + re.escape(_unescape_gbnf(token[1:-1])) + ")")
        elif token.startswith("["):
            body = token[1:-1]
            chars, i = [], 0
            while i < len(body):  # one character, escaped or not, or a "-" between two
                if body[i] == "\\":
                    width = {"x": 2, "u": 4}.get(body[i + 1], 0)
                    char = _unescape_gbnf(body[i : i + 2 + width])
                    i += 2 + width
                else:
                    char, i = body[i], i + 1
                chars.append(re.escape(char) if char != "-" or not chars else "\\-")
                if i < len(body) and body[i] == "-":
                    chars.append("-")
                    i += 1
            out.append("[" + "".join(chars) + "]")
        else:
            out.append(token if token != "(" else "(?:")
    return "".join(out)


def value_regex(schema: dict) -> re.Pattern[str]:
    grammar = gbnf.answer_grammar(schema)
    assert grammar is not None
    lines = grammar.splitlines()
    assert lines[0] == gbnf.SCHEMA_COMMENT + json.dumps(schema, ensure_ascii=False)
    assert lines[1] == 'root ::= "{\\"answer\\": \\"" value "\\"}"'
    assert lines[2].startswith("value ::= ")
    return re.compile(gbnf_regex(lines[2][len("value ::= ") :]))


def answer_schema(pattern: str) -> dict:
    return output_schema([], answer_pattern=pattern, answer_max_chars=None)


def same_language(pattern: str, samples: list[str]) -> None:
    """The GBNF accepts the JSON text of each sample exactly when the pattern accepts the sample."""
    grammar = value_regex(answer_schema(pattern))
    for text in samples:
        json_text = json.dumps(text, ensure_ascii=False)[1:-1]
        assert bool(grammar.fullmatch(json_text)) == bool(re.fullmatch(pattern, text)), text


SEED_GOAL = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
SEED = answer_pattern(["24", "7", "168"], goal=SEED_GOAL)


def test_the_seed_answers_pattern_reads_the_same_as_gbnf() -> None:
    same_language(
        SEED,
        [
            "제품 7개의 총 가격은 $168입니다.",
            "The total is $168.",
            "168",
            "The total is $1680.",  # a figure no result has
            "The total is $169.",
            "제품 7개의 가격은 $24 × 7 = 168입니다.",
            "No figure at all.",
            "It costs 168.5",  # runs on into a made-up figure
            'He said "168" \\ twice',  # a quote and a backslash, which JSON escapes
            "Line one\nline two 168",  # a control character: never in an answer
            "가격: 24달러, 합계 168달러.",
        ],
    )
    assert re.fullmatch(SEED, "The total is $168.") and not re.fullmatch(SEED, "The total is $169.")


def test_an_answer_in_the_goals_own_script_reads_the_same_as_gbnf() -> None:
    pattern = answer_pattern(["200", "3"], goal="東京の天気は?")
    same_language(pattern, ["東京は200度です。", "東京は201度です。", "3 days", "Привет 3", "It is 200 °C."])


def test_the_quantifiers_and_escapes_it_converts() -> None:
    for pattern, samples in [
        (
            r"^a{2,3}b?c+[x\-z]\.\(\)$",
            ["aabcc.()", "aaacx.()", "aaab-c.()", "aabbcx.()", "abcc.()", "aac.()", "aacy.()", "aacz-.()"],
        ),
        (r"^(?:ab|c)*(x|)$", ["", "ababc", "ababcx", "abx", "ba"]),
        (r"^[A-C]{2}$", ["AB", "A", "ABC", "ac"]),
    ]:
        same_language(pattern, samples)


@pytest.mark.parametrize(
    "pattern",
    [
        r"^\d+$",  # a class escape
        r"^(?=a)a$",  # a lookahead
        r"^[^a]$",  # a negated class
        r"^a.b$",  # any character
        r"^a+?$",  # lazy
        "^abc",  # not anchored at the end
    ],
)
def test_a_pattern_outside_the_subset_stays_with_llguidance(pattern: str) -> None:
    schema = answer_schema(pattern)
    assert gbnf.answer_grammar(schema) is None
    assert uses_llguidance(output_grammar(schema, thought=False))


def test_only_the_answer_only_schema_with_a_pattern_and_no_length_becomes_gbnf(registry_tools: list) -> None:
    assert not uses_llguidance(output_grammar(answer_schema(SEED), thought=False))
    with_length = {**answer_schema(SEED)}
    with_length["properties"] = {"answer": {"type": "string", "pattern": SEED, "maxLength": 400}}
    assert uses_llguidance(output_grammar(with_length, thought=False))  # a length with a pattern: llguidance's
    assert uses_llguidance(output_grammar(output_schema([]), thought=False))  # no pattern
    tools_too = output_schema(registry_tools, answer_pattern=SEED, answer_max_chars=None)
    assert uses_llguidance(output_grammar(tools_too, thought=False))  # an answer or a tool call
    assert uses_llguidance(output_grammar(answer_schema(SEED), gbnf=False, thought=False))
    # With the thought line (every step of the provider), llguidance's whatever the schema.
    assert uses_llguidance(output_grammar(answer_schema(SEED)))


@pytest.fixture
def registry_tools() -> list:
    from agent_core.settings import Settings
    from agent_core.tools.builtins import build_default_registry

    return list(build_default_registry(Settings.from_env({})).subset(["calculator"]))
