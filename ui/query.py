"""The reading pages' link to :mod:`agent_core.records.queries`: the store's query API (the folder's
pandas tables, or SQL on the team store) and the filter widgets fed from its choices."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.records.queries import FolderQueries, RunQueries, queries_for
from ui import common as ui


@st.cache_resource(show_spinner=False)
def _team_store(url: str) -> Any:
    """One reader per team-store URL and process (it keeps one connection)."""
    from agent_core.pgstore.reading import PgQueries

    return PgQueries.from_url(url)


def queries(store: Any, config: Any = None) -> RunQueries:
    """The :class:`~agent_core.records.queries.RunQueries` of the page: the store's own, SQL on the team
    store when ``AGENT_STORE_URL`` is set, else the folder's. A team store that cannot be read
    now: a banner naming host and port (never the password), and this machine's runs folder."""
    own = getattr(store, "queries", None)
    if callable(own):
        found: RunQueries = own()
        return found
    url = getattr(config, "store_url", None)
    if not url:
        return queries_for(store)
    reader = _team_store(url)
    try:
        reader.ping()
    except Exception as exc:  # StoreError (plain message), or the connection lost mid-read
        from agent_core.pgstore import explain

        st.warning(
            f"{ui.md_label(explain(exc, url), 300)} Showing the runs saved in this machine's folder instead.",
            icon="🔌",
        )
        return FolderQueries(store)
    return reader


def choice_filter(where: Any, label: str, values: list[str], key: str, help: str | None = None) -> list[str]:
    """A multiselect over ``values`` (the choices present, sorted); nothing picked means all."""
    return list(where.multiselect(label, values, key=key, placeholder="all", help=help))


def user_filter(where: list[Any], users: list[str], key: str) -> list[str]:
    """History's "User" filter, in the column given (none when no run says who ran it)."""
    if not users or not where:
        return []
    return choice_filter(where[0], "User", users, key, "Who ran it (AGENT_USER, or the signed-in user).")


def reading_store(store: Any, config: Any) -> Any:
    """For pages that read whole tables and records (Compare): the team store
    (:class:`~agent_core.pgstore.reading.TeamRunStore`, summary columns only) when
    ``AGENT_STORE_URL`` is set and readable, else ``store`` (the runs folder)."""
    if not getattr(config, "store_url", None):
        return store
    reader = queries(store, config)
    if isinstance(reader, FolderQueries):  # not readable now: the banner is shown
        return store
    from agent_core.pgstore.reading import TeamRunStore

    return TeamRunStore(reader, store)  # type: ignore[arg-type]
