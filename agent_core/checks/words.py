"""What the answer check says: the one-line summary under an answer, the CLI's warnings, the
corrective turn sent back to the model, and what is and is not checked. Pure functions over the
record's ``grounding`` field (:mod:`agent_core.checks.grounding` makes it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCALED = "the question is about"
"""The words of a reason that a figure is given for another quantity than the one asked about."""
AS_DIFFERENCE = (
    "it is given as a difference, but the results hold it only as a figure of its own, and no two of "
    "their figures differ by it"
)
"""The reason a figure the answer states as a difference is not supported (:mod:`agent_core.checks.differences`)."""
PER_ONE_ONLY = "and the answer gives only a price"
"""Words of the reason that prices per one answer a price asked for several (:mod:`agent_core.checks.asked`)."""
ONE_PRICE = "the question asks how much the prices differ, and the answer gives one price and no difference"
"""The reason one price answers no price difference (:mod:`agent_core.checks.asked`)."""
PRICES_ONLY = "the question asks how much the prices differ, and the answer gives the prices and no difference"
"""The reason two prices side by side answer no price difference (:mod:`agent_core.checks.asked`)."""
OTHER_BASIS = "the answer gives it per"
"""Words of the reason that a price is per another thing than the result's (:mod:`agent_core.checks.bases`)."""
WORKED_OUT = (PER_ONE_ONLY, ONE_PRICE, PRICES_ONLY, OTHER_BASIS)
"""The reasons that a true figure answers another quantity than the one asked (a price per one for
several, one price or two side by side for a difference, a price per lesson for one per term):
the answer is worked out, not looked up again."""
UNMENTIONED = "no tool result mentions"
"""How the reason begins when the answer applies a figure to a word no result has
(:func:`agent_core.checks.subjects.unmentioned_word`)."""

NO_TOOL_NOTE = (
    "No tool call succeeded in this run, so none of the figures in this answer could be checked "
    "against a tool result: they come from the question or from the model alone."
)
NO_TOOL_NOTE_PLAIN = (
    "No tool was used: this answer comes from the model alone, and nothing in it was checked against a tool result."
)
NO_TOOL_WORKED_NOTE = "No tool result could be used" + NO_TOOL_NOTE_PLAIN.removeprefix("No tool was used")
WHAT_IS_CHECKED = (
    "Checked: every number, amount of money, percentage, quantity with a unit, temperature, date "
    "and time, and every e-mail address, web address and phone number in the answer is looked up "
    "in your goal and in the results of the tool calls that "
    "succeeded (1,000 = 1000, $24 = 24 USD, 19 °C = 66.2 °F, 2026-09-09 = September 9 = 9월 9일). "
    "A value that is a simple sum, difference, product or ratio of found numbers counts as found; "
    "a result computed from a figure no earlier result gives does not. A figure a result gives for "
    "another quantity (200 g for 4 people, when you asked about 10) does not count unless the "
    "answer says so, nor does one a result writes only with another unit, in a code or as a section "
    'number (1 person for "1 week", T-140 for "140 kg"), nor one a table gives in another row or '
    "column than the one the answer names, nor a figure applied to a thing no result mentions. "
    'A comparison the answer states ("480 is less than 500", "Tokyo is warmer '
    'than London") is recomputed from the figures. '
    "Not checked: the reasoning, a yes or no, names, places, opinions and wording — a found number "
    "can still be used in a wrong sentence."
)


def unsupported(grounding: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The claims no source supports."""
    return [c for c in (grounding or {}).get("claims", []) if c.get("source") is None]


def summary(grounding: Mapping[str, Any] | None) -> str:
    """One line: "every number appears in a tool result; the reasoning was not checked", "2 of 3 numbers found …", "⚠ …"."""
    if not grounding:
        return "not checked"
    claims = grounding.get("claims") or []
    missing = unsupported(grounding)
    if not claims:
        return "no numbers, dates or times to check"
    if not missing:
        if all((c.get("source") or {}).get("goal") for c in claims):
            return "every number comes from your goal, so nothing was checked against a tool result"
        found = "every number appears in a tool result" + (
            "" if not any((c.get("source") or {}).get("goal") for c in claims) else " or your goal"
        )
        return found + "; the reasoning was not checked"
    sums = [c for c in missing if c.get("arithmetic")]
    said = [c for c in missing if c.get("kind") in ("verdict", "comparison")]
    reasoned = [c for c in missing if c.get("reason") and c not in said]
    others = [c for c in missing if not c.get("arithmetic") and c not in said and c not in reasoned]
    parts = [warning(c) for c in said[:2]]
    parts += [f"{c['text']} is wrong: {c['arithmetic']}" for c in sums[:2]]
    by_reason: dict[str, list[str]] = {}
    for c in reasoned:  # "$289 and $349: the question asks how much the prices differ, …", said once
        by_reason.setdefault(str(c["reason"]), []).append(str(c["text"]))
    parts += [f"{_listed(texts)}: {reason}" for reason, texts in list(by_reason.items())[:2]]
    if len(others) == 1:
        parts.append(f"{others[0]['text']} appears in no tool result: the model may have made it up")
    elif others:
        shown = ", ".join(c["text"] for c in others[:4]) + (" …" if len(others) > 4 else "")
        parts.append(f"{shown} appear in no tool result: the model may have made them up")
    text = "⚠ " + "; ".join(parts)
    figures = [c for c in claims if c.get("kind") not in ("verdict", "comparison")]
    if figures and len(missing) - len(said) < len(figures):
        text += f" ({found_line(grounding)})"
    return text


def _listed(texts: list[str]) -> str:
    """ "$289", "$289 and $349", "$1, $2 and $3"."""
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def found_line(grounding: Mapping[str, Any] | None) -> str:
    """ "2 of 3 numbers found in tool results" (or the goal); a yes or no is not counted."""
    claims = [c for c in (grounding or {}).get("claims") or [] if c.get("kind") not in ("verdict", "comparison")]
    found = sum(c.get("source") is not None for c in claims)
    goal = any((c.get("source") or {}).get("goal") for c in claims)
    return f"{found} of {len(claims)} numbers found in tool results" + (" or your goal" if goal else "")


def short(claim: Mapping[str, Any]) -> str:
    """An unsupported claim in a few words, for a list: ``20 °C``, ``"No", but the results say yes``."""
    if claim.get("kind") == "verdict":
        return f'"{claim.get("text")}", but the results say {"yes" if claim.get("value") == "no" else "no"}'
    if claim.get("kind") == "comparison":
        return f'"{claim.get("text")}", but {claim.get("expected")}'
    return str(claim.get("text"))


def warning(claim: Mapping[str, Any]) -> str:
    """One unsupported claim in plain words (the CLI prints one line each)."""
    if claim.get("arithmetic"):
        return f"{claim['text']} is wrong arithmetic: {claim['arithmetic']}"
    if claim.get("kind") == "verdict":
        return f'"{claim["text"]}" contradicts the tool results, which say {claim.get("expected")}'
    if claim.get("kind") == "comparison":
        return f'"{claim["text"]}" is the wrong way round: {claim.get("expected")}'
    if claim.get("reason"):
        return f"{claim['text']} is not supported: {claim['reason']}"
    return f"{claim['text']} appears in no tool result: the model may have made it up"


def correction(grounding: Mapping[str, Any]) -> str:
    """The corrective turn sent to the model when ``ANSWER_CHECK=retry`` finds made-up figures
    (or a yes or no the results contradict)."""
    compared = [c for c in unsupported(grounding) if c.get("kind") == "comparison"]
    if compared:
        return (
            f'Your answer says "{compared[0]["text"]}", but {compared[0].get("expected")}. '
            "Answer again from the tool results, with the comparison the right way round."
        )
    reasoned = [c for c in unsupported(grounding) if c.get("reason")]
    if reasoned and reasoned[0]["reason"] == AS_DIFFERENCE:
        return (
            f"Your answer gives {reasoned[0]['text']} as a difference, but no two figures of the tool results "
            "differ by it. Look up both figures with a tool and subtract them with the calculator, or say that "
            "the results do not give them."
        )
    if reasoned and str(reasoned[0]["reason"]).startswith(UNMENTIONED):
        # The user's word may be the results' in other words ("refund window" for "within 30 days").
        return (
            f"Your answer says {reasoned[0]['text']}, but {reasoned[0]['reason']}. If a result gives it for the "
            "same thing in other words, answer in the result's words; if not, say that the results do not give it."
        )
    if reasoned:
        scaled = any(words in str(reasoned[0]["reason"]) for words in (SCALED, *WORKED_OUT))
        return f"Your answer says {reasoned[0]['text']}, but {reasoned[0]['reason']}. " + (
            "Work it out for the quantity asked (with a tool for the arithmetic), or say which quantity the figure is for."
            if scaled
            else "Give only a figure a tool result states for what was asked (look it up with a tool), "
            "or say that the results do not give it."
        )
    sums = [c for c in unsupported(grounding) if c.get("arithmetic")]
    if sums:
        wrong = "; ".join(f"{c['text']}, but {c['arithmetic']}" for c in sums[:3])
        return (
            f"Your answer says {wrong}. Do not do arithmetic yourself: use the calculator, or answer without the sum."
        )
    claims = unsupported(grounding)
    missing = [c["text"] for c in claims]
    listed = ", ".join(missing[:6])
    says = f"says {listed}" if len(missing) == 1 else f"states {listed}"
    if all(c.get("kind") == "contact" for c in claims):
        return (
            f"Your answer {says}; no tool result says that. Give only an address or phone number a "
            "tool result states, or say that the results do not give one. Do not make one up."
        )
    return (
        f"Your answer {says}; no tool result says that. Call the tool that gives "
        f"{'it' if len(missing) == 1 else 'them'} (use the calculator for arithmetic), "
        "or answer without it. Do not guess numbers, dates, times or addresses."
    )
