"""Grounding: is every number in an answer backed by the goal or a successful tool result?

A made-up figure shown as fact is the worst thing this product can show. This module finds the
*claims* in an answer — numbers, money, percentages, quantities with units, temperatures, dates
and times, and e-mail addresses, web addresses and phone numbers — normalises them (``1,000`` = ``1000``, ``$24`` = ``24 USD``, 19 °C = 66.2 °F,
``2026-09-09`` = ``September 9, 2026`` = ``9월 9일``, ``2만 5천 원`` = 25000 KRW) and looks each
one up in the goal and in the outputs of the run's successful tool calls. A value one plain
arithmetic step away from supported numbers (a sum, difference, product or ratio) counts as
supported too. Numbers inside URLs, code spans and list markers are not claims.

Pure functions, no I/O: :func:`check_answer` returns the record's ``grounding`` field::

    {"status": "grounded" | "partly" | "ungrounded" | "no_claims", "tools_used": n,
     "claims": [{"text", "value", "kind", "source": {"call_id", "tool"} | {"goal": True} | None}],
     "note": "..."}   # only when no tool call succeeded: says the answer comes from the model alone

``no_claims``: nothing to check against a tool result, because the answer has no figure or only
repeats the goal's own.

Names, places and opinions are not checked: only figures and contact details are.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.checks.asked import not_what_was_asked
from agent_core.checks.bases import for_another
from agent_core.checks.citations import cite
from agent_core.checks.claims import (
    ANY_DIGITS,
    Claim,
    claim_context,
    claim_sentence,
    claims_in,
    contacts,
    decimals,
    find_all,
    find_claims,
    fmt,
    same_phone,
)
from agent_core.checks.columns import (
    cell_for_a_count,
    claim_clause,
    from_another_column,
    from_another_date,
    named_cell_figures,
    names_a_column,
    unnamed_row,
)
from agent_core.checks.columns import from_another_row as table_row
from agent_core.checks.comparisons import flipped_bounds, wrong_comparisons
from agent_core.checks.computed import SMALL_OPERANDS, expressions, measures, of_counts
from agent_core.checks.derived import Source, derived, same, unique_operands
from agent_core.checks.differences import stated_differences, temperature_differences
from agent_core.checks.echo import output_text, returns_its_argument, without_echo, without_query
from agent_core.checks.filters import out_of_scope
from agent_core.checks.ranges import claim_outside, inputs_outside, ranged_out
from agent_core.checks.scaling import counted, counts_only, from_another_row, mismatch
from agent_core.checks.subjects import (
    contact_for_another_kind,
    in_another_language,
    one_answer,
    unmentioned_word,
    unnamed_subject,
)
from agent_core.checks.sums import wrong_aggregates, wrong_arithmetic
from agent_core.checks.units import another_figure
from agent_core.checks.words import NO_TOOL_NOTE, NO_TOOL_NOTE_PLAIN, NO_TOOL_WORKED_NOTE, SCALED, UNMENTIONED
from agent_core.records.run_record import CallSource, Grounding
from agent_core.text.lang import is_korean
from agent_core.text.not_found import says_not_found
from agent_core.text.percent import factors
from agent_core.tools.docsearch import tokenize

Status = Literal["grounded", "partly", "ungrounded", "no_claims"]

MAX_ATOMS = 400
"""Numbers kept per source for the one-step arithmetic search (a long file has many)."""

# ---------------------------------------------------------------------------------------------
# Sources


@dataclass
class _Source:
    """What one source (the goal, or one successful tool call) states."""

    ref: Source
    numbers: list[tuple[float, int]] = field(default_factory=list)
    """(value, decimals as written)"""
    dates: list[tuple[int | None, int, int]] = field(default_factory=list)
    minutes: set[int] = field(default_factory=set)
    contacts: frozenset[str] = frozenset()
    """E-mail and web addresses and phone numbers, normalised as :mod:`agent_core.checks.claims` does."""
    words: frozenset[str] | None = None
    """Its words (search tokens, no figures); None for a source whose subject is not checked
    (the goal, a call that computed from an expression)."""
    text: str | None = None
    counts: str = ""
    """The arithmetic, when it used the goal's counts alone ("24 * 12" of "24-hour desk for 12
    months"): what it gives is no amount of money."""


def _source_text(call: Mapping[str, Any]) -> str:
    # A computing call states "expression = result" (its 17 / 100 * 2340); an echoed query states nothing.
    return "\n".join([without_echo(call, output_text(call)), *expressions(call)])


def _inputs_from_nowhere(call: Mapping[str, Any], earlier: Sequence[str], goal: str) -> str | None:
    """Why a call's arithmetic supports nothing: figures that neither the goal nor an earlier result
    states (nor gives as a percentage's factor), a total "computed" from a made-up price (``7 * 100``);
    None when it has none."""
    known = {n for t in (goal, *earlier) for n in [*(v for v, _ in _parse_source(t)[0]), *map(float, factors(t))]}
    missing = []
    for expression in expressions(call):
        figures = ANY_DIGITS.findall(expression.replace(",", ""))
        for digits in figures:
            value = float(digits)
            if value not in known and value not in SMALL_OPERANDS and digits not in missing:
                missing.append(digits)
        if figures and not any(float(d) in known for d in figures):
            # Small counts only, none of them known: "1 * 2 + 1 * 2 + …" computes nothing asked about.
            missing += [d for d in dict.fromkeys(figures) if d not in missing]
    return f"computed from {', '.join(missing)}, which no earlier tool result or the goal gives" if missing else None


def _read_source(text: str, ref: Source, *, words: bool = False, counts: str = "") -> _Source:
    numbers, dates, minutes, addresses = _parse_source(text)
    return _Source(
        ref,
        list(numbers),
        list(dates),
        set(minutes),
        addresses,
        _words(text) if words else None,
        text if words or "goal" in ref else None,
        counts,
    )


def _why_not(claim: Claim, sources: Sequence[_Source], goal: _Source, answer: str) -> str | None:
    """Why no source that holds the claim's figure backs it, when a rule of :func:`_about` said so."""
    number = fmt(claim.numbers[0]) if claim.numbers else claim.text
    if claim.kind == "contact" and (called := contact_for_another_kind(claim.value, claim_sentence(answer, claim))):
        return f"it is an e-mail address, given as {called}"
    for source in (s for s in sources if _matches(claim, s)):
        if name := _unnamed(claim, source, answer, goal.text or ""):
            return f"the results give {number} only in passages that do not mention {name}"
        if _another_language(claim, source, answer):
            return f"the results give {number} only in passages in another language, so what it belongs to could not be checked"
        if source.counts and claim.kind == "money":
            return f"it is computed from the goal's counts and measures alone ({source.counts}), not from a price"
        if source.text is not None and (written := another_figure(claim, source.text)):
            return f"the results give {number} only as {written}"
        if source.text is not None and (columns := _column(claim, source.text, answer, goal.text or "")):
            return f"the results give {number} under {columns[0]}, not under {columns[1]}"
        if source.text is not None and (row := table_row(claim, claim_clause(answer, claim), source.text, _words)):
            return f"the results give {number} in the row of {row[0]}, not of {row[1]}"
        if (
            claim.kind in _COLUMN_CHECKED
            and source.text is not None
            and (dated := from_another_date(claim, claim_clause(answer, claim), source.text))
        ):
            return f"the results give {number} in the row of {dated[0]}, not of {dated[1]}"
        if claim.kind in _COLUMN_CHECKED and (label := _unnamed_row(claim, source, answer)):
            return f"the results give {claim.text.strip()} only in the row of {label}, which the answer does not name"
        if source.text is not None and (
            column := cell_for_a_count(claim, claim_sentence(answer, claim), goal.text or "", source.text, _words)
        ):
            return f"the results give {number} only as a table cell under {column}, not as a count of rows"
        if source.text is not None and (scope := out_of_scope(claim, goal.text or "", source.text)):
            return scope
    if _matches(claim, goal) and counts_only(claim, goal.text or ""):
        return f"the goal gives {number} only as a count of something, not as an amount of money"
    if _matches(claim, goal) and (written := another_figure(claim, goal.text or "")):
        return f"the goal gives {number} only as {written}"
    return None


@functools.lru_cache(maxsize=256)
def _words(text: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(text) if not t[:1].isdigit())


def _unnamed(claim: Claim, source: _Source, answer: str, goal: str) -> str | None:
    """The name (from the goal) the answer applies ``claim`` to that no passage of ``source``
    holding it mentions (:mod:`agent_core.checks.subjects`)."""
    if source.text is None or source.words is None or not goal:
        return None
    return unnamed_subject(claim_sentence(answer, claim), goal, source.text, functools.partial(_holds, claim))


def _holds(claim: Claim, text: str) -> bool:
    """Whether ``text`` (a passage of a result) states ``claim``'s figure."""
    return _matches(claim, _read_source(text, {"goal": True}))


def _another_language(claim: Claim, source: _Source, answer: str) -> bool:
    """Whether ``source`` gives ``claim``'s figure only in search hits written in another language
    than the answer's sentence (:func:`agent_core.checks.subjects.in_another_language`)."""
    sentence = claim_sentence(answer, claim)
    return source.text is not None and in_another_language(sentence, source.text, functools.partial(_holds, claim))


def _column(claim: Claim, text: str, answer: str, goal: str) -> tuple[str, str] | None:
    """The column of a table row of ``text`` that gives ``claim``'s figure, and the other column
    the answer's sentence names instead; where the sentence names no column of that row, the one
    the goal names, unless the answer gives that column's figure too
    (:func:`agent_core.checks.columns.from_another_column`)."""
    if claim.kind not in _COLUMN_CHECKED:
        return None
    sentence = claim_sentence(answer, claim)
    found = from_another_column(claim, sentence, text, _words)
    if found is None and goal and not names_a_column(claim, sentence, text, _words):
        found = from_another_column(claim, goal, text, _words)
        # The answer gives the goal's column's figure too ("$120 a year, or $12 a month"): judged by that one.
        named = named_cell_figures(claim, found[1], text) if found else set()
        if named & {abs(n) for c in find_claims(answer) for n in c.numbers}:
            found = None
    return found


def _unnamed_row(claim: Claim, source: _Source, answer: str) -> str | None:
    """The label of the only table rows of ``source`` that give ``claim``'s figure, when the
    answer's sentence names none of them; judged on English answers from English results only
    (:func:`agent_core.checks.columns.unnamed_row`)."""
    sentence = claim_context(answer, claim)
    if source.text is None or is_korean(sentence) or is_korean(source.text):
        return None
    return unnamed_row(claim, sentence, source.text, _words)


def _about(claim: Claim, source: _Source, answer: str, goal: str = "") -> bool:
    """Whether ``source`` can be about what the answer's sentence applies ``claim`` to. A result
    about another subject that happens to hold the same number is no support: the weather's
    ``"temperature": 22`` for "the watering can costs $22". Judged only where it is plain: an
    amount of money or a quantity the result writes only with another unit, in a code or as a
    section number; an amount of money it never writes as one, or gives in another row of a
    table, in a sentence in the result's script; the goal's count of something ("12 chairs") is
    no amount of money."""
    if claim.kind == "contact" and contact_for_another_kind(claim.value, claim_sentence(answer, claim)):
        return False  # "the phone number is support@example.com"
    if "goal" in source.ref:
        # "$12" from "12 chairs"; "2 hours" from "my chicken weighs 2 kg"
        return not counts_only(claim, source.text or "") and another_figure(claim, source.text or "") is None
    if source.counts and claim.kind == "money":
        return False  # "288원" from 24 * 12 of "24-hour desk for 12 months"
    if source.text is not None and another_figure(claim, source.text) is not None:
        return False  # "$1,200" from "up to 1,200 m", "1 week" from "1인", "140 kg" from "D-140"
    if source.words is None or source.text is None:
        return True
    if _unnamed(claim, source, answer, goal):
        return False  # "the claims e-mail of Harbourline is membership@…", from a walking club's contact section
    if _another_language(claim, source, answer):
        return False  # "14일" for a Korean question from "You can cancel within 14 days", a search hit
    sentence = claim_sentence(answer, claim)
    if claim.kind in _COLUMN_CHECKED and _column(claim, source.text, answer, goal):
        return False  # "$750" for the Standard cover, from the Essentials column of the same row
    same_script = is_korean(sentence) == is_korean(source.text)  # a Korean answer on English documents: not judged
    if (
        same_script
        and claim.kind in _COLUMN_CHECKED
        and table_row(claim, claim_clause(answer, claim), source.text, _words)
    ):
        return False  # "$34.99" for the watering can, from the garden hose's row of the same table
    if claim.kind in _COLUMN_CHECKED and from_another_date(claim, claim_clause(answer, claim), source.text):
        return False  # "29.56 litres on 14 March", from the 29 June row of a log that has the 14 March row
    if claim.kind in _COLUMN_CHECKED and _unnamed_row(claim, source, answer):
        return False  # "the seed products' total stock is 24", from the hand trowel's row alone
    if cell_for_a_count(claim, sentence, goal, source.text, _words):
        return False  # "there are 36 Italian reds", from one row's bottles_in_cellar
    if out_of_scope(claim, goal, source.text):
        return False  # "11 co-op games under an hour", from a count of every co-op game; 19 prices added up
    if claim.kind not in _KIND_CHECKED:
        return True
    if same_script and from_another_row(claim, sentence, source.text, _words):
        return False  # "$259" for the Atlas chair, from the Sola Mesh's row of the same table
    if any(c.kind == claim.kind and set(c.numbers) & set(claim.numbers) for c in claims_in(source.text)):
        return True
    said = _words(sentence)
    return not same_script or not said or bool(said & source.words)


_KIND_CHECKED = frozenset({"money"})
_COLUMN_CHECKED = frozenset({"money", "quantity", "number", "percent"})


@functools.lru_cache(maxsize=256)
def _parse_source(
    text: str,
) -> tuple[tuple[tuple[float, int], ...], tuple[tuple[int | None, int, int], ...], frozenset[int], frozenset[str]]:
    """What a source text states: numbers (value, decimals), dates, times of day in minutes,
    contact details. Cached: the same tool outputs are read again by each answer check of a run."""
    text = unicodedata.normalize("NFC", text)
    numbers: list[tuple[float, int]] = []
    dates: list[tuple[int | None, int, int]] = []
    minutes: set[int] = set()
    addresses = {c.value for c in contacts(text)}
    for claim in find_all(text):
        if claim.kind == "contact":
            addresses.add(claim.value)
        elif claim.date is not None:
            dates.append(claim.date)
        elif claim.minutes is not None:
            minutes.add(claim.minutes)
        else:
            numbers += [(n, claim.decimals if i == 0 else claim.decimals + 2) for i, n in enumerate(claim.numbers)]
    # Every run of digits counts as well (a JSON value "temperature": 19, "Q3", a table cell).
    numbers += [(float(d), decimals(d)) for d in ANY_DIGITS.findall(text)]
    seen: set[float] = set()
    unique = []
    for n, d in numbers:
        if n not in seen:
            seen.add(n)
            unique.append((n, d))
    return tuple(unique[:MAX_ATOMS]), tuple(dates), frozenset(minutes), frozenset(addresses)


def _matches(claim: Claim, source: _Source) -> bool:
    if claim.kind == "contact":
        # The site of a page a result gives ("example.com" for "example.com/refunds") is found too.
        if re.fullmatch(r"\+?\d+", claim.value):
            return any(re.fullmatch(r"\+?\d+", c) and same_phone(c, claim.value) for c in source.contacts)
        return any(c == claim.value or c.startswith(claim.value + "/") for c in source.contacts)
    if claim.date is not None:
        y, m, d = claim.date
        return any(m == sm and d == sd and (y is None or sy is None or y == sy) for sy, sm, sd in source.dates)
    if claim.minutes is not None:
        return claim.minutes in source.minutes
    for n in claim.numbers:
        if any(same(n, claim.decimals, a, ad) for a, ad in source.numbers):
            return True
    return any(same(n, 1, a, ad, slack=0.55) for n in claim.converted for a, ad in source.numbers)


def _status(found: Sequence[tuple[Claim, Source | None]], goal: _Source) -> Status:
    """``no_claims`` also when every figure repeats one the goal writes: nothing was checked against
    a tool result ("No, 15-year-olds cannot join" for "can my 15-year-old join?"), so the answer is
    not "grounded". Arithmetic on the goal's figures ("17% of 2,340 is 397.8") was checked."""
    supported = sum(ref is not None for _, ref in found)
    if not found or all(ref is not None and "goal" in ref and _matches(claim, goal) for claim, ref in found):
        return "no_claims"
    return "grounded" if supported == len(found) else "ungrounded" if supported == 0 else "partly"


def check_answer(answer: str | None, goal: str, tool_calls: Sequence[Mapping[str, Any]]) -> Grounding:
    """The ``grounding`` record field for ``answer`` given the goal and the run's tool calls
    (record ``tool_calls`` entries; only the successful ones are read)."""
    ok_calls = [c for c in tool_calls if c.get("success") and not c.get("duplicate") and not returns_its_argument(c)]
    # A call whose arithmetic used a figure from nowhere supports nothing (its result is that
    # figure's consequence); the claims it would have supported say why.
    # So does one that used a price the results give for another range of the goal's count.
    from_nowhere: dict[str, str] = {}
    earlier: list[str] = []
    for c in ok_calls:
        if why := _inputs_from_nowhere(c, earlier, goal or "") or inputs_outside(expressions(c), goal or "", earlier):
            from_nowhere[output_text(c).strip()] = why
        else:
            earlier.append(_source_text(c))
    usable = [c for c in ok_calls if output_text(c).strip() not in from_nowhere or not expressions(c)]
    texts = {str(c.get("call_id", "")): _source_text(c) for c in usable}
    stated = frozenset(n for c in usable if not expressions(c) for n, _ in _parse_source(_source_text(c))[0])
    # Newest first (a figure in several results is the latest's); a computing call backs only its result.
    sources = [
        _read_source(
            without_echo(c, output_text(c)) if expressions(c) else _source_text(c),
            {"call_id": str(c.get("call_id", "")), "tool": str(c.get("tool", ""))},
            words=not expressions(c),
            counts=of_counts(c, goal or "", stated),
        )
        for c in reversed(usable)
    ]
    goal_source = _read_source(goal or "", {"goal": True})
    claims = find_claims(answer or "")
    found: list[tuple[Claim, Source | None]] = []
    for claim in claims:
        ref = next(
            (
                s.ref
                for s in (*sources, goal_source)
                if _matches(claim, s) and _about(claim, s, answer or "", goal or "")
            ),
            None,
        )
        found.append((claim, ref))
    if any(ref is None for _, ref in found):
        # A count or a measure of the goal's ("12 chairs", "my 10kg dog"): two of them make no price.
        plain, measured = {n for n, _ in goal_source.numbers if n not in stated}, measures(goal or "")
        goal_counts = {n for n in plain if counted(goal or "", {abs(n)}) or abs(n) in measured}
        count_calls = {s.ref.get("call_id") for s in sources if s.counts}

        def is_count(value: float, ref: Source) -> bool:
            return ("goal" in ref and value in goal_counts) or ref.get("call_id") in count_calls

        # One operand is a number the answer or the goal states, the other any source number;
        # a second round lets a derived subtotal support the total (360 + 15 shipping = 375).
        # Not a figure a result gives for another range of the goal's count (21.60 for "500 units or more").
        atoms = [(n, s.ref) for s in sources for n, _ in s.numbers if n not in ranged_out(s.text or "", goal or "")]
        atoms += [(n, goal_source.ref) for n, _ in goal_source.numbers]
        right = sorted(unique_operands(atoms, MAX_ATOMS * 3), key=lambda pair: pair[0])
        # A figure the results give only in another language is not saved by arithmetic that
        # comes to it by chance ("20 hours" = 4 × 5, where "20시간" is a Korean hit's).
        said_of_another = {
            id(c)
            for c, ref in found
            if ref is None and any(_matches(c, s) and _another_language(c, s, answer or "") for s in sources)
        }
        for _round in range(2):
            left = unique_operands(
                itertools.chain(
                    ((n, ref) for c, ref in found if ref is not None for n in c.numbers),
                    ((n, goal_source.ref) for n, _ in goal_source.numbers),
                ),
                MAX_ATOMS,
            )
            before = sum(ref is None for _, ref in found)
            found = [
                (c, ref if ref is not None or id(c) in said_of_another else derived(c, left, right, is_count))
                for c, ref in found
            ]
            if sum(ref is None for _, ref in found) in (0, before):
                break
    found = temperature_differences(answer or "", found)
    computed = {str(c.get("call_id", "")) for c in usable if expressions(c)}
    results: dict[str, tuple[CallSource, str]] = {
        key: ({"call_id": key, "tool": str(c.get("tool", ""))}, texts[key])
        for c in usable
        if (key := str(c.get("call_id", ""))) in texts
    }
    found = stated_differences(answer or "", found, results, computed, goal or "")
    found = [_for_other_quantity(claim, ref, answer or "", goal or "", texts) for claim, ref in found]
    told = [without_query(c, without_echo(c, output_text(c))) for c in usable]
    found = [_of_nothing_found(claim, ref, answer or "", goal_source, texts, told) for claim, ref in found]
    if not says_not_found(answer or "") and (
        judged := not_what_was_asked([c for c, _ in found], goal or "", answer or "")
    ):
        # "해외 배송은 며칠 걸려요?" answered with the free-shipping threshold: no figure answers it.
        why, figures = judged
        for claim in figures:
            claim.reason = claim.reason or why
        found = [(claim, None if claim in figures else ref) for claim, ref in found]
    for claim, ref in found:
        if ref is None and claim.reason is None:
            made = next(
                (
                    m
                    for out, m in from_nowhere.items()
                    if any(same(n, claim.decimals, a, ad) for n in claim.numbers for a, ad in _parse_source(out)[0])
                ),
                None,
            )
            if made:
                claim.reason = made
            elif claim.cut:
                claim.reason = (
                    f"written cut short {'at its decimal point' if '. ' in claim.text else 'in pieces'}; "
                    f"no result or the goal gives {fmt(claim.numbers[0])}"
                )
            else:
                claim.reason = _why_not(claim, sources, goal_source, answer or "")
    found = _with_citations(found, usable)
    # A sum written out wrong ("22 - 15 = 15") is unsupported, whatever its figures' sources.
    found += [(claim, None) for claim in wrong_arithmetic(answer or "")]
    # And an average or a total said in words ("the average of 12, 18 and 27 is 43.5").
    found += [(claim, None) for claim in wrong_aggregates(answer or "")]
    # So is a comparison stated the wrong way round ("$480, which is more than $500").
    found += [(claim, None) for claim in wrong_comparisons(answer or "", usable)]
    # And a bound the other way round from the goal's ("less than £40" for "more than £40").
    found += [(claim, None) for claim in flipped_bounds(answer or "", goal)]
    result: Grounding = {
        "status": _status(found, goal_source),
        "tools_used": len(ok_calls),
        "claims": [c.as_record(ref.copy() if ref is not None else None) for c, ref in found],
    }
    if not ok_calls and (answer or "").strip():
        # Said plainly even with no figure to check: "London is warmer than Seoul" from no tool
        # at all is a claim of fact too (a greeting gets the same, true, remark).
        result["note"] = NO_TOOL_NOTE if claims else NO_TOOL_WORKED_NOTE if tool_calls else NO_TOOL_NOTE_PLAIN
    return result


def _with_citations(
    found: list[tuple[Claim, Source | None]], calls: Sequence[Mapping[str, Any]]
) -> list[tuple[Claim, Source | None]]:
    """Each figure from a document tool with ``cite``: the file and page or section it is in."""
    by_id = {str(c.get("call_id", "")): c for c in calls}
    out: list[tuple[Claim, Source | None]] = []
    for claim, ref in found:
        if ref is None or "goal" in ref or (call := by_id.get(ref["call_id"])) is None:
            out.append((claim, ref))
            continue
        where = cite(call, functools.partial(_holds, claim))
        out.append((claim, {"call_id": ref["call_id"], "tool": ref["tool"], "cite": where} if where else ref))
    return out


def _for_other_quantity(
    claim: Claim, ref: Source | None, answer: str, goal: str, texts: Mapping[str, str]
) -> tuple[Claim, Source | None]:
    """``(claim, None)`` with its reason when its result gives it for another quantity than the
    goal asks about (:mod:`agent_core.checks.scaling`), for a range of it that does not hold the
    goal's (:mod:`agent_core.checks.ranges`), for another day of the week or per another thing
    (:mod:`agent_core.checks.bases`); else as it was."""
    if ref is None or "call_id" not in ref:
        return claim, ref
    text = texts.get(str(ref.get("call_id")), "")
    if why := for_another(claim, answer, goal, text) or claim_outside(claim, goal, text):
        claim.reason = why
        return claim, None
    found = mismatch(claim, answer, goal, text)
    if found is None:
        return claim, ref
    claim.reason = f"the result gives {claim.text.strip()} {found.said()}; {SCALED} {found.goal:g}"
    return claim, None


def _of_nothing_found(
    claim: Claim, ref: Source | None, answer: str, goal: _Source, texts: Mapping[str, str], told: list[str]
) -> tuple[Claim, Source | None]:
    """``(claim, None)`` with its reason when its sentence applies it to a word of the goal that no
    result in ``told`` mentions (:func:`agent_core.checks.subjects.unmentioned_word`), unless the goal states it too."""
    if ref is None or "goal" in ref or one_answer(texts.get(str(ref.get("call_id")), "")):
        return claim, ref  # one answer to what its call asked ('{"temperature": 19}'), not hits or a document
    word = unmentioned_word(claim_context(answer, claim), goal.text or "", told, _words)
    if word is None:
        return claim, ref
    if _matches(claim, goal) and _about(claim, goal, answer):
        return claim, goal.ref  # "the 10 litre jug": the user's own figure
    claim.reason = f"{UNMENTIONED} “{word}”, what the answer gives it for"
    return claim, None


def check_record(record: Mapping[str, Any]) -> Grounding | None:
    """Grounding of a saved record's answer; None when the run has no answer."""
    answer = record.get("answer")
    if not isinstance(answer, str) or record.get("status") not in (None, "completed"):
        return None
    return check_answer(answer, str(record.get("goal") or ""), list(record.get("tool_calls") or []))
