"""Tool stats for an analyst: a tool's own reliability apart from the model's misuse of it.

A refused duplicate or arguments that do not fit the schema are the *model's* mistakes: the tool
was never really run. "Worked when called correctly" leaves them out; "model mistakes" counts them.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.records.queries import NOT_RECORDED, ORIGIN_CHOICES

FEW_CALLS = 5
"""Below this many calls a rate says little: the tool is marked as having few calls."""
WHO = {
    "model": "Calls the model chose: it picked the tool and wrote the arguments.",
    "harness": "Calls the workbench made for the model: a rule of the program chose the tool, not the model.",
}
"""Who chose a call, in plain words (column and metric help)."""
WHO_CAPTION = (
    "🧠 chosen by the model · ⚙ called by the workbench for the model. "
    "Calls of older runs, which did not record who chose them, count in neither."
)
_ORIGIN_LABELS = {"model": "🧠 the model", "harness": "⚙ the workbench", NOT_RECORDED: "not recorded (older runs)"}

COLUMNS = {
    "reliable_rate": st.column_config.ProgressColumn(
        "Worked when called correctly",
        min_value=0.0,
        max_value=1.0,
        format="percent",
        step=0.01,  # whole percents ("67%"): one format with the metrics and charts
        help="The tool's own reliability: calls that returned a result, out of those the model made correctly "
        "(refused duplicates and bad arguments left out).",
    ),
    "model_mistakes": st.column_config.NumberColumn(
        "Model mistakes", format="%d", help="Calls the model got wrong: bad arguments + refused repeats."
    ),
}


def with_reliability(per_tool: pd.DataFrame) -> pd.DataFrame:
    """``per_tool`` with ``model_mistakes`` and ``reliable_rate`` (NaN when no correct call)."""
    mistakes = per_tool["err_validation"].fillna(0) + per_tool["duplicates"].fillna(0)
    correct = per_tool["calls"] - mistakes
    worked = (per_tool["success_rate"] * per_tool["calls"]).round()
    rate = (worked / correct).where(correct > 0)
    return per_tool.assign(model_mistakes=mistakes.astype(int), reliable_rate=rate.clip(upper=1.0))


def column_order(columns: list[str]) -> list[str]:
    """The table's columns: the two reliability figures after the plain success rate, and one
    duplicates column (``err_duplicate`` said the same as ``duplicates``)."""
    order = [c for c in columns if c not in ("err_duplicate", "reliable_rate", "model_mistakes")]
    at = order.index("success_rate") + 1 if "success_rate" in order else len(order)
    return [*order[:at], "reliable_rate", "model_mistakes", *order[at:]]


def tool_label(tool: str, calls: int) -> str:
    """``search_web (n=12)``; ``lookup (n=3 · few)`` when a rate on it says little."""
    return f"{tool} (n={calls}{' · few' if calls < FEW_CALLS else ''})"


def log_ticks(largest: float) -> list[float]:
    """Axis ticks for a log-scaled duration axis: 0, then 1, 10, 100 … up to past ``largest`` ms."""
    top = max(1, math.ceil(math.log10(largest))) if largest and largest > 1 else 1
    return [0, *(10**k for k in range(top + 1))]


def origin_filter(where: Any, key: str) -> list[str]:
    """The "Who decided" filter: the calls the model chose, the workbench made, or that did not say."""
    return list(
        where.multiselect(
            "Who decided",
            list(ORIGIN_CHOICES),
            key=key,
            placeholder="all",
            format_func=_ORIGIN_LABELS.get,
            help="Only the calls the model chose, or those the workbench made for it. Coverage below counts "
            "both, apart.",
        )
    )
