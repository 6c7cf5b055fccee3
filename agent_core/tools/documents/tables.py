"""``query_table``: filter, pick, count, sum, average and group the rows of a table.

The model gives structured arguments — a table, conditions ``{column, op, value}`` with ``op``
from a fixed list, the columns to show, an aggregate and a column to group by — never code or
an expression: nothing the model writes is evaluated. pandas does the work. Column names are
matched forgivingly (case, spaces, underscores); an unknown one is an error that lists the real
ones, so the model can correct itself.

Results are short JSON: ``{"table", "where", "count"}`` (or ``sum``/``mean``/``min``/``max``) for one
figure, one object per group or per row otherwise.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from agent_core.tools.documents.parse import Table
from agent_core.tools.documents.table_dates import column_dates, compare, period

OPS = ("=", "!=", "<", "<=", ">", ">=", "contains")
AGGREGATES = ("rows", "count", "sum", "mean", "min", "max")
MAX_LIMIT = 50
MAX_DESCRIBED_TABLES = 8
MAX_DESCRIBED_COLUMNS = 14
MAX_SHOWN_VALUES = 12
"""Most values of a column a query that matched nothing shows."""


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


def frame(table: Table) -> pd.DataFrame:
    """The table as a DataFrame, columns that are all numbers as numbers."""
    data = pd.DataFrame(table.rows, columns=table.columns[: max((len(r) for r in table.rows), default=0)] or None)
    for column in data.columns:
        text = data[column].astype(str).str.strip().str.replace(",", "", regex=False)
        text = text.str.replace(r"^[$€£₩]", "", regex=True)
        numbers = pd.to_numeric(text.where(text != "", None), errors="coerce")
        if numbers.notna().sum() and numbers.notna().sum() == (text != "").sum():
            data[column] = numbers
    return data


def _named(data: pd.DataFrame, name: Any) -> str | None:
    """The column ``name`` names, matched forgivingly (case, spaces, underscores), or None."""
    if not isinstance(name, str) or not name.strip():
        return None
    return next((str(c) for c in data.columns if _key(str(c)) == _key(name)), None)


def _column(data: pd.DataFrame, name: Any, table: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a column name is missing; columns of {table}: {', '.join(map(str, data.columns))}")
    found = _named(data, name)
    if found is None:
        raise ValueError(f"no column {name!r} in {table}; its columns: {', '.join(map(str, data.columns))}")
    return found


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() else round(value, 4)
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def _condition(
    data: pd.DataFrame, cond: Any, table: str, date_columns: dict[str, pd.Series | None]
) -> tuple[pd.Series, str]:
    if not isinstance(cond, Mapping):
        raise ValueError('each condition is an object: {"column": ..., "op": ..., "value": ...}')
    column = _column(data, cond.get("column"), table)
    op = str(cond.get("op", "=")).strip().lower()
    op = {"==": "=", "eq": "=", "ne": "!=", "<>": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}.get(op, op)
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(OPS)} (got {op!r})")
    value = cond.get("value")
    series = data[column]
    shown = f"{column} {op} {value}"
    asked = period(value)
    if asked is not None and (dates := _dates(data, column, date_columns)) is not None:
        op = "=" if op == "contains" else op  # "date contains March": the month, not the letters
        return compare(dates, op, asked), f"{column} {op} {asked}"
    if op == "contains":
        return _holding(data, column, str(value), table), shown
    other = _named(data, value)
    if other is not None and other != column:  # "stock < reorder_level": the value names another column
        numbers = pd.api.types.is_numeric_dtype(series) and pd.api.types.is_numeric_dtype(data[other])
        if op not in ("=", "!=") and not numbers:
            raise ValueError(f"{column} and {other} are not both numbers: use = or != to compare them")
        left: Any = series
        right: Any = data[other]
        shown = f"{column} {op} {other} (the column)"
    elif pd.api.types.is_numeric_dtype(series):
        try:
            right = float(str(value).replace(",", "").lstrip("$€£₩").strip())
        except ValueError:
            raise ValueError(f"{column} holds numbers; {value!r} is not a number") from None
        left = series
    else:
        left, right = series.astype(str).str.strip().str.lower(), str(value).strip().lower()
        if op not in ("=", "!=") and _dates(data, column, date_columns) is not None:
            raise ValueError(
                f"{column} holds dates; {value!r} is none: write a day (2024-03-14), a month (2024-03) or a year"
            )
        if op not in ("=", "!="):
            raise ValueError(f"{column} holds text: use =, != or contains, not {op}")
        if op == "=" and not (left == right).any() and right:
            # No cell is the text: the cells holding it ("water" → "Watering"), said so.
            return _holding(data, column, str(value).strip(), table), (
                f"{column} contains {str(value).strip()} (no {column} is exactly that)"
            )
    result = {
        "=": lambda: left == right,
        "!=": lambda: left != right,
        "<": lambda: left < right,
        "<=": lambda: left <= right,
        ">": lambda: left > right,
        ">=": lambda: left >= right,
    }[op]()
    return result.fillna(False).astype(bool), shown


def _dates(data: pd.DataFrame, column: str, date_columns: dict[str, pd.Series | None]) -> pd.Series | None:
    """The column as dates (:func:`column_dates`), read once per query (kept in ``date_columns``);
    None when it holds anything else."""
    if column not in date_columns:
        numbers = pd.api.types.is_numeric_dtype(data[column])
        date_columns[column] = None if numbers else column_dates(data[column])
    return date_columns[column]


def _holding(data: pd.DataFrame, column: str, text: str, table: str) -> pd.Series:
    """The rows whose ``column`` holds ``text`` (any case); ValueError when none does: the value
    names nothing in the table. Given a count of 0 with a note, the model answered "the
    inventory has no Ashcombe Hut" for a question another document answers; an error is what
    a name that is not there is, as a file that is not there is for ``read_file``."""
    mask = data[column].astype(str).str.contains(text, case=False, regex=False, na=False)
    if text and not mask.any():
        raise ValueError(f"no {column} in {table} holds {text!r}; {_held(data, column)}")
    return mask


def _held(data: pd.DataFrame, column: str) -> str:
    """``"name holds: a, b, … and 21 more"``: what a text column holds."""
    values = list(dict.fromkeys(data[column].astype(str)))
    more = f" and {len(values) - MAX_SHOWN_VALUES} more" if len(values) > MAX_SHOWN_VALUES else ""
    return f"{column} holds: {', '.join(values[:MAX_SHOWN_VALUES])}{more}"


def _no_match(data: pd.DataFrame, where: Sequence[Any]) -> str:
    """What a query that matched no row says: some values of the first text column it filtered
    on, so the model can see what the table holds (or that it is the wrong place to look)."""
    for cond in where:
        column = _named(data, cond.get("column")) if isinstance(cond, Mapping) else None
        if column is not None and not pd.api.types.is_numeric_dtype(data[column]):
            return f"no row matched; {_held(data, column)}"
    return "no row matched"


def run_query(
    table: Table,
    *,
    where: Sequence[Any] = (),
    columns: Sequence[str] = (),
    aggregate: str = "rows",
    column: str | None = None,
    group_by: str | None = None,
    limit: int = 10,
) -> str:
    """The query's result as short JSON (see the module docstring); ValueError for a bad argument."""
    data = frame(table)
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {', '.join(AGGREGATES)}")
    mask = pd.Series(True, index=data.index)
    said = []
    date_columns: dict[str, pd.Series | None] = {}
    for cond in where or ():
        matched, shown = _condition(data, cond, table.name, date_columns)
        mask &= matched
        said.append(shown)
    rows = data[mask]
    limit = max(1, min(int(limit), MAX_LIMIT))
    head: dict[str, Any] = {"table": table.name}
    if said:
        head["where"] = " and ".join(said)
    if aggregate == "rows":
        picked = [_column(data, c, table.name) for c in columns or ()] or list(map(str, data.columns))
        if group_by:
            raise ValueError("group_by needs an aggregate (count, sum, mean, min or max)")
        out: list[Any] = [
            {c: _plain(v) for c, v in zip(picked, values, strict=True)}
            for values in rows[picked].head(limit).itertuples(index=False, name=None)
        ]
        if len(rows) > limit:
            out.append(f"… {len(rows) - limit} more rows (limit {limit}); {len(rows)} rows matched")
        if not out:
            return json.dumps({**head, "count": 0, "note": _no_match(data, where)}, ensure_ascii=False)
        return json.dumps(out, ensure_ascii=False)
    target = None
    if aggregate != "count":
        if not column and len(columns or ()) == 1:
            column = columns[0]  # the one column named to show is the one to add up
        if not column:
            raise ValueError(f"{aggregate} needs a column (the numbers to {aggregate})")
        target = _column(data, column, table.name)
        if not pd.api.types.is_numeric_dtype(data[target]) and aggregate in ("sum", "mean"):
            raise ValueError(
                f"{target} holds text, not numbers: it cannot be {'summed' if aggregate == 'sum' else 'averaged'}"
            )
    if group_by:
        by = _column(data, group_by, table.name)
        grouped = rows.groupby(by, sort=True)
        values = grouped.size() if target is None else getattr(grouped[target], aggregate)()
        label = "count" if target is None else f"{aggregate} of {target}"
        result = [{by: _plain(k), label: _plain(v)} for k, v in values.head(MAX_LIMIT).items()]
        return json.dumps(result or [{**head, "count": 0}], ensure_ascii=False)
    if not len(rows) and where:
        head["note"] = _no_match(data, where)
    if target is None:
        return json.dumps({**head, "count": len(rows)}, ensure_ascii=False)
    value = getattr(rows[target], aggregate)() if len(rows) else None
    return json.dumps({**head, f"{aggregate} of {target}": _plain(value), "rows": len(rows)}, ensure_ascii=False)


def describe(tables: Sequence[Any]) -> str:
    """The tables and their columns, for the tool's description (the model picks tools by it)."""
    parts = []
    for info in tables[:MAX_DESCRIBED_TABLES]:
        cols = ", ".join(info.columns[:MAX_DESCRIBED_COLUMNS]) + (
            " …" if len(info.columns) > MAX_DESCRIBED_COLUMNS else ""
        )
        parts.append(f"{info.name} ({cols})")
    more = f"; and {len(tables) - MAX_DESCRIBED_TABLES} more" if len(tables) > MAX_DESCRIBED_TABLES else ""
    return "; ".join(parts) + more


def parameters(tables: Sequence[Any]) -> dict[str, Any]:
    """The tool's JSON schema: the table and column names as enums, so a small model cannot misspell them."""
    names = [t.name for t in tables]
    columns = sorted({c for t in tables for c in t.columns})
    column: dict[str, Any] = {"type": "string"}
    if len(columns) <= 60:
        column["enum"] = columns
    return {
        "type": "object",
        "properties": {
            "file": {"type": "string", "enum": names, "description": "The table to query."},
            "where": {
                "type": "array",
                "description": "Conditions every row must meet (all of them).",
                "items": {
                    "type": "object",
                    "properties": {
                        "column": column,
                        "op": {"type": "string", "enum": list(OPS)},
                        "value": {"type": ["string", "number"]},
                    },
                    "required": ["column", "op", "value"],
                    "additionalProperties": False,
                },
            },
            "columns": {"type": "array", "items": column, "description": "Columns to show (rows only)."},
            "aggregate": {
                "type": "string",
                "enum": list(AGGREGATES),
                "default": "rows",
                "description": "rows: list the rows; count: how many; sum, mean, min, max: of column.",
            },
            "column": {**column, "description": "The column to sum, average, or take the min or max of."},
            "group_by": {**column, "description": "One result per value of this column."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": 10,
                "description": "Most rows to list.",
            },
        },
        "required": ["file"],
        "additionalProperties": False,
    }
