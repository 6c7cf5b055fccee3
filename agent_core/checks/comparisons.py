"""Comparisons an answer states, recomputed from the figures.

"480 is less than 500", "$480 is below the $500 threshold", "Tokyo (25 °C) is warmer than London
(15 °C)", "480달러는 500달러보다 적습니다": each says which of two figures is larger, and that can
be checked exactly. A found figure can still sit in a wrong sentence; a comparison stated the
wrong way round is one such sentence this catches.

Three shapes are read, in English and Korean (the third in English), with no word about any topic:

- two figures and a comparison between them ("X is more than Y", "X < Y", "X exceeds Y",
  "X는 Y보다 많다");
- two names and a comparative ("A is warmer than B", "A가 B보다 비싸다"): each name's figure is
  the one the answer gives beside it in that sentence, else the only figure of a tool-result line
  (or a short result) that names it. When either figure cannot be read, nothing is claimed;
- a name and a comparative with no "than" ("so the tent is cheaper by £2"): the other side is the
  one other figure of the name's kind the answer gives, the stated difference aside.

Comparatives mean "larger" or "smaller" (warmer: the larger temperature; cheaper: the smaller
price). Pure functions; claims come back as :class:`~agent_core.checks.claims.Claim` of kind
``comparison`` with ``expected`` saying what the figures show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.checks.claims import Claim, find_all

LARGER = (
    "more|greater|higher|larger|bigger|longer|heavier|older|warmer|hotter|later|further|farther|"
    "more expensive|costlier|pricier|wider|taller|deeper|faster|stronger"
)
SMALLER = (
    "less|fewer|lower|smaller|shorter|lighter|younger|colder|cooler|earlier|cheaper|less expensive|"
    "narrower|slower|weaker"
)
_COMPARATIVE = re.compile(rf"\b(?P<word>{LARGER}|{SMALLER})\s+than\b", re.IGNORECASE)
_BOUND = re.compile(
    r"\b(?P<word>exceeds?|exceeded|is\s+over|is\s+above|is\s+under|is\s+below|falls\s+short\s+of|"
    r"is\s+at\s+least|is\s+at\s+most)\b|(?P<sign>[<>≤≥])",
    re.IGNORECASE,
)
_KO = re.compile(
    r"보다\s*(?:더\s*)?(?P<word>많|크|높|길|무겁|비싸|따뜻|덥|더워|늦|넓|빠르|적|작|낮|짧|가볍|싸|저렴|춥|추워|시원|이르|좁|느리)"
)
_KO_LARGER = ("많", "크", "높", "길", "무겁", "비싸", "따뜻", "덥", "더워", "늦", "넓", "빠르")
_SENTENCE = re.compile(r"[^.!?\n。]+[.!?。]?")
_NAME = r"[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,3}"
_NAMED = re.compile(
    rf"(?P<a>{_NAME})\s*(?:\([^)]*\)\s*)?(?:,[^,]*,\s*)?\b(?:is|are|was|were|feels|gets)\s+"
    rf"(?:(?:a\s+(?:bit|little|lot)|much|slightly|far|about\s+[\d.]+\s*\S*)\s+)?"
    rf"(?P<cmp>(?:{LARGER}|{SMALLER}))\s+than\s+(?P<b>{_NAME})"
)
_DIFFERENCE = re.compile(
    rf"(?P<a>{_NAME})\s*(?:\([^)]*\)\s*)?\b(?:is|are|was|were|costs?)\s+(?:about\s+|roughly\s+)?"
    r"(?P<diff>[$€£₩]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:dollars?|euros?|pounds?|won|원|달러|%|percent|[a-z]{1,3}))?)\s+"
    rf"(?P<cmp>{LARGER}|{SMALLER})(?:\s+(?:per|a|an|each|every)\s+\w+)?\s+than\s+"
    r"(?P<b>\w[\w'’-]*(?:\s+\w[\w'’-]*){0,3})",
    re.IGNORECASE,
)
"""A difference stated between two named things: "a fixed desk is $60 more per month than a hot desk"."""
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|your)\s+", re.IGNORECASE)
_KO_NAMED = re.compile(r"(?P<a>[\w가-힣]+?)(?:은|는|이|가)\s+(?P<b>[\w가-힣]+?)보다\s*(?:더\s*)?(?P<cmp>[가-힣]+)")
_NEGATION = re.compile(r"\b(?:not|n't|no)\b|않|아니|없", re.IGNORECASE)
_LINK = re.compile(
    r"\s*,?\s*(?:which|that|and|so it|so that|it)?\s*(?:is|are|was|were|'s)?\s*"
    r"(?:still|also|just|only|a bit|slightly|much|far|clearly|well)?\s*",
    re.IGNORECASE,
)
"""What may stand between a figure and the comparison that follows it: "$480, which is less than"."""
_RELATIVE = re.compile(r"\b(?:with|having|has|have|had|whose|where|containing)\b", re.IGNORECASE)
"""A figure before one of these counts things the comparison describes: "12 items with fewer than 10
in stock" says no 12 < 10."""
_COUNTED_THINGS = re.compile(r"\s+(?!(?:is|are|was|were|which|that|and|so|it|then)\b)[^\W\d_]{2,}\b", re.IGNORECASE)
"""A noun right after a bare number (not a verb or a link): it counts things ("13 pitches cost more
than £40", "1 pitch that costs more than £40")."""
_LEADS = re.compile(r"^(?:and|but|so|while|whereas|because|since|yes|no|therefore|thus|however)\s+", re.IGNORECASE)


def _larger(word: str) -> bool | None:
    """True for a word that says "larger", False for "smaller", None for neither."""
    w = " ".join(word.lower().split())
    if w in LARGER.split("|") or w in (
        "exceeds",
        "exceed",
        "exceeded",
        "is over",
        "is above",
        "is at least",
        ">",
        "≥",
    ):
        return True
    if w in SMALLER.split("|") or w in ("is under", "is below", "falls short of", "is at most", "<", "≤"):
        return False
    if any(w.startswith(k) for k in _KO_LARGER):
        return True
    return False if w else None


def _figures(text: str) -> list[Claim]:
    return [c for c in find_all(text) if c.numbers and c.kind not in ("date", "time", "contact")]


def _holds(a: float, b: float, larger: bool, word: str) -> bool:
    w = word.lower().replace(" ", "")
    if w in ("isatleast", "≥"):
        return a >= b
    if w in ("isatmost", "≤"):
        return a <= b
    return a > b if larger else a < b


def _claim(sentence: str, offset: int, text: str, expected: str) -> Claim:
    start = offset + max(0, sentence.find(text))
    return Claim(text=text, value=text, kind="comparison", start=start, end=start + len(text), expected=expected)


def _between_figures(sentence: str, offset: int) -> list[Claim]:
    """ "X is more than Y" with both figures written around the comparison."""
    out = []
    figures = _figures(sentence)
    for m in [*_COMPARATIVE.finditer(sentence), *_BOUND.finditer(sentence), *_KO.finditer(sentence)]:
        word = m.group("word") if m.groupdict().get("word") else m.group("sign") if "sign" in m.groupdict() else ""
        larger = _larger(word or "")
        if larger is None:
            continue
        before = [c for c in figures if c.end <= m.start()]
        after = [c for c in figures if c.start >= m.end()]
        if m.re is _KO:  # "X는 Y보다 적다": both figures come before "보다 …"
            if len(before) < 2:
                continue
            left, right = before[-2], before[-1]
        else:
            if not before or not after:
                continue
            left, right = before[-1], after[0]
            between = sentence[left.end : m.start()]
            if not between.strip() and m.re is _COMPARATIVE:
                continue  # "8 degrees warmer than", "$100 cheaper than": the figure is the difference
            if not _LINK.fullmatch(between) and ("," in between or len(between) > 40 or _RELATIVE.search(between)):
                continue  # the figure before belongs to another clause, or counts what the comparison describes
            if left.kind == "number" and right.kind != "number" and _COUNTED_THINGS.match(between):
                continue  # "13 pitches cost more than £40": a count of things, not an amount
        if _NEGATION.search(sentence[left.end : m.start()]) or _NEGATION.search(sentence[m.end() : right.start]):
            continue  # "is not more than": left alone
        a, b = left.numbers[0], right.numbers[0]
        if a == b or _holds(a, b, larger, word or ""):
            continue
        text = sentence[left.start : right.end].strip()
        relation = "more than" if a > b else "less than"
        out.append(_claim(sentence, offset, text, f"{left.text.strip()} is {relation} {right.text.strip()}"))
    return out


def _figure_beside(name: str, sentence: str) -> float | None:
    """The figure written right after ``name`` in the sentence ("Tokyo (25 °C)", "Tokyo at 25 °C")."""
    at = sentence.find(name)
    if at < 0:
        return None
    window = sentence[at + len(name) : at + len(name) + 24]
    figures = _figures(window)
    if figures and figures[0].start <= 8:
        return figures[0].numbers[0]
    return None


def _figure_in_results(name: str, outputs: Sequence[str]) -> float | None:
    """The only figure of the result line (or one-line result) that names ``name``; None when no
    line or several figures make it unsure."""
    found: set[float] = set()
    for output in outputs:
        pieces = output.splitlines() if "\n" in output.strip() else [output]
        for piece in pieces:
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", piece, re.IGNORECASE):
                figures = [
                    c for c in _figures(piece) if c.kind in ("temperature", "money", "quantity", "number", "percent")
                ]
                values = {c.numbers[0] for c in figures}
                if len(values) != 1:
                    return None
                found |= values
    return found.pop() if len(found) == 1 else None


def _read_name(words: list[str], sentence: str, outputs: Sequence[str], *, from_end: bool) -> tuple[str, float | None]:
    """The longest run of ``words`` (the last ones before "is", or the first ones after "than")
    that names a figure: beside it in the sentence, else in the results."""
    for size in range(len(words), 0, -1):
        name = " ".join(words[-size:] if from_end else words[:size])
        name = _ARTICLE.sub("", _LEADS.sub("", name)).strip()
        if not name or name.lower() in ("it", "this", "that", "they", "there", "the", "a", "an"):
            continue
        value = _figure_beside(name, sentence)
        if value is None:
            value = _figure_in_results(name, outputs)
        if value is not None:
            return name, value
    return " ".join(words), None


def _two_names(
    m: re.Match[str], text: str, outputs: Sequence[str]
) -> tuple[tuple[str, float], tuple[str, float]] | None:
    """The compared names of ``m`` (groups ``a`` and ``b``) with each one's figure, read in
    ``text`` or the results; None unless both have different figures."""
    a_name, a = _read_name(m.group("a").split(), text, outputs, from_end=True)
    b_name, b = _read_name(m.group("b").split(), text, outputs, from_end=False)
    if a is None or b is None or a == b or a_name.lower() == b_name.lower():
        return None
    return (a_name, a), (b_name, b)


def _what_figures_say(a: tuple[str, float], b: tuple[str, float], *, by: bool = False) -> str:
    (bigger, high), (smaller, low) = (a, b) if a[1] > b[1] else (b, a)
    return f"the figures say {bigger} ({high:g}) is {f'{high - low:g} ' if by else ''}above {smaller} ({low:g})"


def _between_names(sentence: str, offset: int, outputs: Sequence[str]) -> list[Claim]:
    out = []
    for m in [*_NAMED.finditer(sentence), *_KO_NAMED.finditer(sentence)]:
        larger = _larger(m.group("cmp"))
        if larger is None or _NEGATION.search(sentence[m.start() : m.end()]):
            continue
        names = _two_names(m, sentence, outputs)
        if names is None or _holds(names[0][1], names[1][1], larger, m.group("cmp")):
            continue
        out.append(_claim(sentence, offset, sentence[m.start() : m.end()].strip(), _what_figures_say(*names)))
    return out


def _differences(sentence: str, offset: int, answer: str, outputs: Sequence[str]) -> list[Claim]:
    """ "A is $N more than B": each name's figure read beside it anywhere in the answer (else in the
    results); the difference must be N and go that way. Temperatures are left to the answer check's
    own reading of differences."""
    out = []
    for m in _DIFFERENCE.finditer(sentence):
        diff = _figures(m.group("diff"))
        larger = _larger(m.group("cmp"))
        if not diff or diff[0].kind == "temperature" or larger is None or _NEGATION.search(m.group(0)):
            continue
        # Each name's figure is read elsewhere in the answer: not the stated difference itself.
        start, end = offset + m.start("diff"), offset + m.end("diff")
        names = _two_names(m, answer[:start] + " " * (end - start) + answer[end:], outputs)
        if names is None:
            continue
        (_, a), (_, b) = names
        stated, tolerance = diff[0].numbers[0], 0.5 * 10 ** -diff[0].decimals + 1e-9
        if abs(abs(a - b) - stated) <= tolerance and _holds(a, b, larger, m.group("cmp")):
            continue
        out.append(_claim(sentence, offset, _LEADS.sub("", m.group(0).strip()), _what_figures_say(*names, by=True)))
    return out


_ITEM = r"(?:\d+-)?[A-Za-z][\w'’-]*"
_UNPAIRED = re.compile(
    rf"(?P<a>{_ITEM}(?:\s+{_ITEM}){{0,3}})\s+(?:is|are|works out|comes out)\s+"
    rf"(?:(?P<pre>[$€£₩]?\d+(?:\.\d+)?\s?(?:dollars?|euros?|pounds?|won|원)?)\s+)?"
    rf"(?P<cmp>{LARGER}|{SMALLER})\b(?!\s+than)(?:\s+by\s+(?P<by>[$€£₩]?\d+(?:\.\d+)?))?",
    re.IGNORECASE,
)
"""A comparative with no "than": "so the semi is cheaper by £2", "the bungalow is £2 cheaper"."""


def _unpaired(sentence: str, offset: int, answer: str) -> list[Claim]:
    """ "A is cheaper (by N)" with the other side left unsaid: it is the one other figure of A's
    kind the answer gives beside a name (the stated difference aside); the direction, and the
    difference when stated, must match. Not judged when the answer gives more than one other."""
    out = []
    for m in _UNPAIRED.finditer(sentence):
        larger = _larger(m.group("cmp"))
        if larger is None or _NEGATION.search(m.group(0)):
            continue
        stated = m.group("by") or m.group("pre")
        start, end = offset + m.start(), offset + m.end()
        rest = answer[:start] + " " * (end - start) + answer[end:]
        a_name, a = _read_name(m.group("a").split(), rest, (), from_end=True)
        if a is None:
            continue
        mine = next((c for c in _figures(rest) if c.numbers[0] == a), None)
        drop = {_figures(stated)[0].numbers[0]} if stated and _figures(stated) else set()
        others = {c.numbers[0] for c in _figures(rest) if mine and c.kind == mine.kind} - {a} - drop
        if len(others) != 1:
            continue
        b = others.pop()
        right_way = _holds(a, b, larger, m.group("cmp"))
        right_size = not drop or abs(abs(a - b) - next(iter(drop))) <= 0.005 + 1e-9
        if right_way and right_size:
            continue
        said = f"{a_name} {a:g}, {abs(a - b):g} {'above' if a > b else 'below'} the other figure, {b:g}"
        out.append(
            _claim(sentence, offset, _LEADS.sub("", m.group(0).strip()), f"the answer's own figures give {said}")
        )
    return out


def wrong_comparisons(answer: str, tool_calls: Sequence[Mapping[str, Any]] = ()) -> list[Claim]:
    """Comparisons the answer states that its own figures (or the results') contradict."""
    outputs = [str(c.get("output") or "") for c in tool_calls if c.get("success")]
    claims: list[Claim] = []
    for m in _SENTENCE.finditer(answer or ""):
        sentence = m.group(0)
        differences = _differences(sentence, m.start(), answer, outputs)
        named = [
            c for c in _between_names(sentence, m.start(), outputs) if not any(_overlap(c, d) for d in differences)
        ]
        numeric = [c for c in _between_figures(sentence, m.start()) if not any(_overlap(c, n) for n in named)]
        unpaired = [c for c in _unpaired(sentence, m.start(), answer) if not any(_overlap(c, d) for d in differences)]
        claims += differences + named + numeric + unpaired
    return claims


def _overlap(a: Claim, b: Claim) -> bool:
    return a.start < b.end and b.start < a.end


_BOUND_WORDS = re.compile(
    rf"\b(?:(?P<cmp>{LARGER}|{SMALLER})\s+than|(?P<prep>over|above|under|below|at\s+least|at\s+most))\s+(?=\S)",
    re.IGNORECASE,
)
_PREP_LARGER = ("over", "above", "at least")


def _bounds(text: str) -> list[tuple[bool, float, int, int]]:
    """``(larger, value, start, end)`` for each bound a text sets on a figure: "more than £40",
    "under 10", "at least 3 nights" (the phrase and its figure)."""
    out = []
    figures = _figures(text)
    for m in _BOUND_WORDS.finditer(text):
        figure = next((f for f in figures if f.start == m.end()), None)
        if figure is None:
            continue
        word = m.group("cmp") or ""
        larger = _larger(word) if word else " ".join(m.group("prep").lower().split()) in _PREP_LARGER
        if larger is not None:
            digits = re.match(r"\D*\d[\d,.]*%?", figure.text)  # "£40", "10" (not "10 in" of "10 in stock")
            end = figure.start + (digits.end() if digits else len(figure.text))
            out.append((larger, abs(figure.numbers[0]), m.start(), end))
    return out


_ASKS_WHICH = re.compile(r"\b(?:how\s+many|how\s+much|which|what|list|count|total)\b", re.IGNORECASE)
"""A goal whose bound says which things it asks about ("how many pitches cost more than £40"), not
a yes or no ("can I join if I'm over 18?", whose answer may well state the rule for under 18s)."""


def flipped_bounds(answer: str, goal: str) -> list[Claim]:
    """The answer's bounds on a figure of the goal's own bound, the other way round: asked how many
    pitches cost "more than £40", the model answered "1 pitch that costs less than £40". Only where
    the goal asks which or how many (:data:`_ASKS_WHICH`), and not when the answer also states the
    goal's bound ("13 are over £40; 20 are under £40")."""
    if not _ASKS_WHICH.search(goal):
        return []
    asked = {(value, larger): goal[start:end] for larger, value, start, end in _bounds(goal)}
    if not asked:
        return []
    said = _bounds(answer)
    stated = {(value, larger) for larger, value, _, _ in said}
    out = []
    for larger, value, start, end in said:
        wanted = asked.get((value, not larger))
        if wanted is not None and (value, not larger) not in stated:
            text = answer[start:end]
            out.append(
                Claim(
                    text=text,
                    value=text,
                    kind="comparison",
                    start=start,
                    end=end,
                    expected=f"the question asks about {wanted}",
                )
            )
    return out
