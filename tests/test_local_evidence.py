"""Evidence for the local model's answer (providers/local/evidence.py): which result sentence
answers the goal, and when the answer must say "not found". Real tool outputs of the sample
workspace (the search, the lookup), no model; one test drives the provider on a fake llama.cpp
server to see the "not found" answer grammar applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.providers import local
from agent_core.providers.base import ModelRequest
from agent_core.providers.local.evidence import (
    MAX_READ_CHARS,
    conditions,
    english_query,
    evidence_lines,
    focus_clause,
    goal_parts,
    must_say_not_found,
    not_found,
    pick_evidence,
    result_sentences,
)
from agent_core.providers.local.plan import answer_reminder, comparisons, plan_step, planned_call
from agent_core.providers.local.prompt import grammar_schema
from agent_core.tools.files import make_file_tools
from agent_core.tools.knowledge import lookup
from agent_core.tools.registry import ToolRegistry

WORKSPACE = Path(__file__).resolve().parents[1] / "agent_data" / "workspace"
_read_file, _search = make_file_tools(WORKSPACE)


def block(*calls: tuple[str, dict[str, object], str], error: bool = False) -> ContextBlock:
    """One block per call list: ``(tool, arguments, output)``."""
    requests = [ToolCallRequest(f"c{i}", name, args) for i, (name, args, _) in enumerate(calls)]
    outputs = [ToolOutput(f"c{i}", name, out, error) for i, (name, _, out) in enumerate(calls)]
    return ContextBlock(index=0, step=1, provider="local", tool_calls=requests, outputs=outputs)


def search(query: str) -> ContextBlock:
    return block(("search_documents", {"query": query}, _search(query, 3)))


def looked_up(topic: str) -> ContextBlock:
    return block(("lookup", {"topic": topic}, lookup(topic)))


SHIPPING_SNIPPET = json.dumps(
    [
        {
            "document": "shipping_policy.md",
            "section": "Shipping costs below $500",
            "score": 11.6,
            "snippet": "Orders under $500 pay a flat shipping fee of $15 for standard delivery inside Korea and $35 for "
            "international delivery. Express delivery costs $25 extra on any order.",
        }
    ]
)
KOREAN_SNIPPET = json.dumps(
    [
        {
            "document": "환불_안내.md",
            "section": "배송 정책",
            "score": 5.0,
            "snippet": "$500 이상 구매 시 무료 배송입니다. $500 미만 주문은 국내 일반 배송비 $15, 해외 배송비 $35가 붙습니다. "
            "국내 일반 배송은 영업일 기준 2~3일, 해외 배송은 5~10일이 걸립니다.",
        }
    ],
    ensure_ascii=False,
)


# ---------------------------------------------------------------------------------------------
# Conditions and clauses


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("an international order under $500", {("<", 500.0)}),
        ("free shipping on orders of $500 or more", {(">=", 500.0)}),
        ("orders above $480 were topped up", {(">=", 480.0)}),
        ("$500 미만 주문은", {("<", 500.0)}),
        ("500달러 이상 사면", {(">=", 500.0)}),
        ("$1,000 or less", {("<", 1000.0)}),
        ("What is 17% of 2,340?", set()),
    ],
)
def test_conditions(text: str, expected: set[tuple[str, float]]) -> None:
    assert conditions(text) == expected


@pytest.mark.parametrize(
    ("goal", "sentence", "expected"),
    [
        (
            "What's the shipping fee for an international order under $500?",
            "Orders under $500 pay a flat shipping fee of $15 for standard delivery inside Korea and $35 for "
            "international delivery.",
            "Orders under $500 pay a flat shipping fee of $35 for international delivery",
        ),
        (
            "What's the shipping fee inside Korea?",
            "Orders under $500 pay a flat shipping fee of $15 for standard delivery inside Korea and $35 for "
            "international delivery.",
            "Orders under $500 pay a flat shipping fee of $15 for standard delivery inside Korea",
        ),
        (
            "해외 배송비는 얼마예요?",
            "$500 미만 주문은 국내 일반 배송비 $15, 해외 배송비 $35가 붙습니다.",
            "해외 배송비 $35가 붙습니다",
        ),
        # Durations too: "2~3일" is the domestic one.
        (
            "해외 배송은 며칠 걸려요?",
            "국내 일반 배송은 영업일 기준 2~3일, 해외 배송은 5~10일이 걸립니다.",
            "해외 배송은 5~10일이 걸립니다",
        ),
        # One amount, or nothing in the goal to tell the clauses apart: no clause.
        ("How much extra does express delivery cost?", "Express delivery costs $25 extra on any order.", None),
        ("What are the shipping fees?", "a fee of $15 for standard delivery and $35 for express delivery.", None),
        # Not amounts of money: left whole.
        ("How many units get a 10% discount?", "Sora proposed a third discount tier (1,000 units, 15%);", None),
    ],
)
def test_focus_clause(goal: str, sentence: str, expected: str | None) -> None:
    assert focus_clause(goal, sentence) == expected


def test_goal_parts() -> None:
    assert goal_parts("What's the unit price, and how long is the refund window?") == [
        "What's the unit price",
        "how long is the refund window",
    ]
    assert goal_parts("How long do I have to ask for a refund?") == ["How long do I have to ask for a refund"]


# ---------------------------------------------------------------------------------------------
# Evidence: the sentence that answers comes first


@pytest.mark.parametrize(
    ("goal", "blocks", "first", "not_in_first"),
    [
        # The lookup's "free on orders of $500 or more" is the wrong condition for "under $500".
        (
            "What's the shipping fee for an international order under $500?",
            [looked_up("shipping"), block(("search_documents", {"query": "fee"}, SHIPPING_SNIPPET))],
            "Orders under $500 pay a flat shipping fee of $35 for international delivery",
            "$15",
        ),
        (
            "What's the shipping fee for an international order under $500?",
            [looked_up("shipping"), search("What's the shipping fee for an international order under $500")],
            "fee of $35 for international delivery",
            "free shipping",
        ),
        ("해외 배송은 며칠 걸려요?", [block(("search_documents", {"query": "해외"}, KOREAN_SNIPPET))], "5~10일", None),
        ("How long do I have to ask for a refund?", [looked_up("refund policy")], "30 days", None),
        # "해" is in "안내해": a one-syllable word matched every sentence, and "2일 안에" (the reply
        # to a refund request) won.
        (
            "환불은 며칠 안에 신청해야 해?",
            [looked_up("환불 정책"), search("환불은 며칠 안에 신청해야 해")],
            "30일 이내",
            None,
        ),
        (
            "How much extra does express delivery cost?",
            [search("How much extra does express delivery cost")],
            "$25",
            None,
        ),
        ("When is the next operations meeting?", [search("When is the next operations meeting")], "2026-09-09", None),
        (
            "Who attended the August operations meeting?",
            [search("Who attended the August operations meeting")],
            None,
            None,
        ),
    ],
)
def test_pick_evidence(goal: str, blocks: list[ContextBlock], first: str | None, not_in_first: str | None) -> None:
    evidence = pick_evidence(goal, blocks)
    assert evidence
    if first is not None:
        assert first in evidence[0], evidence
    if not_in_first is not None:
        assert not_in_first not in evidence[0], evidence


def test_the_words_of_a_search_request_are_no_evidence() -> None:
    # "문서" (document) met "자세한 내용은 영문 문서 (…)를 참고하세요" and the answer named no 30 days.
    goal = "문서에서 환불 찾아줘"
    evidence = pick_evidence(goal, [looked_up("환불 정책"), search(goal)])
    assert "30일" in evidence[0] and not any("영문 문서" in e for e in evidence)


def test_a_sentence_meeting_only_question_words_is_no_evidence() -> None:
    # "use" of "Which carrier do you use?" is in "no signs of use"; "carrier" is what was asked.
    goal = "Which carrier do you use?"
    evidence = pick_evidence(goal, [search(goal)])
    assert evidence and all("carrier" in e for e in evidence)


def test_evidence_names_each_part_of_a_two_part_question() -> None:
    goal = "What's the unit price, and how long is the refund window?"
    evidence = pick_evidence(goal, [looked_up("unit price, refund policy")])
    assert any("$24" in e for e in evidence) and any("30 days" in e for e in evidence)


def test_the_attendees_are_among_the_evidence() -> None:
    goal = "Who attended the August operations meeting?"
    evidence = pick_evidence(goal, [search(goal)])
    assert any("Minji" in e for e in evidence)


def test_no_evidence_without_a_shared_word_or_beside_the_calculator() -> None:
    assert pick_evidence("Tell me about gift wrapping", [looked_up("unit price")]) == []
    calculated = block(
        ("lookup", {"topic": "unit price"}, lookup("unit price")), ("calculator", {"expression": "24 * 7"}, "168")
    )
    assert evidence_lines("How much do 7 units cost in total?", [calculated]) == []


# ---------------------------------------------------------------------------------------------
# Not found: what the results lack


@pytest.mark.parametrize(
    ("goal", "query", "term"),
    [
        ("고객센터 전화번호가 뭐예요?", "고객센터 전화번호가 뭐예요", "전화번호"),
        ("What's the phone number for customer support?", "customer support phone number", "phone"),
        ("Can I pay with PayPal?", "pay with PayPal", "PayPal"),
        ("Do you offer gift wrapping?", "gift wrapping for an order", "gift"),
    ],
)
def test_a_goal_word_no_result_has_is_not_found(goal: str, query: str, term: str) -> None:
    missing = not_found(goal, [search(query)])
    assert term in missing.terms
    assert must_say_not_found(goal, [search(query)])
    assert f'"{term}"' in evidence_lines(goal, [search(query)])[0]


@pytest.mark.parametrize(
    ("goal", "query"),
    [
        ("How many years does the product warranty last?", "How many years does the product warranty last"),
        ("How long is the warranty?", "warranty"),
        ("보증 기간은 몇 년이에요?", "보증 기간"),
    ],
)
def test_a_duration_no_clause_about_the_subject_gives_is_not_found(goal: str, query: str) -> None:
    # "After 30 days we can no longer accept a refund request, but products still under warranty
    # can be repaired": the 30 days are the refund window's.
    missing = not_found(goal, [search(query)])
    assert missing.figure_of in ("warranty", "보증"), missing
    assert "give no figure" in answer_reminder(goal, [search(query)])


@pytest.mark.parametrize(
    ("goal", "blocks"),
    [
        # Every thing asked for is in the results, under the goal's word or another form of it.
        ("How long do I have to ask for a refund?", [looked_up("refund policy")]),
        ("환불은 며칠 안에 신청해야 해?", [looked_up("환불 정책"), search("refund request days")]),
        ("How much extra does express delivery cost?", [search("How much extra does express delivery cost")]),
        ("When is the next operations meeting?", [search("When is the next operations meeting")]),
        ("Who attended the August operations meeting?", [search("Who attended the August operations meeting")]),
        ("해외 배송은 며칠 걸려요?", [block(("search_documents", {"query": "해외"}, KOREAN_SNIPPET))]),
        ("How long does international delivery take?", [search("international delivery time")]),
        ("How long does shipping to Canada take?", [search("international delivery time")]),  # a country: abroad
        ("Do you ship to Japan?", [search("ship to Japan")]),
        ("What's the support email?", [search("support email")]),
        ("환불 받으려면 어디로 연락해요?", [search("환불 연락")]),
        ("연락처가 뭐예요?", [search("contact support email")]),  # the e-mail is a contact
        (
            "According to the meeting notes, what share of orders above $480 were topped up to reach $500?",
            [search("orders above $480 topped up")],  # "share" is the "62%"
        ),
        ("What's the unit price, and how long is the refund window?", [looked_up("unit price, refund policy")]),
        ("What's the shipping fee for an international order under $500?", [search("international shipping fee")]),
        # The subject is all over the results but the section with the figure was missed: no claim.
        ("How long does shipping to the US take?", [search("How long does shipping to the US take")]),
        # A goal the calculator or the weather answered has words those answer.
        (
            "What's the weather in Seoul, and how much would 3 units cost?",
            [
                block(("get_weather", {"city": "Seoul"}, '{"city": "Seoul", "temperature": 22}')),
                block(("lookup", {"topic": "unit price"}, lookup("unit price"))),
            ],
        ),
        # The lookup alone: its narrow answer says nothing about the documents.
        ("What is the return policy?", [looked_up("refund policy")]),
        ("How far in advance are price changes announced?", [looked_up("unit price")]),
        # A word the search's light stemming leaves longer than the documents' form.
        ("Do you ship internationally?", [search("ship internationally")]),
        # A file the goal names is no thing asked about, nor are the words of a search request.
        ("Read notes.txt", [block(("read_file", {"path": "notes.txt"}, _read_file("notes.txt")))]),
        ("What does refund_policy.md say about damaged returns?", [search("damaged returns")]),
        ("문서에서 환불 찾아줘", [search("문서에서 환불 찾아줘")]),
        # A Korean word no concept knows says nothing about English documents.
        ("배송 정책 좀 알려줘", [search("shipping policy")]),
        # Nothing but errors: the provider's own "nothing found" path handles it.
        ("Who is the CEO?", [block(("search_documents", {"query": "CEO"}, "ERROR: boom"), error=True)]),
    ],
)
def test_present_things_are_not_called_missing(goal: str, blocks: list[ContextBlock]) -> None:
    assert not not_found(goal, blocks), not_found(goal, blocks)
    assert not any("not mention" in line or "no such figure" in line for line in evidence_lines(goal, blocks))


def test_the_reminder_carries_the_evidence() -> None:
    goal = "What's the shipping fee for an international order under $500?"
    text = answer_reminder(
        goal, [looked_up("shipping"), block(("search_documents", {"query": "fee"}, SHIPPING_SNIPPET))]
    )
    assert "The result that answers this: Orders under $500 pay a flat shipping fee of $35 for international" in text
    # The goal's own condition is no order amount to compare with the threshold.
    assert "equal to" not in text and "meets the threshold" not in text


def test_a_condition_in_the_goal_is_not_compared_as_an_order() -> None:
    threshold = [looked_up("shipping")]
    assert comparisons(threshold, goal="What's the fee for an international order under $500?") == []
    assert comparisons(threshold, goal="Is a $600 order shipped free?") == [
        "600 is more than 500, so it meets the threshold (yes)."
    ]
    assert comparisons(threshold, True, "500달러 미만 주문의 해외 배송비는?") == []


# ---------------------------------------------------------------------------------------------
# The provider: a "not found" answer is what the grammar allows


class _Server:
    def __init__(self, content: str) -> None:
        self.content = content
        self.bodies: list[dict[str, object]] = []

    def handle_chat_completions(self, body: dict[str, object], callback: object = None) -> None:
        self.bodies.append(body)
        send = callback  # type: ignore[assignment]
        send({"choices": [{"index": 0, "delta": {"content": self.content}, "finish_reason": None}]})  # type: ignore[operator]
        send({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "timings": {"prompt_n": 5}})  # type: ignore[operator]


@pytest.mark.parametrize(
    ("goal", "queries", "start", "lacks"),
    [
        ("How many years does the product warranty last?", ["warranty years"], "I could not find", True),
        ("고객센터 전화번호가 뭐예요?", ["고객센터 전화번호", "contact customer service phone"], "죄송", True),
        ("How much extra does express delivery cost?", ["express delivery cost"], None, False),
    ],
)
def test_the_answer_grammar_says_not_found_when_the_results_lack_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, goal: str, queries: list[str], start: str | None, lacks: bool
) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF fake")
    server = _Server('{"answer": "ok"}')
    monkeypatch.setattr(local, "_ENGINE", local._Engine(server=server, path=path, load_ms=1.0, n_threads=2, n_ctx=8192))
    registry = ToolRegistry()

    @registry.tool
    def search_documents(query: str) -> str:
        """Search the workspace documents."""
        return query

    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(path)})
    blocks = [search(query) for query in queries]
    provider.complete(ModelRequest(instructions="s", goal=goal, blocks=blocks, tools=list(registry), step=2))
    pattern = grammar_schema(str(server.bodies[0]["grammar"]))["properties"]["answer"]["pattern"]
    if start is not None:
        assert pattern.startswith("^(?:") and start in pattern.split(")", 1)[0]
    else:
        assert "could not find" not in pattern
    assert must_say_not_found(goal, blocks) is lacks


# ---------------------------------------------------------------------------------------------
# A Korean goal whose Korean search lacks the thing asked: once more in English


@pytest.mark.parametrize(
    ("goal", "query"),
    [
        ("특급 배송은 얼마예요?", "express ship"),
        ("고객센터 전화번호가 뭐예요?", "contact customer service phone"),
        ("보증 기간은 몇 년이에요?", "warranty"),
        ("How long is the warranty?", None),  # English: searched in English already
    ],
)
def test_english_query(goal: str, query: str | None) -> None:
    assert english_query(goal) == query


def test_a_korean_goal_is_searched_again_in_english_when_its_results_lack_the_thing() -> None:
    registry = ToolRegistry()

    @registry.tool
    def search_documents(query: str, limit: int = 3) -> str:
        """Search the workspace documents."""
        return query

    tools = list(registry)
    goal = "특급 배송은 얼마예요?"
    korean = search("특급 배송은 얼마예요")
    assert "express" not in korean.outputs[0].output.lower()  # the Korean document only
    plan = plan_step(goal, [korean], tools)
    assert plan.force_tool and plan.arguments == {"search_documents": {"query": ["express ship"], "limit": [3]}}
    assert planned_call(plan) == ("search_documents", {"query": "express ship", "limit": 3})  # no generation
    english = block(("search_documents", {"query": "express ship"}, _search("express ship", 3)))
    assert plan_step(goal, [korean, english], tools).answer  # once only
    assert "$25" in " ".join(pick_evidence(goal, [korean, english]))
    # Found in the Korean results: no second search.
    refund = search("환불은 며칠 안에 신청해야 해")
    assert plan_step("환불은 며칠 안에 신청해야 해?", [refund], tools).answer


def test_evidence_sentences_are_joined_as_sentences() -> None:
    # The model copies the line: " / " between the sentences ended up in the answer.
    (line,) = evidence_lines("Search the documents for refund", [looked_up("refund policy"), search("refund")])
    assert " / " not in line and "환불 가능). Refunds go back" in line


def test_number_words_set_the_goal_condition_and_paraphrases_are_not_missing() -> None:
    # "under five hundred dollars" is the $500 condition: the international fee, not the domestic one.
    goal = "What's the shipping fee for an international order under five hundred dollars?"
    lines = evidence_lines(goal, [search("shipping fee international order under $500")])
    assert lines and "$35" in lines[0] and "$15" not in lines[0]
    # "deadline" and "money back" are the refund window's words: no forced "not found".
    assert not not_found("What's the deadline for getting my money back?", [search("refund window money back")])


def test_odd_outputs_are_read_without_a_crash() -> None:
    deep = block(("search_documents", {"query": "x"}, "[" * 100_000))
    assert result_sentences([deep])  # read as text, not as hits
    long_file = block(("read_file", {"path": "big.txt"}, "The refund window is 30 days. " * 20_000))
    sentences = result_sentences([long_file])  # of the part read: the last sentence is cut there
    assert [s.text for s in sentences] == ["The refund window is 30 days.", "The refund"]
    assert MAX_READ_CHARS < 20_000 * len("The refund window is 30 days. ")
