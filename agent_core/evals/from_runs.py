"""Goals made from saved runs: what went wrong in daily use, kept as a regression test.

:func:`draft_from_record` turns one run into a :class:`GoalDraft`: its goal, enabled tools, step
limit, provider and model, and checks pre-filled from the run for a person to confirm or edit —

- ``tool_used``: the tools it called successfully;
- the figures of its answer that the answer check found in a tool result (``answer_number`` for a
  number, amount, percentage, quantity or temperature; ``answer_contains`` for a date, time or
  contact detail) — or, when a person labelled the run with a corrected answer, that answer's
  figures instead (``answer_not_found: true`` when it says the thing is not there);
- ``grounded: true`` (an answer with a made-up figure fails it), and ``status: completed`` for a
  run that did not complete.

The draft keeps the run id, provider, model and label (``from_run``) and the run's tool calls as
recorded, so ``eval --tools recorded`` can ask the model again with the same tool results.

:func:`add_goals` appends drafts to a goal-set file (made when missing), skipping a goal whose
text and tools are already in it. A file whose ``goals:`` list comes last keeps its comments and
layout (the new goals are appended as text); any other file is written again from its data.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_core.evals.checks import numbers_in, successful_calls
from agent_core.evals.goalset import (
    ID_PATTERN,
    RECORDED_CALL_FIELDS,
    GoalSet,
    GoalSetError,
    _tool,
    _Where,
    load_goal_set,
    parse_goal_set,
)
from agent_core.evals.not_found import says_not_found
from agent_core.records.labels import Label
from agent_core.text.lang import ascii_folded

GOAL_SETS_DIR = "goal_sets"
"""Where goal sets made from runs go by default: ``<data>/goal_sets/``."""
NUMERIC_KINDS = ("number", "money", "percent", "quantity", "temperature")
TEXT_KINDS = ("date", "time", "contact")
MAX_FIGURES = 8
"""At most this many answer checks are proposed from one answer."""
_write_lock = threading.Lock()


def goal_sets_dir(data_dir: Path | str) -> Path:
    return Path(data_dir) / GOAL_SETS_DIR


def goal_set_files(data_dir: Path | str) -> list[Path]:
    """The goal-set files of the data folder (``<data>/goal_sets/*.yaml``), by name."""
    folder = goal_sets_dir(data_dir)
    return sorted(p for p in folder.glob("*.yaml") if p.is_file()) if folder.is_dir() else []


def goal_key(text: str, tools: Iterable[str] | None) -> tuple[str, tuple[str, ...] | None]:
    """What makes two goals the same: the text (case and spacing aside) and the enabled tools."""
    words = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    return words, (tuple(sorted(set(tools))) if tools is not None else None)


@dataclass
class GoalDraft:
    """A goal made from a run, before it is written to a goal set."""

    id: str
    goal: str
    tools: list[str] | None
    max_steps: int | None
    checks: list[dict[str, Any]]
    """Each check as written in the file (``{"tool_used": ["calculator"]}``)."""
    run_id: str
    provider: str | None = None
    model: str | None = None
    label: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What could not be carried over (a tool this installation does not know …)."""

    @property
    def key(self) -> tuple[str, tuple[str, ...] | None]:
        return goal_key(self.goal, self.tools)

    def as_mapping(self) -> dict[str, Any]:
        """The goal as it is written in the file."""
        out: dict[str, Any] = {"id": self.id, "goal": self.goal}
        if self.tools is not None:
            out["tools"] = list(self.tools)
        if self.max_steps is not None:
            out["max_steps"] = self.max_steps
        out["checks"] = [dict(c) for c in self.checks]
        source: dict[str, Any] = {"run_id": self.run_id}
        for name in ("provider", "model", "label"):
            if getattr(self, name):
                source[name] = getattr(self, name)
        source["tool_calls"] = [dict(c) for c in self.tool_calls]
        out["from_run"] = source
        return out


def _known(name: str) -> bool:
    try:
        _tool(name, _Where("run"), "tools")
    except GoalSetError:
        return False
    return True


def slug(text: str, run_id: str) -> str:
    """A goal id from its text (ASCII words, at most 48 characters), or from the run id."""
    words = re.findall(r"[a-z0-9]+", ascii_folded(text))
    base = "-".join(words)[:48].strip("-")
    if len(base) < 4:  # a goal in Korean, or only symbols
        base = f"run-{re.sub(r'[^A-Za-z0-9]', '', run_id)[-8:] or 'goal'}"
    return base if ID_PATTERN.match(base) else "goal"


def _figure(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    found = numbers_in(str(value))
    return found[0] if found else None


def answer_checks(record: Mapping[str, Any], label: Label | None = None) -> list[dict[str, Any]]:
    """The answer checks proposed for a run (see the module docstring)."""
    checks: list[dict[str, Any]] = []
    numbers: list[float] = []
    texts: list[str] = []
    corrected = (label.corrected_answer if label is not None else "").strip()
    if corrected:
        if says_not_found(corrected):
            return [{"answer_not_found": True}]
        numbers = numbers_in(corrected)
    else:
        grounding = record.get("grounding")
        claims = grounding.get("claims") if isinstance(grounding, dict) else None
        for claim in claims if isinstance(claims, list) else ():
            source = claim.get("source") if isinstance(claim, dict) else None
            if not isinstance(source, dict) or not source.get("call_id"):
                continue  # only figures a tool result gave (not the goal's, not made-up ones)
            if claim.get("kind") in NUMERIC_KINDS:
                number = _figure(claim.get("value"))
                if number is not None:
                    numbers.append(number)
            elif claim.get("kind") in TEXT_KINDS and isinstance(claim.get("text"), str) and claim["text"].strip():
                texts.append(claim["text"].strip())
    for number in list(dict.fromkeys(numbers))[:MAX_FIGURES]:
        checks.append({"answer_number": int(number) if number.is_integer() else number})
    if texts:
        checks.append({"answer_contains": list(dict.fromkeys(texts))[: max(1, MAX_FIGURES - len(checks))]})
    return checks


def proposed_checks(record: Mapping[str, Any], label: Label | None = None) -> list[dict[str, Any]]:
    """Every check proposed for a run: tools, answer figures, grounded, status."""
    checks: list[dict[str, Any]] = []
    tools = [t for t in dict.fromkeys(successful_calls(dict(record))) if _known(t)]
    if tools:
        checks.append({"tool_used": tools})
    checks += answer_checks(record, label)
    checks.append({"grounded": True})
    if record.get("status") != "completed":
        checks.append({"status": ["completed"]})
    return checks


def recorded_calls(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's tool calls as a goal keeps them (what a replay needs; nothing else)."""
    out = []
    calls = record.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict) or not isinstance(call.get("attempts"), list) or call.get("cancelled"):
            continue  # refused before running, or cut short: nothing to answer from
        if not isinstance(call.get("tool"), str) or not isinstance(call.get("arguments", {}), dict):
            continue  # not a call a tool could be asked again
        kept = {name: call[name] for name in RECORDED_CALL_FIELDS if call.get(name) not in (None, "", [])}
        for name in ("output", "error", "error_category"):
            if name in kept and not isinstance(kept[name], str):
                kept[name] = str(kept[name])
        kept["tool"] = str(call.get("tool"))
        kept["attempts"] = [
            {k: a[k] for k in ("success", "error", "error_category") if a.get(k) is not None}
            for a in call.get("attempts") or ()
            if isinstance(a, dict)
        ]
        kept.pop("fallback", None)
        fallback = call.get("fallback")
        if isinstance(fallback, dict):
            kept["fallback"] = {
                "tool": fallback.get("tool"),
                "attempts": [
                    {k: a[k] for k in ("success", "error", "error_category") if a.get(k) is not None}
                    for a in fallback.get("attempts") or ()
                    if isinstance(a, dict)
                ],
            }
        kept.pop("truncated", None)
        if isinstance(call.get("truncated"), bool):
            kept["truncated"] = call["truncated"]
        if "success" in call:
            kept["success"] = call["success"] is True
        out.append(kept)
    return out


def draft_from_record(record: Mapping[str, Any], label: Label | None = None) -> GoalDraft:
    """A goal made from one run record (ValueError for a record without a goal or run id)."""
    run_id = record.get("run_id")
    goal = record.get("goal")
    if not isinstance(run_id, str) or not run_id or not isinstance(goal, str) or not goal.strip():
        raise ValueError(f"run {run_id!r} has no goal to make a goal from")
    settings = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    notes = []
    tools = None
    offered = settings.get("tools") if isinstance(settings, dict) else None
    if isinstance(offered, list):
        names = [t for t in dict.fromkeys(offered) if isinstance(t, str)]
        tools = [t for t in names if _known(t)]
        unknown = [t for t in names if t not in tools]
        if unknown:
            notes.append(f"tools not known here, left out: {', '.join(unknown)}")
        if not tools:
            tools = None
    max_steps = settings.get("max_steps") if isinstance(settings, dict) else None
    return GoalDraft(
        id=slug(goal, run_id),
        goal=goal.strip(),
        tools=tools,
        max_steps=max_steps
        if isinstance(max_steps, int) and not isinstance(max_steps, bool) and max_steps > 0
        else None,
        checks=proposed_checks(record, label),
        run_id=run_id,
        provider=str(record.get("provider") or "") or None,
        model=str(record.get("model") or "") or None,
        label=label.verdict if label is not None else None,
        tool_calls=recorded_calls(record),
        notes=notes,
    )


# -- writing a goal-set file ----------------------------------------------------------------------
class _Dumper(yaml.SafeDumper):
    """Block style for multi-line text (a tool output reads as it was)."""


def _text_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list_representer(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    """A short list of plain values on one line (``tool_used: [calculator]``)."""
    flat = all(isinstance(v, (int, float, bool)) or (isinstance(v, str) and "\n" not in v) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flat and len(str(value)) < 120)


def _dict_representer(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    """A small mapping of plain values on one line (tool arguments); any other in blocks."""
    flat = all(
        isinstance(v, (int, float, bool, type(None))) or (isinstance(v, str) and "\n" not in v) for v in value.values()
    )
    return dumper.represent_mapping(
        "tag:yaml.org,2002:map", value, flow_style=flat and 1 < len(value) and len(str(value)) < 90
    )


_Dumper.add_representer(str, _text_representer)
_Dumper.add_representer(list, _list_representer)
_Dumper.add_representer(dict, _dict_representer)


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


@dataclass
class AddResult:
    """What :func:`add_goals` did."""

    path: Path
    added: list[str] = field(default_factory=list)
    """Ids of the goals written."""
    added_runs: list[str] = field(default_factory=list)
    """The run each of them was made from (in the same order)."""
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    """(run id, the id of the goal with the same text and tools already in the file)."""
    created: bool = False

    def sentence(self) -> str:
        made = "made " if self.created else ""
        dup = f"; {len(self.duplicates)} already there (same goal and tools)" if self.duplicates else ""
        return f"{len(self.added)} goal(s) added to {made}{self.path}{dup}."


def _unique_id(wanted: str, taken: set[str]) -> str:
    if wanted not in taken:
        return wanted
    for n in range(2, 10_000):
        candidate = f"{wanted[:74]}-{n}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free goal id for {wanted!r}")


def _last_key_is_goals(text: str) -> tuple[bool, int]:
    """(the ``goals:`` list is the file's last top-level key, the indent of its items)."""
    keys = [(m.group(1), m.start()) for m in re.finditer(r"(?m)^([A-Za-z_][\w-]*)\s*:", text)]
    if not keys or keys[-1][0] != "goals":
        return False, 2
    after = text[keys[-1][1] :]
    item = re.search(r"(?m)^( *)- ", after)
    return True, len(item.group(1)) if item else 2


def _new_file(path: Path, drafts: Sequence[GoalDraft], name: str | None) -> str:
    from agent_core.providers import PROVIDER_IDS

    head: dict[str, Any] = {
        "name": name or path.stem,
        "description": "Goals made from saved runs (History → Add to goal set, or python -m agent_core goals add). "
        "from_run keeps each goal's run, and its tool results for eval --tools recorded.",
    }
    providers = {(d.provider, d.model) for d in drafts}
    if len(providers) == 1:
        provider, model = next(iter(providers))
        if provider in PROVIDER_IDS:
            head["provider"] = provider
            if model:
                head["model"] = model
    return dump(head) + "goals:\n"


def add_goals(path: Path | str, drafts: Sequence[GoalDraft], *, name: str | None = None) -> AddResult:
    """Append ``drafts`` to the goal set at ``path`` (made when missing); a draft whose text and
    tools a goal of the file already has is skipped, a taken id gets ``-2``, ``-3`` … The file is
    checked as a whole before it is replaced (atomically): :class:`GoalSetError` and nothing
    written when it (or a draft's checks) does not validate."""
    path = Path(path)
    with _write_lock:
        created = not path.exists()
        text = _new_file(path, drafts, name) if created else path.read_text(encoding="utf-8")
        existing = None if created else load_goal_set(path)
        taken = {g.id for g in existing.goals} if existing else set()
        seen = {goal_key(g.goal, g.tools): g.id for g in existing.goals} if existing else {}
        result = AddResult(path=path, created=created)
        fresh = []
        for draft in drafts:
            same = seen.get(draft.key)
            if same is not None:
                result.duplicates.append((draft.run_id, same))
                continue
            draft.id = _unique_id(draft.id, taken)
            taken.add(draft.id)
            seen[draft.key] = draft.id
            fresh.append(draft)
            result.added.append(draft.id)
            result.added_runs.append(draft.run_id)
        if not fresh:
            return result
        appendable, indent = (True, 2) if created else _last_key_is_goals(text)
        if appendable:
            block = dump([d.as_mapping() for d in fresh])
            pad = " " * indent
            block = "".join(pad + line if line.strip() else line for line in block.splitlines(keepends=True))
            new_text = text + ("" if text.endswith("\n") else "\n") + block
        else:  # goals is not last: write the file again from its data (comments are lost)
            data = yaml.safe_load(text)
            data["goals"] = [*data.get("goals", []), *(d.as_mapping() for d in fresh)]
            new_text = dump(data)
        checked: GoalSet = parse_goal_set(new_text, str(path))
        assert len(checked.goals) == len(taken)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(new_text, encoding="utf-8")
        os.replace(tmp, path)
    return result
