"""Grounding check: claims found in answers, normalised, and looked up in the goal and tool results."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.checks.claims import find_claims, korean_number
from agent_core.checks.grounding import check_answer, check_record
from agent_core.checks.sums import wrong_aggregates, wrong_arithmetic
from agent_core.checks.words import NO_TOOL_NOTE, NO_TOOL_NOTE_PLAIN, correction, summary, unsupported


def call(tool: str, output: str, *, call_id: str | None = None, success: bool = True, **extra: Any) -> dict[str, Any]:
    return {"call_id": call_id or f"call_{tool}", "tool": tool, "output": output, "success": success, **extra}


WEATHER_PARIS = call(
    "get_weather", '{"city": "Paris", "temperature": 19, "unit": "celsius", "condition": "light rain"}'
)
WEATHER_PARIS_F = call(
    "get_weather", '{"city": "Paris", "temperature": 66.2, "unit": "fahrenheit", "condition": "light rain"}'
)
PRICE = call("lookup", "Unit price: $24 per unit (단가: 개당 $24)")
SHIPPING = call(
    "lookup", "Shipping: free shipping on orders of $500 or more ($500 이상 구매 시 무료 배송)", call_id="call_ship"
)
NOTES = call("read_file", "Next meeting: 2026-09-09, same time.\nUnit price stays at $24 for Q3. 1,000 units, 15%.")
KO_DOC = call("read_file", "평일 오전 9시부터 오후 6시까지 답변합니다. 가격은 2만 5천 원입니다. 배송 후 30일 이내.")
HITS = call(
    "search_documents",
    '[{"file": "club.md", "section": "Contact", "snippet": "Secretary: help@ramblers.org"}, '
    '{"file": "policy.md", "section": "Claims", "snippet": "Harbourline Mutual: claims@harbourline.com"}]',
)
HOURS = call("read_file", "Opening hours: Mon-Fri 9:00-17:00")
CHAIRS = call(
    "search_documents",
    '[{"file": "c.md", "section": "Seating", "snippet": "Model: Sola Task Chair, Price: $179"}, '
    '{"file": "c.md", "section": "Mesh", "snippet": "Model: Sola Mesh, Price: $259"}]',
)
EXCESS = call(
    "search_documents", '[{"file": "p.md", "section": "Excess", "snippet": "Essentials: $400, Standard: $250"}]'
)
CONTACTS = call(
    "search_documents",
    "Write to support@example.com, or call the office on 02-555-1234. Forms: https://www.example.com/refunds/form",
)
CALC = call("calculator", "397.79999999999995", arguments={"expression": "0.17 * 2340"})


# --- what counts as a claim -----------------------------------------------------------------

CLAIMS = [
    # (answer, [(kind, value)])
    ("It is 20°C in Paris.", [("temperature", "20 °C")]),
    ("It is 66.2 °F, or 19 ℃.", [("temperature", "66.2 °F"), ("temperature", "19 °C")]),
    ("서울은 22도입니다.", [("temperature", "22 °C")]),
    ("About 20 degrees.", [("temperature", "20°")]),
    ("-5 °C tonight", [("temperature", "-5 °C")]),
    ("Costs $1,000 or 1000 USD", [("money", "1000 USD")]),
    ("$24 per unit", [("money", "24 USD")]),
    ("€12.50, 3k USD, 1.5 million dollars", [("money", "12.5 EUR"), ("money", "3000 USD"), ("money", "1500000 USD")]),
    ("₩25,000 = 2만 5천 원", [("money", "25000 KRW")]),
    ("1억 2천만 원", [("money", "120000000 KRW")]),
    ("17% of 2,340", [("percent", "17%"), ("number", "2340")]),
    ("15 퍼센트", [("percent", "15%")]),
    ("2 to 3 business days", [("number", "2"), ("quantity", "3 business days")]),
    ("10-12 days", [("number", "10"), ("quantity", "12 days")]),
    ("3천 개와 24개, 30일", [("quantity", "3000 개"), ("quantity", "24 개"), ("quantity", "30 일")]),
    ("19 and 19.0 and 19.00", [("number", "19")]),
    ("2026-09-09 = September 9, 2026 = 9월 9일 = 2026년 9월 9일", [("date", "2026-09-09"), ("date", "--09-09")]),
    ("on 9 Sept 2026 or the 12th of August", [("date", "2026-09-09"), ("date", "--08-12")]),
    ("at 10:00 AM, 2 pm, 9 a.m.", [("time", "10:00"), ("time", "14:00"), ("time", "09:00")]),
    ("오후 3시 30분 또는 오전 9시, 3시간", [("time", "15:30"), ("time", "09:00"), ("quantity", "3 시간")]),
    # adversarial: no figures in URLs, code, e-mail, file names, versions, identifiers, list
    # markers (an address is one contact claim, its digits no number)
    (
        "See https://example.com/2024/10/report?id=7 and www.x.com/5",
        [("contact", "example.com/2024/10/report?id=7"), ("contact", "x.com/5")],
    ),
    ("Run `x = 42` then\n```\nprint(3 * 7)\n```", []),
    ("Mail support@example.com about report_2024.md", [("contact", "support@example.com")]),
    ("Python 3.11.2 with gpt-4o in Q3, H2O, the 3rd time", []),
    ("1. Write to support\n2) Wait\n  3. Ship\n## 4. Done\nStep 5: rest", []),
    ("[the docs](https://docs.python.org/3/) say hi", [("contact", "docs.python.org/3")]),
    # contact details: e-mail and web addresses, phone numbers (not dates, not ranges)
    (
        "Write to Support@Example.com, call 02-123-4567 or +82 2 1234 5678, or see www.Example.com/Help/.",
        [
            ("contact", "support@example.com"),
            ("contact", "021234567"),
            ("contact", "+82212345678"),
            ("contact", "example.com/Help"),
        ],
    ),
    ("Call (555) 123-4567 or 1-800-555-1234", [("contact", "5551234567"), ("contact", "18005551234")]),
    # a national number written with spaces only: a trunk 0, 10 or 11 digits
    ("Ring 01632 960 481 or 07700 900123", [("contact", "01632960481"), ("contact", "07700900123")]),
    # Korean text runs on after an address; numbers in a row are no phone number
    (
        "support@example.com으로 보내거나 02-123-4567로 전화하세요",
        [("contact", "support@example.com"), ("contact", "021234567")],
    ),
    ("**https://example.com/a**", [("contact", "example.com/a")]),
    ("Sent in 2024 2025 2026", [("number", "2024"), ("number", "2025"), ("number", "2026")]),
    ("On 2026-09-09, in 5-10 days", [("date", "2026-09-09"), ("number", "5"), ("quantity", "10 days")]),
    ("`ops@example.com` in code is not a claim", []),
    # A figure cut short at its decimal point is one figure, not two found ones.
    ("The can is $40. 99 in total.", [("money", "40.99 USD")]),
    ("총 40. 99달러입니다.", [("money", "40.99 USD")]),
    ("It weighs 1. 5 kg", [("quantity", "1.5 kg")]),
    ("It costs $40.99. 12 are left", [("money", "40.99 USD"), ("number", "12")]),
    ("It is $40. The 99 others", [("money", "40 USD"), ("number", "99")]),
    # So is a price written in pieces, its digits around the figures the model could write.
    ("The total is $4, 4 70.", [("money", "4470 USD")]),
    (
        "Sizes 4, 5 and 6 cost $4, $5.",
        [("number", "4"), ("number", "5"), ("number", "6"), ("money", "4 USD"), ("money", "5 USD")],
    ),
    ("Hello! How can I help?", []),
]


@pytest.mark.parametrize(("answer", "expected"), CLAIMS, ids=[c[0][:30] for c in CLAIMS])
def test_claims_found_and_normalised(answer: str, expected: list[tuple[str, str]]) -> None:
    assert [(c.kind, c.value) for c in find_claims(answer)] == expected


def test_claim_text_is_quoted_from_the_answer() -> None:
    claims = find_claims("The total is $2,280.00, due by 9월 9일.")
    assert [c.text for c in claims] == ["$2,280.00", "9월 9일"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2만", 20000),
        ("2만 5천", 25000),
        ("1억 2천만", 120_000_000),
        ("3.5만", 35000),
        ("3천", 3000),
        ("1,200", 1200),
        ("1조 5억", 1_000_500_000_000),
        ("백", 100),
    ],
)
def test_korean_number_units(text: str, value: float) -> None:
    assert korean_number(text) == value


# --- looking claims up -----------------------------------------------------------------------


def sources(result: dict[str, Any]) -> list[Any]:
    return [(c["text"], c["source"]) for c in result["claims"]]


GROUNDING = [
    # (answer, goal, calls, status, unsupported texts)
    ("The weather in Paris is 20 °C.", "Weather in Paris?", [WEATHER_PARIS], "ungrounded", ["20 °C"]),
    ("The weather in Paris is 19°C, light rain.", "Weather in Paris?", [WEATHER_PARIS], "grounded", []),
    ("It is 19.0 °C", "Weather in Paris?", [WEATHER_PARIS], "grounded", []),
    ("It is 66.2 °F (19 °C)", "Weather in Paris?", [WEATHER_PARIS], "grounded", []),
    ("It is 66 °F", "Weather in Paris?", [WEATHER_PARIS], "grounded", []),  # 19 °C rounded in °F
    ("It is 19 °C", "Weather in Paris in F?", [WEATHER_PARIS_F], "grounded", []),
    ("It is 21 °C", "Weather in Paris in F?", [WEATHER_PARIS_F], "ungrounded", ["21 °C"]),
    ("The unit price is 24 USD.", "price?", [PRICE], "grounded", []),
    ("단가는 24달러입니다.", "단가?", [PRICE], "grounded", []),
    ("1000 units at 15%", "tiers?", [NOTES], "grounded", []),
    ("The next meeting is on September 9, 2026.", "next meeting?", [NOTES], "grounded", []),
    ("다음 회의는 9월 9일입니다.", "다음 회의?", [NOTES], "grounded", []),
    ("The next meeting is at 10:00 AM on Tuesday.", "next meeting?", [NOTES], "ungrounded", ["10:00 AM"]),
    ("The next meeting is on 2026-09-10.", "next meeting?", [NOTES], "ungrounded", ["2026-09-10"]),
    ("The next meeting is on 2025-09-09.", "next meeting?", [NOTES], "ungrounded", ["2025-09-09"]),
    ("오전 9시부터 오후 6시까지, 25000원", "문의 시간?", [KO_DOC], "grounded", []),
    ("9 am to 6 pm", "hours?", [KO_DOC], "grounded", []),
    ("9 am to 5 pm", "hours?", [KO_DOC], "partly", ["5 pm"]),
    ("30 days", "refund?", [KO_DOC], "grounded", []),
    # calculator results, rounded
    ("17% of 2,340 is 397.8", "What is 17% of 2,340?", [CALC], "grounded", []),
    ("17% of 2,340 is 407.80", "What is 17% of 2,340?", [], "partly", ["407.80"]),
    ("407.80", "What is 17% of 2,340?", [], "ungrounded", ["407.80"]),
    # derived in one step from supported numbers (and a second step from a derived subtotal)
    ("15 units cost $360.", "How much do 15 units cost?", [PRICE], "grounded", []),
    ("15 units cost $360, plus $15 shipping: $375.", "How much do 15 units cost?", [PRICE], "grounded", []),
    ("The difference is $476.", "How far is $24 from free shipping?", [SHIPPING], "grounded", []),
    ("15 units cost $7500.", "How much do 15 units cost?", [PRICE], "partly", ["$7500"]),
    (
        "The total cost of 15 units is $7500. Since the order is $500 or more, shipping is free.",
        "How much do 15 units cost, and is shipping free?",
        [],
        "partly",
        ["$7500", "$500"],
    ),
    # the goal supports its own numbers, and only those
    ("Yes, 20 units is below 21 units.", "Is 20 units enough? We need 21 units.", [], "no_claims", []),
    ("397.8", "17% of 2,340", [], "grounded", []),  # correct arithmetic on the goal's numbers
    # failed or duplicate calls support nothing
    (
        "It is 19 °C",
        "Weather?",
        [call("get_weather", "ERROR: timed out after 19 s", success=False)],
        "ungrounded",
        ["19 °C"],
    ),
    ("Hello! Nothing to compute.", "hi", [], "no_claims", []),
    # numbers in URLs and code in the answer are not claims (a URL no result gives is one);
    # in a tool output they are still data
    ("See `n = 5`; it is 19 °C.", "weather", [WEATHER_PARIS], "grounded", []),
    (
        "See https://example.com/page/77; it is 19 °C.",
        "weather",
        [WEATHER_PARIS],
        "partly",
        ["https://example.com/page/77"],
    ),
    # contact details are looked up like figures: a made-up address is flagged
    ("Write to support@example.com.", "Whom do I email for a refund?", [CONTACTS], "grounded", []),
    ("E-mail minji@example.com.", "Whom do I email for a refund?", [CONTACTS], "ungrounded", ["minji@example.com"]),
    ("Call 02-555-1234.", "phone number?", [CONTACTS], "grounded", []),
    ("Call 02-555-1235.", "phone number?", [CONTACTS], "ungrounded", ["02-555-1235"]),
    ("The emergency line is 01632 960 481.", "phone?", [call("lookup", "Emergency: 01632 960 481")], "grounded", []),
    (
        "The emergency line is 01632 960 418.",
        "phone?",
        [call("lookup", "Emergency: 01632 960 481")],
        "ungrounded",
        ["01632 960 418"],
    ),
    ("The site is https://example.com.", "website?", [CONTACTS], "grounded", []),  # the site of a page given
    (
        "See https://example.com/refunds/form2.",
        "form?",
        [CONTACTS],
        "ungrounded",
        ["https://example.com/refunds/form2"],
    ),
    ("Mail bob@example.com as you asked.", "Draft a note to bob@example.com", [], "no_claims", []),
    # the same number written another way is found; another number is not
    ("Call +82 2-555-1234.", "phone number?", [CONTACTS], "grounded", []),
    (
        "Call 1-800-555-9999.",
        "toll-free?",
        [call("lookup", "Toll-free: 1-800-555-1234")],
        "ungrounded",
        ["1-800-555-9999"],
    ),
    ("Call 800-555-1234.", "toll-free?", [call("lookup", "Toll-free: 1-800-555-1234")], "grounded", []),
    (
        "support@example.com 입니다.",
        "이메일?",
        [call("read_file", "문의는 support@example.com으로 보내 주세요.")],
        "grounded",
        [],
    ),
    # A figure from a passage that never mentions the subject the answer (and the goal) names.
    (
        "The e-mail for claims to Harbourline is help@ramblers.org.",
        "What's the e-mail for a claim to Harbourline?",
        [HITS],
        "ungrounded",
        ["help@ramblers.org"],
    ),
    (
        "The e-mail for claims to Harbourline is claims@harbourline.com.",
        "What's the e-mail for a claim to Harbourline?",
        [HITS],
        "grounded",
        [],
    ),
    ("The shop opens at 9:00 on Monday.", "When does the shop open on Monday?", [HOURS], "grounded", []),
    # A name of several words: a passage with another item of its family ("Sola Task") is no support,
    # one that writes only part of it with nothing else after it (a column "Standard") still is.
    ("The Sola Mesh is $179.", "What is the price of the Sola Mesh?", [CHAIRS], "ungrounded", ["$179"]),
    ("The Sola Mesh is $259.", "What is the price of the Sola Mesh?", [CHAIRS], "grounded", []),
    ("It is $250 on Standard HomeSafe.", "Excess on the Standard HomeSafe policy?", [EXCESS], "grounded", []),
    (
        "Harbourline: help@ramblers.org.",
        "E-mail for a claim to Harbourline?",
        [HITS],
        "ungrounded",
        ["help@ramblers.org"],
    ),
    ("Write to help@ramblers.org.", "What's the e-mail for a claim to Harbourline?", [HITS], "grounded", []),
    # An e-mail address given as a phone number is no phone number, wherever it was found.
    ("고객센터 전화번호는 help@ramblers.org입니다.", "고객센터 전화번호?", [HITS], "ungrounded", ["help@ramblers.org"]),
    ("The phone number is help@ramblers.org.", "phone?", [HITS], "ungrounded", ["help@ramblers.org"]),
    ("Call or e-mail help@ramblers.org.", "phone?", [HITS], "grounded", []),
    # A Korean sentence on English hits: their words cannot be compared, so no support
    # (tests/test_answer_check_languages.py); before, this wrong address was shown grounded.
    (
        "하버라인 청구 이메일은 help@ramblers.org입니다.",
        "Harbourline 청구 이메일?",
        [HITS],
        "ungrounded",
        ["help@ramblers.org"],
    ),
    (
        "Harbourline 청구 이메일은 help@ramblers.org예요.",
        "청구 이메일, Harbourline?",
        [HITS],
        "ungrounded",
        ["help@ramblers.org"],
    ),
    # The goal's figure of another unit is no support: 2 kg of chicken is not 2 hours of roasting.
    ("It roasts for 2 hours.", "my chicken weighs 2 kg, how long should it roast?", [], "ungrounded", ["2 hours"]),
    ("A 2 kg chicken needs 90 minutes.", "my chicken weighs 2 kg, how long?", [HOURS], "partly", ["90 minutes"]),
    # 40 and 99 are each in the result; the price the answer reads as, 40.99, is not.
    ("The can is $40. 99.", "Price of the can?", [call("read_file", "Can: $40, hose: $99")], "ungrounded", ["$40. 99"]),
    ("The can is $40. 99.", "Price of the can?", [call("read_file", "Can: $40.99")], "grounded", []),
    # $4 and 70 are each in the result; the total written in pieces, $4,470, is not.
    (
        "25 chairs cost $4, 4 70.",
        "25 chairs?",
        [call("read_file", "Chair: $4 off, 70 in stock")],
        "partly",
        ["$4, 4 70"],
    ),
]


@pytest.mark.parametrize(
    ("answer", "goal", "calls", "status", "missing"), GROUNDING, ids=[g[0][:40] for g in GROUNDING]
)
def test_grounding_table(answer: str, goal: str, calls: list[dict[str, Any]], status: str, missing: list[str]) -> None:
    result = check_answer(answer, goal, calls)
    assert result["status"] == status, sources(result)
    assert [c["text"] for c in unsupported(result)] == missing
    assert result["tools_used"] == sum(1 for c in calls if c["success"])


def test_record_shape_and_sources() -> None:
    result = check_answer(
        "Paris: 19 °C. You asked about 3 cities; 20 °C is wrong.", "3 cities?", [PRICE, WEATHER_PARIS]
    )
    assert set(result) == {"status", "tools_used", "claims"}
    assert result["status"] == "partly"
    assert result["tools_used"] == 2
    for claim in result["claims"]:
        assert set(claim) == {"text", "value", "kind", "source"}
    assert result["claims"] == [
        {
            "text": "19 °C",
            "value": "19 °C",
            "kind": "temperature",
            "source": {"call_id": "call_get_weather", "tool": "get_weather"},
        },
        {"text": "3", "value": "3", "kind": "number", "source": {"goal": True}},
        {"text": "20 °C", "value": "20 °C", "kind": "temperature", "source": None},
    ]


def test_latest_tool_result_gets_the_credit() -> None:
    first = call("lookup", "Unit price: $24; sold in packs of 12", call_id="c1")
    second = call("calculator", "24", call_id="c2", arguments={"expression": "12 * 2"})
    result = check_answer("$24", "price of 12 pairs", [first, second])
    assert result["claims"][0]["source"] == {"call_id": "c2", "tool": "calculator"}


def test_a_calculator_call_that_does_no_arithmetic_supports_nothing() -> None:
    # Asked to ground a made-up 200 °C, a model sent the calculator "200": that states nothing.
    echo = call("calculator", "200", arguments={"expression": "200"})
    assert check_answer("Cairo is 200 °C.", "Weather in Cairo?", [echo])["status"] == "ungrounded"
    product = call("calculator", "200", arguments={"expression": "8 * 25"})
    assert check_answer("8 boxes of 25 make 200.", "8 boxes of 25?", [product])["status"] == "grounded"


def test_no_tool_note_when_no_call_succeeded() -> None:
    result = check_answer("It is 20 °C.", "weather?", [call("get_weather", "ERROR: boom", success=False)])
    assert result["note"] == NO_TOOL_NOTE
    # No figure, no tool: still said plainly ("London is warmer than Seoul" from the model alone).
    assert check_answer("London is warmer than Seoul.", "Which is warmer?", [])["note"] == NO_TOOL_NOTE_PLAIN
    assert "note" not in check_answer("London is warmer.", "Which is warmer?", [WEATHER_PARIS])


def test_goal_number_inside_a_url_is_still_the_goal() -> None:
    # The goal is read as plain data: its numbers support the answer even if written oddly.
    result = check_answer("Page 7 it is.", "open https://example.com/?page=7", [])
    assert result["status"] == "no_claims"  # found, but only in the goal: nothing checked against a result
    assert not unsupported(result)


def test_summary_lines() -> None:
    assert (
        summary(check_answer("19 °C", "w", [WEATHER_PARIS]))
        == "every number appears in a tool result; the reasoning was not checked"
    )
    assert summary(check_answer("It is 20 °C", "w", [WEATHER_PARIS])) == (
        "⚠ 20 °C appears in no tool result: the model may have made it up"
    )
    mixed = check_answer("$24, 19 °C and 20 °C", "w", [WEATHER_PARIS, PRICE])
    assert summary(mixed).endswith("(2 of 3 numbers found in tool results)")
    from_goal = check_answer("12 chairs cost $40. 99", "Price of 12 chairs?", [PRICE])
    assert summary(from_goal).endswith("(1 of 2 numbers found in tool results or your goal)")
    assert summary(check_answer("hi", "hi", [])) == "no numbers, dates or times to check"
    assert summary(None) == "not checked"


def test_correction_names_the_unsupported_claims() -> None:
    text = correction(check_answer("It is 20 °C in Paris", "weather in Paris", [WEATHER_PARIS]))
    assert text.startswith("Your answer says 20 °C; no tool result says that.")
    assert "call the tool" in text.lower()


def test_correction_for_a_made_up_address_asks_for_one_a_result_gives() -> None:
    text = correction(check_answer("E-mail minji@example.com.", "Whom do I email?", [CONTACTS]))
    assert text.startswith("Your answer says minji@example.com; no tool result says that.")
    assert "say that the results do not give one" in text
    assert "calculator" not in text


def test_check_record_only_for_completed_answers() -> None:
    record = {"status": "completed", "goal": "w", "answer": "19 °C", "tool_calls": [WEATHER_PARIS]}
    assert check_record(record)["status"] == "grounded"
    assert check_record({**record, "status": "error", "answer": None}) is None


def test_large_tool_outputs_are_all_searched() -> None:
    # Five different 4,000-character outputs full of numbers (the default output cap): figures in
    # none of them are all flagged. How long this takes is measured by bench/grounding.py.
    big = [call("read_file", " ".join(f"{i * 7.3 + k:.1f}" for i in range(600)), call_id=f"c{k}") for k in range(5)]
    result = check_answer("a 123456.789 b 98765.4321 c 5555.5 d 77777", "goal 12 13", big)
    assert result["status"] == "ungrounded"
    assert [c["source"] for c in result["claims"]] == [None] * len(result["claims"]) and len(result["claims"]) == 4


# --- sums written out in the answer ------------------------------------------------------------

LONDON = call("get_weather", '{"city": "London", "temperature": 15, "unit": "celsius"}', call_id="london")
SEOUL = call("get_weather", '{"city": "Seoul", "temperature": 22, "unit": "celsius"}', call_id="seoul")


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("The difference is 22 - 15 = 15 degrees Celsius.", [("22 - 15 = 15", "22 - 15 = 7")]),
        ("24 x 7 = 170", [("24 x 7 = 170", "24 x 7 = 168")]),
        ("2 + 2 = 5, but 10 / 3 = 3.33", [("2 + 2 = 5", "2 + 2 = 4")]),  # rounding as written is fine
        ("24 * 7 = 168 + 15 = 183", []),  # a chain: each sum right
        ("24 * 7 = 168 + 15 = 193", [("168 + 15 = 193", "168 + 15 = 183")]),
        ("$24 × 20 = $480; 1,000 + 250 = 1,250", []),
        ("−5 + 3 = 2 is not a sum we read", []),  # a signed operand: not read as 5 + 3
        ("`2+2=5`, v1.2.3 = 4, https://x.io/2-1=9 and 10:00 - 11 = 1", []),  # code, versions, URLs, times
        ("2 * (3 + 4) = 14", []),  # brackets: not read
        ("(98.6 - 32) × 5/9 = 37", []),  # nor the end of a bracketed sum
        ("36 / 240 = 15%, 1 - 0.15 = 85%, 1/3 = 33.3% and 0.15 × 100 = 15%", []),  # percent results
        ("36 / 240 = 20%", [("36 / 240 = 20%", "36 / 240 = 15%")]),
        ("Open 9-5 = 8 hours, Mon-Fri 9-6 = 9 hours", []),  # ranges, not differences
        ("60 x 60 x 24 = 86 400 seconds; 2/3 = 0.66", []),  # a spaced thousands result; cut decimals
        ("100 - 20 / 2 = 40", []),  # steps in order, not precedence: not read
        ("2/3 = 0.65", [("2/3 = 0.65", "2/3 = 0.67")]),
        # The same in words, a unit between: each figure is in a result, the sum is made up.
        (
            "The difference is 22 - 15 degrees Celsius, which equals 15 degrees Celsius.",
            [("22 - 15 degrees Celsius, which equals 15", "22 - 15 = 7")],
        ),
        (
            "24 x 7 equals 170, and 2 + 2 is equal to 5",
            [("24 x 7 equals 170", "24 x 7 = 168"), ("2 + 2 is equal to 5", "2 + 2 = 4")],
        ),
        ("22 °C - 15 °C = 7 °C; 24 * 7 comes to 168; 22 - 15 makes 7", []),
        ("Orders of 100 - 499 units is 5% off", []),  # a range, and "is" is not read
    ],
)
def test_wrong_sums_written_out_are_found(answer: str, wrong: list[tuple[str, str]]) -> None:
    assert [(c.text, c.arithmetic) for c in wrong_arithmetic(answer)] == wrong


def test_a_wrong_sum_of_supported_figures_is_flagged_everywhere() -> None:
    answer = "Seoul is warmer. The difference is 22 - 15 = 15 degrees Celsius."
    result = check_answer(answer, "Which is warmer, London or Seoul?", [LONDON, SEOUL])
    assert result["status"] == "partly"  # 22 and 15 are found; the sum is not right
    [wrong] = unsupported(result)
    assert wrong == {
        "text": "22 - 15 = 15",
        "value": "15",
        "kind": "number",
        "source": None,
        "arithmetic": "22 - 15 = 7",
    }
    assert summary(result).startswith("⚠ 22 - 15 = 15 is wrong: 22 - 15 = 7")
    assert correction(result).startswith("Your answer says 22 - 15 = 15, but 22 - 15 = 7.")
    assert check_answer("The difference is 22 - 15 = 7.", "w", [LONDON, SEOUL])["status"] == "grounded"
    # Written in words, it was marked grounded (everyday warmer-london-seoul, local model).
    worded = "The difference is 22 - 15 degrees Celsius, which equals 15 degrees Celsius."
    assert check_answer(worded, "Which is warmer, London or Seoul?", [LONDON, SEOUL])["status"] == "partly"


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("It is -5 °C", ["-5 °C"]),
        ("Results: 1) -5 °C 2) 3 °C", ["1", "-5 °C", "2", "3 °C"]),  # a sign right before its digits
        ("Week 2 -3 °C", ["2", "-3 °C"]),
        ("22 - 15 = 7", ["22", "15", "7"]),  # a spaced minus between figures is a difference
    ],
)
def test_a_sign_is_read_where_it_is_one(text: str, values: list[str]) -> None:
    assert [c.value for c in find_claims(text)] == values


@pytest.mark.parametrize(
    ("answer", "status", "missing"),
    [
        ("Seoul is 22 °C, London 15 °C. The difference is 7 degrees: Seoul is 7 °C warmer.", "grounded", []),
        ("서울은 22도, 런던은 15도입니다. 차이는 7도입니다.", "grounded", []),
        ("Seoul is 8 degrees warmer than London (22 °C vs 15 °C).", "partly", ["8 degrees"]),  # wrong difference
        ("Seoul is 22 °C and London 15 °C; Paris is 7 °C.", "partly", ["7 °C"]),  # not said as a difference
        ("Seoul is 7 degrees warmer than London.", "ungrounded", ["7 degrees"]),  # no temperatures to take
    ],
)
def test_a_temperature_difference_of_two_found_temperatures_is_found(
    answer: str, status: str, missing: list[str]
) -> None:
    result = check_answer(answer, "Which is warmer, London or Seoul?", [LONDON, SEOUL])
    assert (result["status"], [c["text"] for c in unsupported(result)]) == (status, missing)


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("The average of 12, 18, and 27 is 43.5.", [("average of 12, 18, and 27 is 43.5", "(12 + 18 + 27) / 3 = 19")]),
        ("The average of 12, 18 and 27 is 19.", []),
        ("The mean of 2 and 3 is 2.5", []),
        ("The total of $24 and $15 is $40.", [("total of $24 and $15 is $40", "24 + 15 = 39")]),
        ("12, 18, 27의 평균은 43.5입니다.", [("12, 18, 27의 평균은 43.5", "(12 + 18 + 27) / 3 = 19")]),
        ("12, 18, 27의 평균은 19입니다.", []),
        ("On average, 12 people and 18 dogs came in 27 minutes.", []),
        ("The total of 3 items is 50", []),
    ],
)
def test_an_average_or_total_said_in_words_is_recomputed(answer: str, wrong: list[tuple[str, str]]) -> None:
    assert [(c.text, c.arithmetic) for c in wrong_aggregates(answer)] == wrong


def test_a_long_list_of_figures_that_is_no_average_is_read_in_one_pass() -> None:
    """Each listed figure could be read two ways ("1,234" as one or two; the space before it in the
    separator or in the figure): a list of 40 that did not end in an average took hours to fail,
    and an eval's run hung in the answer check (2026-12-05). Read whole, it fails at once."""
    listed = ", ".join(str(1000 + i) for i in range(40))
    assert wrong_aggregates(f"The values are {listed} and the total is 5") == []
    assert wrong_aggregates("합계: " + ",".join(str(100 + i) for i in range(40)) + " 입니다") == []
    assert [c.arithmetic for c in wrong_aggregates("The total of $1,200, $300 and $500 is $2,100")] == [
        "1200 + 300 + 500 = 2000"
    ]


def test_a_wrong_average_of_found_figures_is_flagged() -> None:
    """Each figure was in the calculator's result (it computed 12 + 18 + 27 / 2); the average is not."""
    calc = call("calculator", "43.5", arguments={"expression": "12 + 18 + 27 / 2"})
    result = check_answer("The average of 12, 18, and 27 is 43.5.", "What's the average of 12, 18 and 27?", [calc])
    assert result["status"] == "partly"
    assert [c["arithmetic"] for c in unsupported(result)] == ["(12 + 18 + 27) / 3 = 19"]
