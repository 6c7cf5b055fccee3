"""Tool coverage: which tools each provider/model was offered, which it chose, which it never used,
and whose forms it filled in wrongly (argument-validation failures).

This tells a tool author which description to fix. Only a call the model chose (``origin`` model)
shows that the model can use a tool: the workbench's own calls (``origin`` harness) are counted
apart, and a tool only the workbench called is listed as such. Offered tools come from each record's
``settings.tools`` (the tool-call table only knows the tools that were called), kept in the run
summary index as the ``tools_offered`` column: coverage is computed from the store's run table
and tool-call table and never reads a record file, so it stays fast at 10,000+ runs.
The numbers themselves are pure pandas (:func:`coverage_table`), tested on hand-counted data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pandas as pd

OFFERED_COLUMNS = ["run_id", "provider", "model", "tool"]
COVERAGE_COLUMNS = [
    "provider",
    "model",
    "tool",
    "runs_offered",
    "runs_chosen",
    "runs_by_model",
    "choice_rate",
    "model_choice_rate",
    "calls",
    "calls_by_model",
    "calls_by_harness",
    "validation_failures",
    "never_chosen",
    "harness_only",
]


def offered_rows(record: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(run_id, provider, model, tool)`` for each tool the run offered the model."""
    raw_settings = record.get("settings")
    settings = raw_settings if isinstance(raw_settings, dict) else {}
    raw_tools = settings.get("tools")
    tools = raw_tools if isinstance(raw_tools, list) else []
    run = (str(record.get("run_id") or ""), str(record.get("provider") or ""), str(record.get("model") or ""))
    return [(*run, str(t)) for t in dict.fromkeys(tools) if isinstance(t, str)]


def offered_frame(rows: Iterable[tuple[str, str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=OFFERED_COLUMNS)


def coverage_table(
    offered: pd.DataFrame, calls: pd.DataFrame, by: tuple[str, ...] = ("provider", "model")
) -> pd.DataFrame:
    """Per ``by`` × tool: runs that offered it, runs that chose it (called it at least once) and
    runs whose model chose it, both shares, its calls (all, the model's, the workbench's),
    argument-validation failures, whether it was never chosen, and whether only the workbench
    called it.

    ``offered`` has :data:`OFFERED_COLUMNS`; ``calls`` is the store's tool-call table (or any
    frame with run_id, provider, model, tool, error_category, and ``origin`` when known). A tool
    called without being offered (a model inventing a tool) gets a row with 0 runs offered.
    """
    keys = [*by, "tool"]
    off = offered.drop_duplicates(["run_id", "tool"]).groupby(keys, observed=True)["run_id"].nunique()
    call_view = calls[["run_id", *by, "tool", "error_category"]].copy()
    call_view["validation"] = call_view["error_category"].astype("object").eq("validation")
    origin = calls["origin"].astype("object") if "origin" in calls.columns else pd.Series(None, index=calls.index)
    call_view["by_model"] = origin.eq("model").to_numpy(dtype=bool)
    call_view["by_harness"] = origin.eq("harness").to_numpy(dtype=bool)
    grouped = call_view.groupby(keys, observed=True)
    model_runs = call_view[call_view["by_model"]].groupby(keys, observed=True)["run_id"].nunique()
    used = pd.DataFrame(
        {
            "runs_chosen": grouped["run_id"].nunique(),
            "runs_by_model": model_runs.reindex(grouped.size().index, fill_value=0),
            "calls": grouped.size(),
            "calls_by_model": grouped["by_model"].sum(),
            "calls_by_harness": grouped["by_harness"].sum(),
            "validation_failures": grouped["validation"].sum(),
        }
    )
    return _finish(pd.DataFrame({"runs_offered": off}), used, by)


USED_COLUMNS = ["runs_chosen", "runs_by_model", "calls", "calls_by_model", "calls_by_harness", "validation_failures"]


def coverage_from_counts(
    offered: pd.DataFrame, used: pd.DataFrame, by: tuple[str, ...] = ("provider", "model")
) -> pd.DataFrame:
    """:func:`coverage_table` from counts made elsewhere (SQL): ``offered`` has the ``by``
    columns, ``tool`` and ``runs_offered``; ``used`` has them, ``tool`` and :data:`USED_COLUMNS`."""
    keys = [*by, "tool"]
    return _finish(offered.set_index(keys)[["runs_offered"]], used.set_index(keys)[USED_COLUMNS], by)


def never_from_table(table: pd.DataFrame) -> list[str]:
    """:func:`never_chosen` from a coverage table: tools offered somewhere that no run chose."""
    per_tool = table.groupby("tool")[["runs_offered", "runs_chosen"]].sum()
    return sorted(str(t) for t in per_tool.index[(per_tool["runs_offered"] > 0) & (per_tool["runs_chosen"] == 0)])


def harness_only_from_table(table: pd.DataFrame) -> list[tuple[str, str, str]]:
    """``(tool, provider, model)`` of each tool that only the workbench ever called for that
    model in these runs, never the model itself (a call whose origin was not recorded may have
    been the model's: such a tool is not listed)."""
    only = table[table["harness_only"]]
    return sorted(zip(only["tool"].astype(str), only["provider"].astype(str), only["model"].astype(str)))


def _finish(offered: pd.DataFrame, used: pd.DataFrame, by: tuple[str, ...]) -> pd.DataFrame:
    table = offered.join(used, how="outer")
    table = table.fillna(0).astype(int).reset_index()
    runs_offered = table["runs_offered"].where(table["runs_offered"] > 0)
    table["choice_rate"] = (table["runs_chosen"] / runs_offered).astype(float)
    table["model_choice_rate"] = (table["runs_by_model"] / runs_offered).astype(float)
    table["never_chosen"] = table["runs_chosen"] == 0
    table["harness_only"] = (table["calls"] > 0) & (table["calls_by_harness"] == table["calls"])
    for column in by:
        table[column] = table[column].astype(str)
    table["tool"] = table["tool"].astype(str)
    order = [*by, "runs_chosen", "tool"]
    table = table.sort_values(order, ascending=[*([True] * len(by)), False, True], kind="stable")
    rest = [c for c in COVERAGE_COLUMNS if c not in ("provider", "model", "tool")]
    return table[[*by, "tool", *rest]].reset_index(drop=True)


def never_chosen(offered: pd.DataFrame, calls: pd.DataFrame) -> list[str]:
    """Tools offered in these runs that no model ever called, by name."""
    used = set(calls["tool"].astype(str))
    return sorted({str(t) for t in offered["tool"]} - used)


def validation_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Tool × "provider · model" counts of validation failures (rows and columns with none left out)."""
    bad = table[table["validation_failures"] > 0]
    if bad.empty:
        return pd.DataFrame()
    label = bad["provider"] + " · " + bad["model"]
    return (
        bad.assign(model_label=label)
        .pivot_table(index="tool", columns="model_label", values="validation_failures", aggfunc="sum", fill_value=0)
        .astype(int)
    )


def offered_from_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The offered-tools frame (:data:`OFFERED_COLUMNS`) of a run table: the store's
    :meth:`~agent_core.records.store.RunStore.runs` (or rows of it), whose ``tools_offered`` column holds
    each run's offered tool names as a JSON array (see :mod:`agent_core.records.columns`)."""
    if runs.empty or "tools_offered" not in runs.columns:
        return offered_frame([])
    view = runs[runs["tools_offered"].notna()]
    out: list[tuple[str, str, str, str]] = []
    for run_id, provider, model, text in zip(
        view["run_id"].tolist(), view["provider"].tolist(), view["model"].tolist(), view["tools_offered"].tolist()
    ):
        run = (
            run_id if isinstance(run_id, str) else "",
            provider if isinstance(provider, str) else "",
            model if isinstance(model, str) else "",
        )
        try:
            tools = json.loads(text)
        except ValueError:
            continue
        if isinstance(tools, list):
            out += [(*run, t) for t in tools if isinstance(t, str)]
    return offered_frame(out)


class OfferedTools:
    """Offered tools of chosen runs, from the store's run table (no record file is read)."""

    def rows(self, store: Any, run_ids: Iterable[str]) -> tuple[pd.DataFrame, list[str]]:
        """The offered-tools frame of ``run_ids`` and the ids that are not in the run table."""
        runs = store.runs()
        wanted = [str(i) for i in run_ids]
        view = runs[runs["run_id"].isin(wanted)]
        found = set(view["run_id"].dropna().tolist())
        return offered_from_runs(view), [i for i in wanted if i not in found]
