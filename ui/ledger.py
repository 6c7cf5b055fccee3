"""The context-block ledger: which blocks the model saw at each step, each block named by the
step that made it ("from step 2"). Drawn in History's run detail and inline under the trimming
demo on the Run page."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agent_core.records import stats
from ui import common as ui


def _style(value: Any) -> str:
    if value == "sent":
        return "background-color: #dcfce7; color: #166534; font-weight: 600"
    if value == "trimmed":
        return "background-color: #f1f5f9; color: #94a3b8; text-decoration: line-through"
    return ""


def _name(step: Any, index: Any) -> str:
    return f"from step {int(step)}" if pd.notna(step) else f"#{index}"


def show_ledger(record: dict[str, Any], container: Any = None) -> None:
    """A row per context block, a column per step: sent / trimmed / blank (not made yet)."""
    target = container or st
    ledger = stats.context_ledger(record)
    if ledger.empty:
        target.info("No context blocks: the model answered without calling tools.")
        return
    step_cols = [c for c in ledger.columns if str(c).startswith("step ")]
    # A block is named by the step that made it, not by its 0-based index.
    ledger["block"] = [_name(step, index) for step, index in zip(ledger["made_in_step"], ledger["block"], strict=True)]
    # Steps first (the point of the table), the block's details after them.
    target.dataframe(
        ledger.style.map(_style, subset=step_cols),
        hide_index=True,
        width="stretch",
        column_order=["block", *step_cols, "contents", "chars"],
        column_config={
            "block": st.column_config.TextColumn("Block", pinned=True, width="small", help=ui.explain("context block")),
            "contents": st.column_config.TextColumn("Tool calls in it"),
            "chars": st.column_config.NumberColumn("Characters", format="%d"),
            **{c: st.column_config.TextColumn(c, width="small") for c in step_cols},
        },
    )
