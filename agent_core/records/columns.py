"""The summary columns of a run: written once, here. The index stores them, the run table
(``RunStore.runs()``, the History page, ``python -m agent_core runs``) is built from them.

To add a History column: add a :class:`RunColumn` to :data:`RUN_COLUMN_SPEC` (its value from the
record, and how the table shows it), and its label in ``pages/history.py``'s ``COLUMN_LABELS``.
The index notices the new column list (:data:`COLUMNS_VERSION`) and rebuilds itself once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, NamedTuple

from agent_core.records.outcome import outcome
from agent_core.records.sources import source_of


# -- values reduced to what SQLite stores (str, int, float, None), whatever a record holds -------
def as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str) if isinstance(value, (dict, list)) else str(value)


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    if isinstance(value, float) and value == value and abs(value) < 2**63:
        return int(value)
    return None


def as_float(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        return number if number == number else None
    return None


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def epoch_us(value: Any) -> int | None:
    """ISO 8601 text → microseconds since the epoch (naive times are taken as UTC)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


class Facts(NamedTuple):
    """What several columns need from one record, worked out once."""

    usage: Mapping[str, Any]
    owner: Mapping[str, Any]
    failed_calls: int


TableKind = Literal["text", "int", "float", "bool", "time_us"]


@dataclass(frozen=True)
class RunColumn:
    """One summary value of a run."""

    name: str
    """Its name in the index (and in the run table, unless ``table_name`` says otherwise)."""
    value: Callable[[Mapping[str, Any], Facts], Any]
    """The value from a parsed record, as SQLite stores it (str, int, float, None)."""
    table: TableKind | None
    """How the run table shows it; None: kept in the index only (for the engine's own use)."""
    table_name: str | None = None


def _blocks_trimmed(record: Mapping[str, Any], facts: Facts) -> int:
    """Context blocks left out of the model's input by the end of the run (a trimmed block stays trimmed)."""
    most = 0
    for step in record.get("steps") or ():
        trimmed = step.get("blocks_trimmed") if isinstance(step, dict) else None
        if isinstance(trimmed, list) and len(trimmed) > most:
            most = len(trimmed)
    return most


def _grounding_status(record: Mapping[str, Any], facts: Facts) -> str | None:
    """The answer check's verdict (grounded · partly · ungrounded · no_claims), None when not checked."""
    grounding = record.get("grounding")
    return as_text(grounding.get("status")) if isinstance(grounding, dict) else None


def _tools_offered(record: Mapping[str, Any], facts: Facts) -> str | None:
    """The tool names the run offered the model (``settings.tools``, each once, in order) as a JSON
    array; None when it offered none. Tool stats → Coverage reads it instead of every record."""
    settings = record.get("settings")
    tools = settings.get("tools") if isinstance(settings, dict) else None
    if not isinstance(tools, list):
        return None
    names = list(dict.fromkeys(t for t in tools if isinstance(t, str)))
    return json.dumps(names, ensure_ascii=False, separators=(",", ":")) if names else None


def _retries(record: Mapping[str, Any], facts: Facts) -> int:
    """Attempts beyond the first: of each model call (``steps[].model_attempts``) and of each tool
    call (``tool_calls[].attempts``). The team store computes the same from the record
    (``run_retries`` in migrations/0006_labels_and_retries.sql)."""
    total = 0
    for key, inner in (("steps", "model_attempts"), ("tool_calls", "attempts")):
        items = record.get(key)
        for item in items if isinstance(items, list) else ():
            attempts = item.get(inner) if isinstance(item, dict) else None
            if isinstance(attempts, list) and len(attempts) > 1:
                total += len(attempts) - 1
    return total


RUN_COLUMN_SPEC: tuple[RunColumn, ...] = (
    RunColumn("run_id", lambda r, f: as_text(r.get("run_id")), "text"),
    RunColumn("started_at", lambda r, f: as_text(r.get("started_at")), None),
    RunColumn("started_us", lambda r, f: epoch_us(r.get("started_at")), "time_us", table_name="started_at"),
    RunColumn("goal", lambda r, f: as_text(r.get("goal")) or "", "text"),
    RunColumn("provider", lambda r, f: as_text(r.get("provider")) or "", "text"),
    RunColumn("model", lambda r, f: as_text(r.get("model")) or "", "text"),
    RunColumn("status", lambda r, f: as_text(r.get("status")) or "", "text"),
    RunColumn("outcome", lambda r, f: outcome(r)[0], "text"),
    RunColumn("steps", lambda r, f: len(r.get("steps") or ()), "int"),
    RunColumn("tool_calls", lambda r, f: len(r.get("tool_calls") or ()), "int"),
    RunColumn("failed_calls", lambda r, f: f.failed_calls, "int"),
    RunColumn("blocks_trimmed", _blocks_trimmed, "int"),
    RunColumn("tokens", lambda r, f: as_int(f.usage.get("total_tokens")) or 0, "int"),
    RunColumn("cost_usd", lambda r, f: as_float(r.get("cost_usd")), "float"),
    RunColumn("duration_ms", lambda r, f: as_float(r.get("duration_ms")), "float"),
    RunColumn("scripted", lambda r, f: bool(r.get("scripted")), "bool"),
    RunColumn("source", lambda r, f: source_of(r), "text"),
    RunColumn("grounding", _grounding_status, "text"),
    RunColumn("tools_offered", _tools_offered, "text"),
    RunColumn("owner_pid", lambda r, f: as_int(f.owner.get("pid")), None),
    RunColumn("owner_host", lambda r, f: as_text(f.owner.get("host")), None),
    RunColumn("updated_at", lambda r, f: as_text(r.get("updated_at")), None),
    RunColumn("user_name", lambda r, f: as_text(r.get("user")), "text", table_name="user"),
    RunColumn("retries", _retries, "int"),
)
"""Every summary column, in table order; ``status`` is the stored one (``running`` is re-checked on read)."""

RUN_FIELDS: tuple[str, ...] = tuple(column.name for column in RUN_COLUMN_SPEC)
"""The index's summary columns."""
TABLE_COLUMNS: tuple[str, ...] = tuple(
    column.table_name or column.name for column in RUN_COLUMN_SPEC if column.table is not None
)
"""The run table's columns that come from the record (the table adds ``path``)."""
COLUMNS_VERSION = hashlib.sha1(",".join(RUN_FIELDS).encode()).hexdigest()[:8]
"""Changes with the column list, so an index written with other columns is rebuilt."""

_VALUES = tuple(column.value for column in RUN_COLUMN_SPEC)


def run_values(record: Mapping[str, Any], failed_calls: int) -> tuple[Any, ...]:
    """The :data:`RUN_FIELDS` values of one parsed record."""
    usage = record.get("usage")
    owner = record.get("owner")
    facts = Facts(usage if isinstance(usage, dict) else {}, owner if isinstance(owner, dict) else {}, failed_calls)
    return tuple([value(record, facts) for value in _VALUES])


def rejected_call(call: dict[str, Any]) -> bool:
    """A call rejected (or blocked) before it ran: the tool never saw it (Tool stats leave it out)."""
    approval = call.get("approval")
    return isinstance(approval, dict) and approval.get("decision") == "rejected"
