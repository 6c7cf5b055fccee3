"""The reading pages' link to :mod:`agent_core.queries`: the store's query API (the folder's
pandas tables, or SQL on the team store) and the filter widgets fed from its choices."""

from __future__ import annotations

from typing import Any

from agent_core.queries import RunQueries, queries_for


def queries(store: Any) -> RunQueries:
    """The :class:`~agent_core.queries.RunQueries` of the page's store (folder or PostgreSQL)."""
    return queries_for(store)


def choice_filter(where: Any, label: str, values: list[str], key: str, help: str | None = None) -> list[str]:
    """A multiselect over ``values`` (the choices present, sorted); nothing picked means all."""
    return list(where.multiselect(label, values, key=key, placeholder="all", help=help))


def user_filter(where: list[Any], users: list[str], key: str) -> list[str]:
    """History's "User" filter, in the column given (none when no run says who ran it)."""
    if not users or not where:
        return []
    return choice_filter(where[0], "User", users, key, "Who ran it (AGENT_USER, or the signed-in user).")
