"""A local answer stops once it has said enough (agent_core.providers.local.answer_end): three
complete sentences that state every required figure, or six whatever they state."""

from __future__ import annotations

import pytest

from agent_core.providers.local.answer_end import complete_sentences, enough_said

RAMBLE = (
    "Seoul is warmer than London. The temperature in Seoul is 22 °C, while it is 15 °C in London. "
    "15% of 240 is 36. Therefore, the warmest city is Seoul. The final answer is: Seoul is warmer than L"
)


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("It is 3.5 km. Done.", [13]),  # a decimal point is no end; the last mark has no space yet
        ("See example.com for more! Then ask? ", [25, 35]),
        ("서울은 22 °C입니다. 런던은 15 °C입니다. ", [13, 27]),
        ("No end here", []),
        ("Free in the U.S. and Canada. Yes. ", [28, 33]),  # initials are no end
        ("Seoul is warmer, e.g. for a walk. Dr. Kim said no. ", [33, 50]),
        ("Options:\n2. Seoul\n3. ", []),  # list numbers
        ("15% of 240 is 36. So yes. ", [17, 25]),  # a figure that ends a sentence
    ],
)
def test_sentence_ends_need_the_space_after_them(text: str, ends: list[int]) -> None:
    assert complete_sentences(text) == ends


def test_enough_once_three_sentences_state_every_figure() -> None:
    enough = enough_said([("15 °C", "15°C"), ("22 °C",), ("36",)])
    assert enough('{"check": "22 > 15. So Seoul. Done. More') is None  # the answer has not started
    assert enough('{"answer": "Seoul is warmer than London. It is 22 °C') is None
    said = enough('{"answer": "' + RAMBLE)
    assert said == RAMBLE[: RAMBLE.index("15% of 240 is 36.") + len("15% of 240 is 36.")]
    # A figure still missing after three sentences: on to the sentence that states it.
    late = enough_said([("36",)])
    three = '{"answer": "Seoul is warmer. London is cooler. Both are cities. '
    assert late(three) is None
    assert late(three + "And 15% of 240 is 36. Then") == three[len('{"answer": "') :] + "And 15% of 240 is 36."
    # Six sentences end it whatever they state (the grammar still owed a figure).
    six = '{"answer": "' + "It is so. " * 6
    assert late(six) == ("It is so. " * 6).rstrip()


def test_a_figure_is_stated_whole_and_escapes_wait_for_their_decoding() -> None:
    # "2" is not stated by "22 °C": the answer goes on to the sentence with the result.
    enough = enough_said([("22 °C",), ("2",)])
    text = "Seoul is 22 °C and sunny. It is a warm day. Take sunglasses. And 30 / 15 is 2. More"
    assert enough('{"answer": "' + text) == text[: text.index(" More")]
    # Escapes in the streamed JSON are decoded; while one is still open, no early stop.
    decoded = enough_said([])('{"answer": "He said \\"hi\\". It is 22 \\u00b0C. It is warm. More')
    assert decoded == 'He said "hi". It is 22 °C. It is warm.'
    assert enough_said([])('{"answer": "He said \\"hi\\". It is 22. It is warm. Then \\u00') is None


def test_a_verdict_gets_one_sentence_more() -> None:
    text = "London is 15 °C. Seoul is 22 °C. Both are from today. So Seoul is warmer. More"
    three = enough_said([("15 °C",), ("22 °C",)])
    four = enough_said([("15 °C",), ("22 °C",)], sentences=4)
    assert three('{"answer": "' + text) == "London is 15 °C. Seoul is 22 °C. Both are from today."
    assert four('{"answer": "' + text) == text[: text.index(" More")]


def test_output_stuck_on_a_short_piece_ends_at_the_last_sentence_that_states_the_figures() -> None:
    enough = enough_said([("22.80", "$22.80")])
    start = '{"answer": "100개 사면 개당 $22.80입니다. (calculator: 22.80 * 100)'
    assert enough(start + "'}'" * 3) is None  # a few repeats may be text
    assert enough(start + "'}'" * 8) == "100개 사면 개당 $22.80입니다."
    # Stuck before a required figure was stated: the same (the grammar wanted the total, 2280,
    # and the sentence had answered the unit price asked); no sentence at all: no early end.
    assert enough_said([("2280",)])(start + "'}'" * 8) == "100개 사면 개당 $22.80입니다."
    assert enough_said([])('{"answer": "No sentence yet ' + "ha" * 20) is None
    # A figure with many zeros is being written, not stuck.
    assert enough_said([("100000000",)])('{"answer": "It is big. The budget is 100000000') is None
