"""Where a local answer has said enough: stop the generation once it has.

The answer step asks for one to three sentences, and the answer grammar makes it state every
required figure (:func:`~agent_core.providers.local.plan.required_facts`). Free to go on after
that, the 1.5B model rambled to the token limit on multi-part questions ("Seoul is warmer than
London. … 15% of 240 is 36. Therefore, the warmest city is Seoul … The final answer is: Seoul is
warmer than L… [cut]"): 146 generated tokens, ~27 s on 2 cores, and an answer that ends mid-word.

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

_SENTENCE_END = re.compile(r"[.!?。](?=\s)")
"""A sentence end: its mark followed by white space (``3.5`` and ``example.com`` are no end)."""


def complete_sentences(text: str) -> list[int]:
    """The offsets just after each complete sentence of ``text`` (its end mark, not the space)."""
    return [m.end() for m in _SENTENCE_END.finditer(text)]


def enough_said(required: Sequence[Sequence[str]]) -> Callable[[str], str | None]:
    """A test for the streamed output so far: the answer up to the first sentence end where it has
    said enough, else None. ``required`` holds each required fact's accepted spellings."""

    def test(content: str) -> str | None:
        text = cut_answer(content)  # None until the answer string has started (a check comes first)
        if not text:
            return None
        ends = complete_sentences(text)
        for count, end in enumerate(ends[SENTENCES - 1 :], start=SENTENCES):  # the first end that will do
            said = text[:end]
            if count >= MOST_SENTENCES or all(any(form in said for form in forms) for forms in required):
                return said
        return None

    return test
