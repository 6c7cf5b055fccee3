"""The answer patterns as GBNF (agent_core/providers/local/gbnf.py).

llama.cpp is not needed here: the GBNF written for a pattern is read back into a Python regex
(:func:`gbnf_regex`, a reader for the subset gbnf.py writes) and must accept exactly the JSON text
of the strings the original pattern accepts. The real model uses these grammars in the
``local_model`` tests (every planned answer that must state a figure).
"""

from __future__ import annotations

import json
import re

import pytest

from agent_core.providers.local import gbnf
from agent_core.providers.local.plan import Required, answer_pattern
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
    return output_schema([], force_tool=False, answer_pattern=pattern, answer_max_chars=None)


def same_language(pattern: str, samples: list[str]) -> None:
    """The GBNF accepts the JSON text of each sample exactly when the pattern accepts the sample."""
    grammar = value_regex(answer_schema(pattern))
    for text in samples:
        json_text = json.dumps(text, ensure_ascii=False)[1:-1]
        assert bool(grammar.fullmatch(json_text)) == bool(re.fullmatch(pattern, text)), text


SEED = answer_pattern(
    ["24", "7", "168"],
    goal="단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    required=[Required(("168",), "168 (calculator: 24 * 7)")],
)


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


@pytest.mark.parametrize("language", ["Korean", "English"])
def test_a_not_found_sentence_reads_the_same_as_gbnf(language: str) -> None:
    pattern = answer_pattern(["3"], not_found=language, goal="What is the warranty on the X200?")
    same_language(
        pattern,
        [
            "Sorry, I could not find the warranty period for the X200.",
            "I could not find it. Then more.",
            "죄송합니다, 보증 기간을 찾을 수 없습니다.",
            "죄송하지만 3년 보증은 찾을 수 없습니다.",
            "I could not find it in 3 documents.",
            "I could not find it in 4 documents.",
        ],
    )


def test_several_required_facts_with_words_read_the_same_as_gbnf() -> None:
    required = [Required(("18",), "18 (Seoul)", ("Seoul", "서울")), Required(("9",), "9 (London)", ("London",))]
    pattern = answer_pattern(["18", "9", "9.5"], goal="Is Seoul warmer than London?", required=required)
    same_language(
        pattern,
        [
            "Seoul is 18°C and London is 9°C, so Seoul is warmer.",
            "London is 9°C and Seoul is 18°C.",  # out of order
            "Seoul is 18°C, London 9.5°C… no, London is 9°C.",
            "Seoul is 18°C.",
            "서울은 18°C, London은 9°C입니다.",
        ],
    )


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
    assert uses_llguidance(output_grammar(schema))


def test_only_the_answer_only_schema_with_a_pattern_and_no_length_becomes_gbnf(registry_tools: list) -> None:
    assert not uses_llguidance(output_grammar(answer_schema(SEED)))
    with_length = output_schema([], force_tool=False, answer_pattern=SEED, answer_max_chars=400)
    assert uses_llguidance(output_grammar(with_length))  # a length with a pattern: llguidance's
    assert uses_llguidance(output_grammar(output_schema([], force_tool=False)))  # no pattern
    tools_too = output_schema(registry_tools, force_tool=False, answer_pattern=SEED, answer_max_chars=None)
    assert uses_llguidance(output_grammar(tools_too))  # an answer or a tool call
    assert uses_llguidance(output_grammar(answer_schema(SEED), gbnf=False))


@pytest.fixture
def registry_tools() -> list:
    from agent_core.settings import Settings
    from agent_core.tools.builtins import build_default_registry

    return list(build_default_registry(Settings.from_env({})).subset(["calculator"]))
