"""How often answers state figures no tool result supports, per provider and model.

Read from the store's run table (its ``grounding`` column holds each record's
``grounding.status``). An *ungrounded answer* is one with at least one unsupported figure
(status ``ungrounded`` or ``partly``); answers with nothing to check (``no_claims``: no figures, or only the goal's own) count as checked
and fine; runs without an answer, or not checked (``ANSWER_CHECK=off``, older records), are left
out of the rate.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

UNGROUNDED = ("ungrounded", "partly")
CHECKED = ("grounded", "no_claims", *UNGROUNDED)


def ungrounded_rates(runs: pd.DataFrame, by: Sequence[str] = ("provider", "model")) -> pd.DataFrame:
    """Per group: answers checked, how many were grounded / partly / ungrounded / had nothing to check,
    and ``ungrounded_rate`` (share of checked answers with an unsupported figure)."""
    columns = [*by, "checked", "grounded", "partly", "ungrounded", "no_claims", "ungrounded_rate"]
    if runs.empty or "grounding" not in runs.columns:
        return pd.DataFrame(columns=columns)
    status = runs["grounding"].astype("string").fillna("")
    checked = runs[status.isin(CHECKED)].assign(_status=status[status.isin(CHECKED)])
    if checked.empty:
        return pd.DataFrame(columns=columns)
    table = (
        pd.crosstab([checked[c] for c in by], checked["_status"])
        .reindex(columns=list(CHECKED), fill_value=0)
        .reset_index()
    )
    table.columns.name = None
    table["checked"] = table[list(CHECKED)].sum(axis=1)
    table["ungrounded_rate"] = (table["partly"] + table["ungrounded"]) / table["checked"]
    return table[columns].sort_values(["ungrounded_rate", "checked"], ascending=[False, False]).reset_index(drop=True)


def rates_from_counts(counts: pd.DataFrame, by: Sequence[str] = ("provider", "model")) -> pd.DataFrame:
    """:func:`ungrounded_rates` from counted runs: ``counts`` has the ``by`` columns, ``grounding``
    (a verdict) and ``runs`` (how many runs of that group had it); rows of other verdicts are ignored."""
    columns = [*by, "checked", "grounded", "partly", "ungrounded", "no_claims", "ungrounded_rate"]
    counts = counts[counts["grounding"].isin(CHECKED)]
    if counts.empty:
        return pd.DataFrame(columns=columns)
    table = (
        counts.pivot_table(index=list(by), columns="grounding", values="runs", aggfunc="sum", fill_value=0)
        .reindex(columns=list(CHECKED), fill_value=0)
        .astype("int64")
        .reset_index()
    )
    table.columns.name = None
    table["checked"] = table[list(CHECKED)].sum(axis=1)
    table["ungrounded_rate"] = (table["partly"] + table["ungrounded"]) / table["checked"]
    return table[columns].sort_values(["ungrounded_rate", "checked"], ascending=[False, False]).reset_index(drop=True)
