"""The reading pages' link to :mod:`agent_core.records.queries`: the store's query API (the folder's
pandas tables, or SQL on the team store) and the filter widgets fed from its choices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from agent_core.records.queries import FolderQueries, RunQueries, queries_for
from agent_core.records.sources import LABELS as SOURCE_LABELS
from agent_core.records.sources import OWN, SOURCES
from agent_core.text.words import join_words
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


SOURCES_KEY = "runs_sources"
"""The Source filter's session key: History and Tool stats share it, so one choice holds on both."""


_SOURCES_KEPT = "runs_sources_kept"
SOURCES_PARAM = "source"
"""The Source filter in the page's address (``?source=own,eval``; ``all``): a reload, a bookmark or a
shared link keeps the choice; the default (your own runs) writes none."""


def _keep_sources() -> None:
    st.session_state[_SOURCES_KEPT] = list(st.session_state.get(SOURCES_KEY) or [])


def _from_address() -> list[str] | None:
    if SOURCES_PARAM not in st.query_params:
        return None
    wanted = str(st.query_params.get(SOURCES_PARAM) or "").split(",")
    return [] if wanted == ["all"] else [s for s in SOURCES if s in wanted] or None  # nonsense: the default


def source_filter(where: Any) -> tuple[str, ...]:
    """The Source filter (your runs, evals, arena, replays, demos): by default people's own runs,
    remembered for the session and in the address, shared by History and Tool stats; nothing
    picked means all."""
    # The choice is kept under a key of its own and given back to the widget at every run: a widget's
    # own state does not reach the first run of another page (Tool stats drew every run once).
    if _SOURCES_KEPT not in st.session_state:
        from_address = _from_address()
        st.session_state[_SOURCES_KEPT] = list(OWN) if from_address is None else from_address
    st.session_state[SOURCES_KEY] = list(st.session_state[_SOURCES_KEPT])
    picked = where.multiselect(
        "Source",
        list(SOURCES),
        key=SOURCES_KEY,
        on_change=_keep_sources,
        format_func=lambda s: SOURCE_LABELS.get(s, s),
        placeholder="all",
        help="Where the runs came from: your own runs, runs an eval or an arena started, replays of a run, or "
        "scripted demos. By default only your own runs; empty: all of them.",
    )
    if list(picked) == list(OWN):
        st.query_params.pop(SOURCES_PARAM, None)
    else:
        st.query_params[SOURCES_PARAM] = ",".join(picked) or "all"
    return tuple(picked)


def hidden_note(counts: Mapping[str, int], picked: tuple[str, ...]) -> str:
    """What the Source filter hides: "27 eval runs and 3 demos are hidden (Source filter)"; ''
    when it hides nothing."""
    if not picked:
        return ""
    words = {
        "own": ("of your runs", "of your runs"),
        "eval": ("eval run", "eval runs"),
        "arena": ("arena run", "arena runs"),
        "replay": ("replay", "replays"),
        "demo": ("demo", "demos"),
    }
    hidden = [(n, words.get(s, (s, s))[n != 1]) for s, n in counts.items() if s not in picked and n]
    if not hidden:
        return ""
    parts = [f"{n:,} {what}" for n, what in sorted(hidden, key=lambda h: -h[0])]
    return f"{join_words(parts)} {'is' if sum(n for n, _ in hidden) == 1 else 'are'} hidden (the **Source** filter)."
