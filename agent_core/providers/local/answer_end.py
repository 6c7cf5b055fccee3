"""Where a local answer has said enough: stop the generation once it has.

The answer step asks for one to three sentences (the provider names no required figure: which
figures answer is the model's choice, held only to the goal's and the results'). Free to go on after
that, the 1.5B model rambled to the token limit on multi-part questions ("A is larger than B. …
15% of 240 is 36. Therefore, the largest is A … The final answer is: A is larger than B… [cut]"):
146 generated tokens, ~27 s on 2 cores, and an answer that ends mid-word.

A regex bound on the grammar cannot express "n characters after the last fact" (the figures may
match in several places, so the bound never bites), and llguidance cannot combine a length with
the figures pattern. So the stream is watched instead: once the answer has :data:`SENTENCES`
complete sentences and states every required figure, generation stops at that sentence end.
:data:`MOST_SENTENCES` ends it whatever it states (the grammar could never let it finish).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from agent_core.providers.local.prompt import cut_answer

SENTENCES = 3
"""Complete sentences after which an answer that states every required figure stops."""
MOST_SENTENCES = 6
"""Complete sentences after which an answer stops whatever it states."""
LOOP_REPEATS = 8
"""A run of the same short piece this many times over ends the answer (see :data:`_LOOP`)."""

_LOOP = re.compile(rf"(\D{{1,8}}?)\1{{{LOOP_REPEATS - 1},}}$", re.DOTALL)
"""Output stuck on a short piece: after a complete Korean sentence with its figure and a note
naming the call, the model wrote "'}'" over and over, with no sentence end, to the 200-token limit (~20 s on 2 cores).
Not a digit: "10000000" being written is a figure, not a loop."""

_SENTENCE_END = re.compile(r"[.!?。](?=\s)")
"""A sentence end: its mark followed by white space (``3.5`` and ``example.com`` are no end)."""
_NOT_AN_END = re.compile(
    r"(?:^|\s)(?:\w|\w\.\w(?:\.\w)*|e\.g|i\.e|etc|vs|approx|incl|dr|mr|mrs|ms|\d+)$", re.IGNORECASE
)
"""What a mark may follow without ending a sentence: a single letter or initials ("U.S."), a
common abbreviation ("e.g.", "vs."), or a figure alone on its line or after a space (a list's
"2.", which a sentence end written right after a figure, "… is 36.", is not: see below)."""


def complete_sentences(text: str) -> list[int]:
    """The offsets just after each complete sentence of ``text`` (its end mark, not the space).

    A mark after an abbreviation or initials is no end, nor is a list number ("2." that starts a
    line); a mark right after a figure that ends a sentence ("… is 36. So …") is one."""
    ends = []
    for m in _SENTENCE_END.finditer(text):
        before = text[: m.start()]
        line = before.rsplit("\n", 1)[-1]
        if m.group() == "." and _NOT_AN_END.search(before):
            # A figure ends a sentence unless it is all the line holds (a list's "2.").
            if not (re.search(r"\d$", before) and line.strip() and not line.strip().isdigit()):
                continue
        ends.append(m.end())
    return ends


def _states(text: str, form: str) -> bool:
    """``form`` (a figure's spelling) in ``text`` as a whole figure: "2" is not in "22 °C"."""
    pattern = re.escape(form)
    if form[:1].isdigit():
        pattern = r"(?<![\d.,])" + pattern
    if form[-1:].isdigit():
        pattern += r"(?![\d]|[.,]\d)"
    return re.search(pattern, text) is not None


def enough_said(required: Sequence[Sequence[str]], *, sentences: int = SENTENCES) -> Callable[[str], str | None]:
    """A test for the streamed output so far: the answer up to the first sentence end where it has
    said enough, else None. ``required`` holds each required fact's accepted spellings;
    ``sentences``: how many complete sentences that takes (one more where a yes/no or which-one
    verdict may follow the figures)."""

    def test(content: str) -> str | None:
        text = cut_answer(content)  # None until the answer string has started (a check comes first)
        if not text or "\\" in text:  # an escape still open (\u00b0, \"): not decoded yet
            return None
        ends = complete_sentences(text)
        for count, end in enumerate(ends[sentences - 1 :], start=sentences):  # the first end that will do
            said = text[:end]
            if count >= MOST_SENTENCES or all(any(_states(said, form) for form in forms) for forms in required):
                return said
        if ends and _LOOP.search(text):
            # Stuck: the complete sentences are the answer, whether or not they state every
            # required figure (the grammar can hold out for a figure the sentence before already
            # gave in another spelling); the answer check reads them.
            return text[: ends[-1]]
        return None

    return test
