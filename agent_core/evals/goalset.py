"""Goal-set files: YAML lists of goals with the checks every run of them must pass.

:func:`load_goal_set` reads and validates a whole file before anything runs; a problem raises
:class:`GoalSetError` with one line naming the file, the goal id and the field
(``evals/x.yaml: goal 'paris': checks[2].answer_regex: expected text, got a number``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_core.errors import ErrorCategory
from agent_core.records.files import STATUSES
from agent_core.records.run_record import LIVE_STATUSES
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES

MAX_FILE_BYTES = 2_000_000
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,79}$")
SEQUENCE_MODES = ("strict", "in_order", "any_order", "subset", "superset")
ERROR_CATEGORIES = tuple(c.value for c in ErrorCategory)
KNOWN_TOOLS = BUILTIN_TOOL_NAMES
"""The built-in tools; a goal's ``tools`` names some of them, or MCP tools (``server__tool``)."""

CHECK_KINDS = (
    "answer_contains",
    "answer_contains_any",
    "answer_not_contains",
    "answer_regex",
    "answer_number",
    "tool_used",
    "tool_used_any",
    "tool_not_used",
    "tool_sequence",
    "tool_args",
    "max_tool_errors",
    "max_steps",
    "max_cost_usd",
    "status",
    "judge",
    "grounded",
    "answer_not_found",
)
GOAL_FIELDS = ("id", "goal", "tools", "max_steps", "checks", "scenario", "tags", "from_run")
FROM_RUN_FIELDS = ("run_id", "provider", "model", "label", "tool_calls")
RECORDED_CALL_FIELDS = (
    *("tool", "arguments", "success", "output", "error", "error_category", "attempts", "fallback", "truncated"),
)
"""What a goal keeps of each tool call of its run: what replaying the call needs (agent_core.analysis.replay)."""
SET_FIELDS = ("name", "description", "goals", "provider", "model", "judge", "workspace")


class GoalSetError(ValueError):
    """A goal-set file that cannot be run; the message is one line naming the place."""


@dataclass(frozen=True)
class Check:
    """One check: its kind (``answer_contains`` …) and its normalised argument."""

    kind: str
    arg: Any

    def label(self) -> str:
        """A short human label, e.g. ``tool_sequence in_order [lookup, calculator]``."""
        arg = self.arg
        if self.kind == "tool_sequence":
            return f"tool_sequence {arg['mode']} [{', '.join(arg['tools'])}]"
        if self.kind == "tool_args":
            return f"tool_args {arg['tool']} {arg['args']}"
        if self.kind == "answer_number":
            return f"answer_number {arg['value']:g}" + (f" ±{arg['tolerance']:g}" if arg["tolerance"] else "")
        if self.kind == "judge":
            return f"judge: {arg['rubric'][:60]}"
        if isinstance(arg, list):
            return f"{self.kind} [{', '.join(str(a) for a in arg)}]"
        if isinstance(arg, dict):
            return f"{self.kind} {arg}"
        return f"{self.kind} {arg}"


@dataclass(frozen=True)
class SourceRun:
    """The run a goal was made from (``from_run:``): its id (provenance), provider and model, a
    person's label of it, and its tool calls as recorded — what ``eval --tools recorded`` answers
    the goal's tool calls from, so the check tests the model, not a changing world."""

    run_id: str
    provider: str | None = None
    model: str | None = None
    label: str | None = None
    tool_calls: tuple[dict[str, Any], ...] | None = None
    """None: not copied into the file (the run's record is read from the store instead)."""


@dataclass(frozen=True)
class Goal:
    id: str
    goal: str
    checks: tuple[Check, ...]
    tools: tuple[str, ...] | None = None
    max_steps: int | None = None
    scenario: str | None = None
    """A demo scenario id (agent_core.run.demo): the goal replays it on the scripted provider."""
    tags: tuple[str, ...] = ()
    from_run: SourceRun | None = None


@dataclass(frozen=True)
class GoalSet:
    name: str
    description: str
    goals: tuple[Goal, ...]
    sha256: str
    path: str
    provider: str | None = None
    """The provider to use when the command line names none (``scripted`` for scenario sets)."""
    model: str | None = None
    judge: dict[str, str] | None = None
    """Default judge ``{provider, model}``; the command line can override it."""
    extra: dict[str, Any] = field(default_factory=dict)
    workspace: str | None = None
    """The documents folder the set's goals are asked about (``workspace:`` in the file, relative
    to it); None: the data folder's own workspace."""

    def goal(self, goal_id: str) -> Goal:
        for g in self.goals:
            if g.id == goal_id:
                return g
        raise KeyError(goal_id)

    @property
    def scripted_only(self) -> bool:
        return all(g.scenario for g in self.goals)


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class _Where:
    """Builds the one-line error for a place in the file."""

    def __init__(self, source: str, goal_id: str | None = None) -> None:
        self.source = source
        self.goal_id = goal_id

    def error(self, path: str, message: str) -> GoalSetError:
        where = f"goal {self.goal_id!r}: " if self.goal_id is not None else ""
        return GoalSetError(f"{self.source}: {where}{path}: {message}")


def _text(value: Any, where: _Where, path: str, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise where.error(path, f"expected text, got {_type_name(value)}")
    if not empty and not value.strip():
        raise where.error(path, "is empty")
    return value


def _texts(value: Any, where: _Where, path: str) -> list[str]:
    """Text or a non-empty list of texts."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise where.error(path, f"expected text or a list of texts, got {_type_name(value)}")
    for i, item in enumerate(value):
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            value[i] = item = str(item)  # "19" written as 19
        _text(item, where, f"{path}[{i}]")
    return list(value)


def _int(value: Any, where: _Where, path: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(path, f"expected a whole number, got {_type_name(value)}")
    if value < minimum:
        raise where.error(path, f"must be at least {minimum}, got {value}")
    return value


def _number(value: Any, where: _Where, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(path, f"expected a number, got {_type_name(value)}")
    return float(value)


def _mapping(
    value: Any, where: _Where, path: str, allowed: Sequence[str], required: Sequence[str] = ()
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error(path, f"expected a mapping, got {_type_name(value)}")
    for key in value:
        if key not in allowed:
            raise where.error(f"{path}.{key}", f"unknown field (expected one of: {', '.join(allowed)})")
    for key in required:
        if key not in value:
            raise where.error(f"{path}.{key}", "is missing")
    return value


def _tool(value: Any, where: _Where, path: str) -> str:
    name = _text(value, where, path)
    if name not in KNOWN_TOOLS and "__" not in name.strip("_"):  # server__tool: an MCP server's tool
        raise where.error(
            path, f"unknown tool {name!r} (known: {', '.join(KNOWN_TOOLS)}, or an MCP server's server__tool)"
        )
    return name


def _tools(value: Any, where: _Where, path: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise where.error(path, f"expected a tool name or a list of tool names, got {_type_name(value)}")
    return [_tool(v, where, f"{path}[{i}]") for i, v in enumerate(value)]


def _check(raw: Any, where: _Where, path: str) -> Check:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise where.error(path, "each check is a mapping with one key, e.g. '- tool_used: calculator'")
    ((kind, arg),) = raw.items()
    path = f"{path}.{kind}"
    if kind not in CHECK_KINDS:
        raise where.error(path, f"unknown check (known: {', '.join(CHECK_KINDS)})")
    if kind in ("answer_contains", "answer_contains_any", "answer_not_contains"):
        return Check(kind, _texts(arg, where, path))
    if kind == "answer_regex":
        pattern = _text(arg, where, path)
        try:
            re.compile(pattern)
        except re.error as exc:
            raise where.error(path, f"not a valid regular expression: {exc}") from None
        return Check(kind, pattern)
    if kind == "answer_number":
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            arg = {"value": arg}
        spec = _mapping(arg, where, path, ("value", "tolerance"), ("value",))
        tolerance = _number(spec.get("tolerance", 0), where, f"{path}.tolerance")
        if tolerance < 0:
            raise where.error(f"{path}.tolerance", "must not be negative")
        return Check(kind, {"value": _number(spec["value"], where, f"{path}.value"), "tolerance": tolerance})
    if kind in ("tool_used", "tool_used_any", "tool_not_used"):
        return Check(kind, _tools(arg, where, path))
    if kind == "tool_sequence":
        spec = _mapping(arg, where, path, ("tools", "mode"), ("tools",))
        mode = spec.get("mode", "in_order")
        if mode not in SEQUENCE_MODES:
            raise where.error(f"{path}.mode", f"unknown mode {mode!r} (known: {', '.join(SEQUENCE_MODES)})")
        tools = spec["tools"]
        if not isinstance(tools, list):
            raise where.error(f"{path}.tools", f"expected a list of tool names, got {_type_name(tools)}")
        return Check(
            kind, {"tools": [_tool(t, where, f"{path}.tools[{i}]") for i, t in enumerate(tools)], "mode": mode}
        )
    if kind == "tool_args":
        spec = _mapping(arg, where, path, ("tool", "args"), ("tool", "args"))
        args = spec["args"]
        if not isinstance(args, dict) or not args:
            raise where.error(f"{path}.args", f"expected a mapping of argument values, got {_type_name(args)}")
        return Check(kind, {"tool": _tool(spec["tool"], where, f"{path}.tool"), "args": dict(args)})
    if kind == "max_tool_errors":
        if isinstance(arg, dict):
            limits = _mapping(arg, where, path, ERROR_CATEGORIES)
            if not limits:
                raise where.error(path, "is empty")
            return Check(kind, {k: _int(v, where, f"{path}.{k}") for k, v in limits.items()})
        return Check(kind, _int(arg, where, path))
    if kind == "max_steps":
        return Check(kind, _int(arg, where, path, minimum=1))
    if kind == "max_cost_usd":
        cost = _number(arg, where, path)
        if cost < 0:
            raise where.error(path, "must not be negative")
        return Check(kind, cost)
    if kind == "status":
        statuses = _texts(arg, where, path)
        for i, status in enumerate(statuses):
            if status not in STATUSES or status in LIVE_STATUSES:
                raise where.error(
                    f"{path}[{i}]", f"unknown status {status!r} (known: completed, max_steps, error, cancelled)"
                )
        return Check(kind, statuses)
    if kind == "judge":
        if isinstance(arg, str):
            arg = {"rubric": arg}
        spec = _mapping(arg, where, path, ("rubric", "samples"), ("rubric",))
        samples = _int(spec.get("samples", 1), where, f"{path}.samples", minimum=1)
        if samples > 9:
            raise where.error(f"{path}.samples", f"at most 9 samples, got {samples}")
        return Check(kind, {"rubric": _text(spec["rubric"], where, f"{path}.rubric"), "samples": samples})
    if kind == "answer_not_found":
        if not isinstance(arg, bool):
            raise where.error(path, f"expected true or false, got {_type_name(arg)}")
        return Check(kind, arg)
    # grounded
    if arg is not True:
        raise where.error(path, f"expected true, got {_type_name(arg)}")
    return Check(kind, True)


def _recorded_call(raw: Any, where: _Where, path: str) -> dict[str, Any]:
    call = _mapping(raw, where, path, RECORDED_CALL_FIELDS, ("tool",))
    _text(call["tool"], where, f"{path}.tool")
    if not isinstance(call.get("arguments", {}), dict):
        raise where.error(f"{path}.arguments", f"expected a mapping, got {_type_name(call.get('arguments'))}")
    for name in ("output", "error", "error_category"):
        if call.get(name) is not None and not isinstance(call[name], str):
            call[name] = str(call[name])  # an output of digits written as a number
    for name in ("success", "truncated"):
        if name in call and not isinstance(call[name], bool):
            raise where.error(f"{path}.{name}", f"expected true or false, got {_type_name(call[name])}")
    attempts = call.get("attempts", [{"success": bool(call.get("success", True))}])
    if not isinstance(attempts, list) or not all(isinstance(a, dict) for a in attempts):
        raise where.error(f"{path}.attempts", f"expected a list of mappings, got {_type_name(attempts)}")
    fallback = call.get("fallback")
    if fallback is not None and not isinstance(fallback, dict):
        raise where.error(f"{path}.fallback", f"expected a mapping, got {_type_name(fallback)}")
    return {**call, "attempts": attempts}


def _from_run(raw: Any, where: _Where) -> SourceRun:
    spec = _mapping(raw, where, "from_run", FROM_RUN_FIELDS, ("run_id",))
    texts = {
        name: (_text(spec[name], where, f"from_run.{name}") if spec.get(name) is not None else None)
        for name in ("run_id", "provider", "model", "label")
    }
    calls = spec.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise where.error("from_run.tool_calls", f"expected a list of tool calls, got {_type_name(calls)}")
        calls = tuple(_recorded_call(c, where, f"from_run.tool_calls[{i}]") for i, c in enumerate(calls))
    return SourceRun(
        run_id=str(texts["run_id"]),
        provider=texts["provider"],
        model=texts["model"],
        label=texts["label"],
        tool_calls=calls,
    )


def _goal(raw: Any, index: int, source: str, seen: set[str], scenarios: Sequence[str]) -> Goal:
    where = _Where(source)
    if not isinstance(raw, dict):
        raise where.error(f"goals[{index}]", f"expected a mapping with id, goal and checks, got {_type_name(raw)}")
    if "id" not in raw:
        raise where.error(f"goals[{index}].id", "is missing")
    goal_id = raw["id"]
    if isinstance(goal_id, (int, float)) and not isinstance(goal_id, bool):
        goal_id = str(goal_id)
    goal_id = _text(goal_id, where, f"goals[{index}].id")
    if not ID_PATTERN.match(goal_id):
        raise where.error(f"goals[{index}].id", f"{goal_id!r} is not a valid id (letters, digits, _ . -; at most 80)")
    where = _Where(source, goal_id)
    if goal_id in seen:
        raise where.error("id", f"duplicate id (goals[{index}]; ids must be unique in the file)")
    seen.add(goal_id)
    for key in raw:
        if key not in GOAL_FIELDS:
            raise where.error(str(key), f"unknown field (expected one of: {', '.join(GOAL_FIELDS)})")
    scenario = None
    if raw.get("scenario") is not None:
        scenario = _text(raw["scenario"], where, "scenario")
        if scenario not in scenarios:
            raise where.error("scenario", f"unknown demo scenario {scenario!r} (known: {', '.join(scenarios)})")
    if "goal" in raw:
        text = _text(raw["goal"], where, "goal")
    elif scenario:
        from agent_core.run.demo import get_scenario

        text = get_scenario(scenario).goal
    else:
        raise where.error("goal", "is missing")
    tools = None
    if raw.get("tools") is not None:
        tools = tuple(_tools(raw["tools"], where, "tools"))
    max_steps = _int(raw["max_steps"], where, "max_steps", minimum=1) if raw.get("max_steps") is not None else None
    checks_raw = raw.get("checks")
    if checks_raw is None:
        raise where.error("checks", "is missing (a goal needs at least one check)")
    if not isinstance(checks_raw, list) or not checks_raw:
        raise where.error("checks", f"expected a non-empty list of checks, got {_type_name(checks_raw)}")
    checks = tuple(_check(c, where, f"checks[{i}]") for i, c in enumerate(checks_raw))
    tags = tuple(_texts(raw["tags"], where, "tags")) if raw.get("tags") is not None else ()
    from_run = _from_run(raw["from_run"], where) if raw.get("from_run") is not None else None
    return Goal(
        id=goal_id,
        goal=text,
        checks=checks,
        tools=tools,
        max_steps=max_steps,
        scenario=scenario,
        tags=tags,
        from_run=from_run,
    )


_ID_LINE = re.compile(r"^\s*-?\s*id:\s*['\"]?([^'\"#\s]+)")


def _goal_near(text: str, line: int) -> str | None:
    """The id of the goal a YAML error is in: the last ``id:`` line at or above ``line``."""
    for row in reversed(text.splitlines()[: line + 1]):
        match = _ID_LINE.match(row)
        if match:
            return match.group(1)
    return None


def parse_goal_set(text: str | bytes, source: str = "goal set") -> GoalSet:
    """Validate a goal-set file's text; :class:`GoalSetError` (one line) on any problem."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    if len(data) > MAX_FILE_BYTES:
        raise GoalSetError(f"{source}: the file is too large ({len(data):,} bytes; the limit is {MAX_FILE_BYTES:,})")
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GoalSetError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    try:
        raw = yaml.safe_load(decoded)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        near = _goal_near(decoded, mark.line) if mark is not None else None
        goal = f"goal {near!r}: " if near else ""
        raise GoalSetError(f"{source}: {goal}{place}YAML error: {problem}") from None
    where = _Where(source)
    if not isinstance(raw, dict):
        raise where.error("top level", f"expected a mapping with name and goals, got {_type_name(raw)}")
    for key in raw:
        if key not in SET_FIELDS:
            raise where.error(str(key), f"unknown field (expected one of: {', '.join(SET_FIELDS)})")
    if "name" not in raw:
        raise where.error("name", "is missing")
    name = _text(raw["name"], where, "name")
    description = _text(raw.get("description", ""), where, "description", empty=True)
    goals_raw = raw.get("goals")
    if not isinstance(goals_raw, list) or not goals_raw:
        raise where.error("goals", f"expected a non-empty list of goals, got {_type_name(goals_raw)}")
    from agent_core.run.demo import SCENARIOS

    scenario_ids = [s.id for s in SCENARIOS]
    seen: set[str] = set()
    goals = tuple(_goal(g, i, source, seen, scenario_ids) for i, g in enumerate(goals_raw))
    provider = _text(raw["provider"], where, "provider") if raw.get("provider") is not None else None
    model = _text(raw["model"], where, "model") if raw.get("model") is not None else None
    judge = None
    if raw.get("judge") is not None:
        spec = _mapping(raw["judge"], where, "judge", ("provider", "model"), ("provider",))
        judge = {k: _text(v, where, f"judge.{k}") for k, v in spec.items()}
    workspace = None
    if raw.get("workspace") is not None:
        folder = _text(raw["workspace"], where, "workspace")
        base = Path(source).parent if source != "goal set" else Path.cwd()
        resolved = Path(folder) if Path(folder).is_absolute() else base / folder
        if not resolved.is_dir():
            raise where.error("workspace", f"no such folder: {resolved}")
        workspace = str(resolved)
    return GoalSet(
        name=name,
        description=description,
        goals=goals,
        sha256=hashlib.sha256(data).hexdigest(),
        path=source,
        provider=provider,
        model=model,
        judge=judge,
        workspace=workspace,
    )


def load_goal_set(path: str | Path) -> GoalSet:
    """Read and validate a goal-set file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise GoalSetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GoalSetError(f"{path}: is a folder, not a goal-set file") from None
    except OSError as exc:
        raise GoalSetError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_goal_set(data, str(path))


def bundled_sets(root: Path | None = None) -> list[Path]:
    """The goal-set files shipped in the repo's ``evals/`` folder: seeds, everyday, scenarios, then by name."""
    folder = root or Path(__file__).resolve().parent.parent.parent / "evals"
    if not folder.is_dir():
        return []
    first = {"seeds": 0, "everyday": 1, "scenarios": 2}
    return sorted((p for p in folder.glob("*.yaml") if p.is_file()), key=lambda p: (first.get(p.stem, 9), p.name))


def as_mapping(goal_set: GoalSet) -> Mapping[str, Any]:
    """What an eval result says about its goal set."""
    return {
        "name": goal_set.name,
        "sha256": goal_set.sha256,
        "path": goal_set.path,
        "description": goal_set.description,
        "goals": [g.id for g in goal_set.goals],
    }
