"""A run explained in plain words, made from its record with templates (no model, no key).

:func:`explain` gives a short summary (3–6 sentences, each tied to the step it is about), the
failure explanation of a run that did not finish (its main cause by a fixed priority, and what
to try), a one-line version for tables, and the list of facts the summary rests on. The words
are for people who do not program: the error categories have fixed plain phrases
(:data:`PLAIN_PHRASES`), and the engine's own terms (error class names, messages) go only into
``technical``, which the pages show in a "Technical details" expander.

:func:`check_ai_text` is the guard of the optional "Explain with AI": a model's text is kept only
when every number and tool name in it is among the facts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core.records.files import effective_status
from agent_core.records.outcome import outcome
from agent_core.text.words import join_words, plural

PLAIN_PHRASES: dict[str, str] = {
    "validation": "the model filled in the form of the {tool} tool wrongly",
    "transient": "the {tool} service hiccuped and we tried again",
    "timeout": "the {tool} tool took too long",
    "duplicate": "it asked the {tool} tool for the same thing again",
    "non_transient": "the {tool} tool could not do the job",
}
"""The plain phrase of each tool error category, with the tool's name in it."""


def plain_phrase(category: str, tool: Any) -> str:
    """The plain words for a tool error ``category`` of ``tool``."""
    return PLAIN_PHRASES.get(category, PLAIN_PHRASES["non_transient"]).format(tool=tool)


CAUSES = ("provider", "tool_failed", "step_limit", "repeated", "ungrounded", "cancelled", "interrupted")
"""Failure causes in priority order: the first that applies is the main cause."""

FAILED_STATUSES = ("error", "max_steps", "cancelled", "interrupted")

HINTS: dict[str, str] = {
    "raise_limit": "Raise the step limit, so the agent has more turns.",
    "other_model": "Pick another model.",
    "check_key": "Check the key for this provider.",
    "switch_off_tool": "Switch off the {tool} tool, so the model works without it.",
    "shorten_goal": "Shorten the goal, or split it into smaller goals.",
    "try_again": "Try again in a minute: the problem may pass.",
    "run_again": "Run it again and let it finish.",
    "check_answer": "Check the numbers in the answer by hand.",
}
"""The "What you can try" hints; a cause picks the ones that fit it."""


@dataclass
class Sentence:
    """One sentence of the summary and the step it is about (None: the run as a whole)."""

    text: str
    step: int | None = None
    topic: str = ""
    """outcome | tools | problem | context | grounding | cost"""


@dataclass
class FailureExplanation:
    """Why a run did not finish well: the main cause, in plain words, and what to try."""

    cause: str
    """One of :data:`CAUSES`."""
    headline: str
    step: int | None
    hints: list[str]
    tool: str | None = None


@dataclass
class Explanation:
    """Everything :func:`explain` says about one run."""

    status: str
    sentences: list[Sentence]
    one_line: str
    failure: FailureExplanation | None
    facts: list[str]
    """Plain statements the summary rests on (the input of "Explain with AI")."""
    technical: list[str] = field(default_factory=list)
    """Engine terms (error types, raw messages, call ids), for a "Technical details" expander."""
    tools: list[str] = field(default_factory=list)
    """Tool names the facts mention (offered or used)."""

    @property
    def text(self) -> str:
        """The summary as one paragraph."""
        return " ".join(s.text for s in self.sentences)


# -- small word helpers --------------------------------------------------------------------------

_NUMBER_WORDS = {1: "once", 2: "twice"}


def _times(n: int) -> str:
    return _NUMBER_WORDS.get(n, f"{n} times")


def _tool(name: Any) -> str:
    return f"the {name} tool"


def _seconds(ms: Any) -> str | None:
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms != ms or ms < 0:
        return None
    s = ms / 1000
    if s < 1:
        return "less than a second"
    if s < 90:
        return f"{s:.0f} seconds" if s >= 10 else f"{s:.1f} seconds"
    return f"{s / 60:.0f} minutes"


def _cost(usd: Any) -> str:
    if not isinstance(usd, (int, float)) or isinstance(usd, bool) or usd != usd:
        return "the cost is not known"
    if usd == 0:
        return "it cost nothing"
    return f"it cost about ${usd:.4f}" if usd < 0.01 else f"it cost about ${usd:.2f}"


def _calls(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [c for c in record.get("tool_calls") or [] if isinstance(c, dict)]


def _steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [s for s in record.get("steps") or [] if isinstance(s, dict)]


def _step_of(call: Mapping[str, Any]) -> int | None:
    step = call.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _attempts(call: Mapping[str, Any]) -> list[dict[str, Any]]:
    attempts = call.get("attempts")
    return [a for a in attempts if isinstance(a, dict)] if isinstance(attempts, list) else []


def _failed(call: Mapping[str, Any]) -> bool:
    return not call.get("success") and not call.get("cancelled")


def _provider_failure(record: Mapping[str, Any], status: str) -> tuple[dict[str, Any], int | None] | None:
    """The failed model attempt that ended the run (an ``error`` run), and its step."""
    if status != "error":
        return None
    steps = _steps(record)
    if steps:
        attempts = [a for a in steps[-1].get("model_attempts") or [] if isinstance(a, dict)]
        if attempts and not attempts[-1].get("success"):
            return attempts[-1], steps[-1].get("index")
    error = record.get("error") or {}
    kind = str(error.get("type") or "") if isinstance(error, dict) else ""
    if kind.endswith(("APIError", "RateLimitError", "AuthenticationError", "ProviderError", "ConnectionError")):
        return {"error_type": kind, "message": error.get("message")}, steps[-1].get("index") if steps else None
    return None


def _is_auth(attempt: Mapping[str, Any]) -> bool:
    kind = str(attempt.get("error_type") or "").lower()
    return attempt.get("status") in (401, 403) or "auth" in kind or "permission" in kind


# -- the parts -----------------------------------------------------------------------------------


def _unrecovered(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failed calls (duplicates aside) with no later success of the same tool."""
    out = []
    for n, call in enumerate(calls):
        if not _failed(call) or call.get("duplicate") or call.get("error_category") == "duplicate":
            continue
        later = calls[n + 1 :]
        if not any(c.get("tool") == call.get("tool") and c.get("success") for c in later):
            out.append(call)
    return out


def _problem_sentences(calls: list[dict[str, Any]]) -> list[Sentence]:
    """One sentence per kind of trouble (first occurrence), in the order it happened."""
    out: list[tuple[int, Sentence]] = []
    seen: set[str] = set()
    by_category: Counter[str] = Counter()
    for call in calls:
        cat = call.get("error_category")
        if call.get("duplicate"):
            cat = "duplicate"
        if _failed(call) and isinstance(cat, str):
            by_category[cat] += 1
    for n, call in enumerate(calls):
        step = _step_of(call)
        at = f"At step {step}" if step is not None else "Once"
        later_ok = any(c.get("tool") == call.get("tool") and c.get("success") for c in calls[n + 1 :])
        retried = [a for a in _attempts(call) if not a.get("success") and a.get("error_category") == "transient"]
        fallback = call.get("fallback") if isinstance(call.get("fallback"), dict) else None
        if call.get("success") and retried and "retried" not in seen:
            seen.add("retried")
            tries = len(_attempts(call))
            phrase = plain_phrase("transient", call.get("tool"))
            if fallback:
                text = f"{at}, {phrase} {_times(tries - 1)}, then used the {fallback.get('tool')} tool instead."
            else:
                text = f"{at}, {phrase}; it worked on try {tries}."
            out.append((n, Sentence(text, step, "problem")))
            continue
        if not _failed(call):
            continue
        cat = "duplicate" if call.get("duplicate") else str(call.get("error_category") or "non_transient")
        if cat in seen:
            continue
        seen.add(cat)
        more = by_category[cat] - 1
        again = f" This happened {_times(more + 1)}." if more > 0 and cat != "duplicate" else ""
        phrase = plain_phrase(cat, call.get("tool"))
        if cat == "validation":
            text = f"{at}, {phrase}, {'then fixed it' if later_ok else 'and did not fix it'}.{again}"
        elif cat == "transient":
            text = f"{at}, {phrase}, but it still failed.{again}"
        elif cat == "timeout":
            text = f"{at}, {phrase}, so we stopped waiting.{again}"
        elif cat == "duplicate":
            times = f" ({_times(by_category['duplicate'])})" if by_category["duplicate"] > 1 else ""
            text = f"{at}, {phrase}{times}, so we said no."
        else:
            text = f"{at}, {phrase}.{again}"
        out.append((n, Sentence(text, step, "problem")))
    return [s for _, s in sorted(out, key=lambda pair: pair[0])]


def _outcome(record: Mapping[str, Any], status: str, steps: list[dict[str, Any]]) -> Sentence:
    n = len(steps)
    last = steps[-1].get("index") if steps else None
    limit = (record.get("settings") or {}).get("max_steps")
    if status == "completed":  # the outcome word the Run page and History show (records.outcome)
        kind, why = outcome(record)
        if kind == "not_found":
            return Sentence(
                f"The agent finished in {plural(n, 'step')} and said it could not find what was asked.",
                last,
                "outcome",
            )
        if kind == "no_answer":
            return Sentence(f"The agent finished in {plural(n, 'step')} without an answer: {why}", last, "outcome")
        return Sentence(f"The agent finished and gave an answer in {plural(n, 'step')}.", last, "outcome")
    if status == "max_steps":
        return Sentence(f"The agent used all {limit or n} of its steps and stopped without an answer.", last, "outcome")
    if status == "cancelled":
        return Sentence(f"Someone stopped the run after {plural(n, 'step')}, before it had an answer.", last, "outcome")
    if status == "interrupted":
        return Sentence(
            f"The run was cut off after {plural(n, 'step')}: the program running it went away.", last, "outcome"
        )
    if status == "waiting_for_approval":
        return Sentence(
            f"The run waits for a person to approve a tool call, after {plural(n, 'step')}.", last, "outcome"
        )
    if status == "running":
        return Sentence(f"The run is still going; it has done {plural(n, 'step')} so far.", last, "outcome")
    failure = _provider_failure(record, status)
    if failure is not None:
        attempt, step = failure
        why = (
            "the model service did not accept the key"
            if _is_auth(attempt)
            else "the model service was busy or down"
            if attempt.get("transient")
            else "the model service said no"
        )
        where = f" at step {step}" if step is not None else ""
        return Sentence(f"The run stopped{where} because {why}.", step, "outcome")
    return Sentence(f"The run stopped with a problem after {plural(n, 'step')}.", last, "outcome")


def _tools_used(calls: list[dict[str, Any]]) -> Sentence:
    if not calls:
        return Sentence("It answered without using any tools.", None, "tools")
    counts = Counter(str(c.get("tool")) for c in calls)
    parts = [f"{_tool(name)} {_times(k)}" for name, k in counts.most_common(3)]
    rest = len(counts) - 3
    if rest > 0:
        parts.append(f"{plural(rest, 'other tool')}")
    first = _step_of(calls[0])
    by_model = sum(1 for c in calls if c.get("origin") == "model")
    by_harness = sum(1 for c in calls if c.get("origin") == "harness")
    who = ""
    if by_harness and not by_model:
        who = " (the workbench chose every call for the model)" if len(calls) > 1 else " (the workbench chose it)"
    elif by_model and not by_harness:
        who = " (the model chose every call)" if len(calls) > 1 else " (the model chose it)"
    elif by_model and by_harness:
        who = f" (the model chose {by_model}, the workbench {by_harness})"
    return Sentence(f"It used {join_words(parts)}{who}.", first, "tools")


def _context(steps: list[dict[str, Any]]) -> Sentence | None:
    """What was left out of the model's view (the step where the most was trimmed)."""
    worst: tuple[int, int | None] = (0, None)
    for step in steps:
        trimmed = step.get("blocks_trimmed") or []
        if isinstance(trimmed, list) and len(trimmed) > worst[0]:
            worst = (len(trimmed), step.get("index"))
    if not worst[0]:
        return None
    n, index = worst
    what = "the oldest result" if n == 1 else f"the {n} oldest results"
    return Sentence(f"To keep its input short, the model did not see {what} at step {index}.", index, "context")


def _grounding(record: Mapping[str, Any]) -> Sentence | None:
    grounding = record.get("grounding")
    if not isinstance(grounding, dict):
        return None
    status = grounding.get("status")
    claims = [c for c in grounding.get("claims") or [] if isinstance(c, dict)]
    said = [c for c in claims if c.get("kind") == "verdict" and not c.get("source")]
    if said:
        return Sentence(
            f'The answer says "{said[0].get("text")}", but the tool results say {said[0].get("expected")}.',
            None,
            "grounding",
        )
    missing = [c for c in claims if not c.get("source")]
    if status == "grounded" and claims:
        return Sentence("Every number in the answer was found in the goal or the tool results.", None, "grounding")
    if status == "no_claims" and claims and not missing:
        return Sentence(
            "The answer's numbers only repeat your goal, so nothing in it was checked against a tool result.",
            None,
            "grounding",
        )
    # A figure the results hold, but for another row, quantity or subject, is "not backed", not "not found".
    backed_elsewhere = bool(missing) and all(c.get("reason") for c in missing)
    found = "not backed by" if backed_elsewhere else "not found in"
    if status == "partly":
        if len(missing) == 1:
            return Sentence(f"One number in the answer was {found} the tool results, so check it.", None, "grounding")
        which = f"{len(missing)} numbers" if missing else "Some numbers"
        return Sentence(f"{which} in the answer were {found} the tool results, so check them.", None, "grounding")
    if status == "ungrounded":
        made_up = "may be wrong (see the answer check)" if backed_elsewhere else "may be made up"
        return Sentence(
            f"The numbers in the answer were {found} the tool results, so they {made_up}.", None, "grounding"
        )
    return None


def _time_and_cost(record: Mapping[str, Any]) -> Sentence:
    took = _seconds(record.get("duration_ms"))
    cost = _cost(record.get("cost_usd"))
    if took:
        return Sentence(f"It took {took} and {cost}.", None, "cost")
    return Sentence(cost[0].upper() + cost[1:] + ".", None, "cost")


def _failure(record: Mapping[str, Any], status: str, calls: list[dict[str, Any]]) -> FailureExplanation | None:
    if status not in FAILED_STATUSES:
        return None
    steps = _steps(record)
    last = steps[-1].get("index") if steps else None
    limit = (record.get("settings") or {}).get("max_steps")
    provider = _provider_failure(record, status)
    if provider is not None:
        attempt, step = provider
        if _is_auth(attempt):
            return FailureExplanation(
                "provider",
                "The model service did not accept the key.",
                step,
                [HINTS["check_key"], HINTS["other_model"]],
            )
        if attempt.get("transient"):
            return FailureExplanation(
                "provider",
                "The model service was busy or down, even after we tried again.",
                step,
                [HINTS["try_again"], HINTS["other_model"]],
            )
        return FailureExplanation(
            "provider",
            "The model service turned the request down.",
            step,
            [HINTS["other_model"], HINTS["shorten_goal"], HINTS["check_key"]],
        )
    broken = _unrecovered(calls)
    if broken:
        call = broken[0]
        tool = str(call.get("tool"))
        cat = str(call.get("error_category") or "non_transient")
        hints = [HINTS["switch_off_tool"].format(tool=tool)]
        hints.insert(0 if cat == "validation" else 1, HINTS["other_model"])
        if cat in ("transient", "timeout"):
            hints.insert(0, HINTS["try_again"])
        return FailureExplanation(
            "tool_failed",
            f"A tool failed and the agent could not get past it: {plain_phrase(cat, tool)}.",
            _step_of(call),
            hints,
            tool,
        )
    if status == "max_steps":
        return FailureExplanation(
            "step_limit",
            f"The agent ran out of steps: the limit was {limit or len(steps)}.",
            last,
            [HINTS["raise_limit"], HINTS["shorten_goal"], HINTS["other_model"]],
        )
    dups = [c for c in calls if c.get("duplicate") or c.get("error_category") == "duplicate"]
    if dups:
        return FailureExplanation(
            "repeated",
            f"The agent kept asking for the same thing again ({plural(len(dups), 'time')}).",
            _step_of(dups[0]),
            [HINTS["other_model"], HINTS["shorten_goal"]],
            str(dups[0].get("tool")),
        )
    grounding = record.get("grounding")
    if isinstance(grounding, dict) and grounding.get("status") in ("ungrounded", "partly"):
        return FailureExplanation(
            "ungrounded",
            "Numbers in the answer were not found in the tool results.",
            None,
            [HINTS["check_answer"], HINTS["other_model"]],
        )
    if status == "interrupted":
        return FailureExplanation(
            "interrupted", "The program running the agent stopped while it worked.", last, [HINTS["run_again"]]
        )
    if status == "cancelled":
        return FailureExplanation(
            "cancelled",
            "Someone pressed Stop before the agent was done.",
            last,
            [HINTS["run_again"], HINTS["raise_limit"]],
        )
    return FailureExplanation(
        "provider", "Something inside the program went wrong.", last, [HINTS["try_again"], HINTS["other_model"]]
    )


def _completed_line(kind: str, steps: int, tools: str) -> str:
    """A completed run's one-liner, in its outcome's word (:mod:`agent_core.records.outcome`)."""
    if kind == "not_found":
        return f"Not found, after {plural(steps, 'step')}{tools}."
    if kind == "no_answer":
        return f"No answer after {plural(steps, 'step')}{tools}."
    return f"Answered in {plural(steps, 'step')}{tools}."


def _one_line(
    status: str, steps: int, calls: int, failed: int, failure: FailureExplanation | None, kind: str = ""
) -> str:
    tools = f", {plural(calls, 'tool call')}" + (f" ({failed} failed)" if failed else "") if calls else ""
    if status == "completed":
        return _completed_line(kind, steps, tools)
    if failure is not None:
        where = f" (step {failure.step})" if failure.step is not None else ""
        return failure.headline.rstrip(".") + where + "."
    return {
        "running": f"Still running: {plural(steps, 'step')} so far.",
        "waiting_for_approval": f"Waiting for a tool call's approval after {plural(steps, 'step')}.",
    }.get(status, f"Ended as {status} after {plural(steps, 'step')}{tools}.")


def one_line_from_row(status: str, steps: int, tool_calls: int, failed_calls: int, kind: str = "") -> str:
    """The one-line summary from the History index's fields alone (no record read); ``kind``:
    the stored outcome (:mod:`agent_core.records.outcome`)."""
    calls = (
        f", {plural(tool_calls, 'tool call')}" + (f" ({failed_calls} failed)" if failed_calls else "")
        if tool_calls
        else ""
    )
    return {
        "completed": _completed_line(kind, steps, calls),
        "max_steps": f"Ran out of steps ({steps}){calls}.",
        "error": f"Stopped by a problem after {plural(steps, 'step')}{calls}.",
        "cancelled": f"Stopped by a person after {plural(steps, 'step')}{calls}.",
        "interrupted": f"Cut off after {plural(steps, 'step')}{calls}.",
        "running": f"Still running: {plural(steps, 'step')} so far.",
        "waiting_for_approval": f"Waiting for a tool call's approval after {plural(steps, 'step')}.",
    }.get(status, f"{status}: {plural(steps, 'step')}{calls}.")


def _facts(
    record: Mapping[str, Any],
    status: str,
    steps: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    sentences: list[Sentence],
    failure: FailureExplanation | None,
) -> list[str]:
    facts = [f"status: {status}", f"steps taken: {len(steps)}"]
    limit = (record.get("settings") or {}).get("max_steps")
    if limit:
        facts.append(f"step limit: {limit}")
    counts = Counter(str(c.get("tool")) for c in calls)
    facts += [f"tool {name} was called {k} times" for name, k in counts.items()]
    facts += [
        f"tool {c.get('tool')} failed at step {c.get('step')} ({c.get('error_category')})" for c in calls if _failed(c)
    ]
    facts += [s.text for s in sentences]
    if failure is not None:
        facts.append(f"main cause: {failure.headline}")
    return facts


def explain(record: Mapping[str, Any]) -> Explanation:
    """The plain-language summary, failure explanation, one-liner and facts of one run."""
    status = str(record.get("status_shown") or effective_status(dict(record)) or "")
    steps = _steps(record)
    calls = _calls(record)
    sentences = [_outcome(record, status, steps), _tools_used(calls)]
    grounding = _grounding(record)
    # At most 6 sentences: outcome, tools, time and cost always; then what went wrong, grounding,
    # and what was left out of the model's view when there is room.
    room = 3 - (grounding is not None)
    problems = _problem_sentences(calls)[:room]
    sentences += problems
    context = _context(steps)
    if context is not None and len(problems) < room:
        sentences.append(context)
    if grounding is not None:
        sentences.append(grounding)
    sentences.append(_time_and_cost(record))
    failure = _failure(record, status, calls)
    failed = sum(1 for c in calls if _failed(c))
    line = _one_line(status, len(steps), len(calls), failed, failure, outcome(record)[0])
    technical = []
    error = record.get("error")
    if isinstance(error, dict) and error.get("type"):
        technical.append(f"error type: {error.get('type')}")
        if error.get("message"):
            technical.append(f"error message: {error.get('message')}")
    for call in calls:
        if _failed(call):
            technical.append(
                f"step {call.get('step')} call {call.get('call_id')} {call.get('tool')}: "
                f"{call.get('error_category')} — {call.get('error')}"
            )
    offered = (record.get("settings") or {}).get("tools") or []
    tools = sorted({str(t) for t in offered if isinstance(t, str)} | {str(c.get("tool")) for c in calls})
    return Explanation(
        status=status,
        sentences=sentences,
        one_line=line,
        failure=failure,
        facts=_facts(record, status, steps, calls, sentences, failure),
        technical=technical,
        tools=tools,
    )


def as_text(explanation: Explanation) -> str:
    """The summary and the failure explanation as plain text (the CLI's ``summary``)."""
    lines = [explanation.text]
    failure = explanation.failure
    if failure is not None:
        where = f" (step {failure.step})" if failure.step is not None else ""
        lines += ["", f"Why it did not finish: {failure.headline.rstrip('.')}{where}.", "What you can try:"]
        lines += [f"  - {hint}" for hint in failure.hints]
    return "\n".join(lines)


# -- "Explain with AI" and its guard -------------------------------------------------------------
