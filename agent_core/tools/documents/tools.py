"""The ``query_table`` tool, built for a workspace's tables when the registry is built.

Its description lists the tables and their columns and its schema names them as enums: a model
chooses tools by their descriptions, and a small one spells names better from a list.
"""

from __future__ import annotations

import logging
import os
from typing import Annotated, Any, Literal

from pydantic import Field

from agent_core.tools.documents.tables import describe, parameters, run_query
from agent_core.tools.documents.workspace import Workspace
from agent_core.tools.registry import Tool, make_tool

log = logging.getLogger("agent_core.tools.documents.tools")


def _table_name(wanted: str, names: list[str]) -> str:
    """``wanted`` as one of ``names``: exact, then ignoring case, then without the file ending."""
    if wanted in names:
        return wanted
    folded = {n.lower(): n for n in names}
    stems = {os.path.splitext(n)[0].lower(): n for n in names}
    key = wanted.strip().lower()
    if key in folded:
        return folded[key]
    if os.path.splitext(key)[0] in stems:
        return stems[os.path.splitext(key)[0]]
    raise ValueError(f"no table {wanted!r}; the tables are: {', '.join(names)}")


def make_table_tool(workspace: Workspace) -> Tool | None:
    """``query_table`` over ``workspace``'s tables; None when it has none (or they cannot be read)."""
    try:
        tables = workspace.tables()
    except Exception as exc:  # noqa: BLE001 - a broken index must not stop the other tools
        log.warning("the workspace's tables could not be listed: %s", exc)
        return None
    if not tables:
        return None

    def query_table(
        file: str,
        where: list[dict[str, Any]] | None = None,
        columns: list[str] | None = None,
        aggregate: Literal["rows", "count", "sum", "mean", "min", "max"] = "rows",
        column: str | None = None,
        group_by: str | None = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> str:
        """Query a table: filter rows (where), pick columns, count, sum, mean, min or max a column, group_by.

        Args:
            file: The table (a CSV file, or a table in a document).
            where: Conditions every row must meet, each {"column", "op", "value"}; op is one of = != < <= > >= contains.
            columns: The columns to show when listing rows.
            aggregate: rows (list them), count, or sum / mean / min / max of column.
            column: The column to sum, average, or take the min or max of.
            group_by: One result per value of this column.
            limit: The most rows to list (default 10).
        """
        names = [t.name for t in workspace.tables()]
        table = workspace.table(_table_name(file, names))
        if table is None:
            raise ValueError(f"no table {file!r}; the tables are: {', '.join(names)}")
        return run_query(
            table,
            where=where or (),
            columns=columns or (),
            aggregate=aggregate,
            column=column,
            group_by=group_by,
            limit=limit,
        )

    description = (
        "Query a table's rows: filter (where), pick columns, count, sum, mean, min, max, group by. "
        f"Tables: {describe(tables)}."
    )
    return make_tool(query_table, description=description, parameters=parameters(tables), tags=("files", "tables"))
