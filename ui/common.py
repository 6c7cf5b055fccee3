"""Shared helpers of the dashboard pages (this file is not a page: app.py lists the pages).

Safety rule of the whole UI: text that came from a goal, a model or a tool is *data*. It is
shown only through elements that never interpret it (``st.text``, ``st.code``, ``st.json``,
``st.dataframe``) or, where Streamlit only offers Markdown (status and expander labels,
captions, alerts), after :func:`escape_md` has made every character literal — so HTML, scripts,
links and Markdown images in it never run or load anything in the browser.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.records.filters import date_bounds, filter_calls, filter_runs, in_dates  # noqa: F401 (pages use ui.*)
from agent_core.records.store import RunStore
from agent_core.settings import Settings
from agent_core.tools import ToolRegistry, build_default_registry
from agent_core.tools.forms import FieldSpec, collect_arguments, schema_fields  # noqa: F401 (pages use ui.*)
from ui.frame import ensure_app_frame, open_default_page_by_name  # noqa: F401 (pages and app.py use ui.*)

# --- Untrusted text ---------------------------------------------------------------------------

_ESCAPES = {ord(c): "\\" + c for c in string.punctuation}
_WORD_JOINER = "\u2060"
# GFM turns bare URLs and e-mail addresses into links *after* escapes are decoded, so escaping
# cannot stop it; an invisible word joiner inside "http://", "www." and "a@b" does.
_AUTOLINK_START = re.compile(r"(?i)\b(https?|ftp|www|mailto|xmpp)(?=\\[:.])")


def escape_md(text: Any) -> str:
    """``text`` as Markdown that renders literally: every ASCII punctuation character is
    backslash-escaped (CommonMark allows it for all of them), which disarms HTML tags,
    links, images, emphasis, Streamlit directives (``:red[…]``, ``:material/…:``) and LaTeX
    (``$``); bare-URL and e-mail autolinks get an invisible word joiner. Line breaks are kept
    as hard breaks.
    """
    value = "" if text is None else str(text)
    escaped = value.translate(_ESCAPES)
    escaped = _AUTOLINK_START.sub(lambda m: m.group(1) + _WORD_JOINER, escaped)
    escaped = escaped.replace("\\@", _WORD_JOINER + "\\@")
    return "  \n".join(escaped.splitlines()) if "\n" in escaped else escaped


def one_line(text: Any, limit: int = 80) -> str:
    """A single-line, shortened version of ``text`` (still untrusted: escape it to render)."""
    value = " ".join(str("" if text is None else text).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def md_label(text: Any, limit: int = 80) -> str:
    """Untrusted text made safe for a label (status, expander, caption): one line, escaped."""
    return escape_md(one_line(text, limit))


def show_text(text: Any, container: Any = None) -> None:
    """Untrusted prose as plain text (no Markdown, no HTML), wrapped."""
    (container or st).text("" if text is None else str(text), wrap=True)


def show_code(text: Any, container: Any = None, *, height: int | None = None) -> None:
    """Untrusted multi-line output (tool results, file contents) as a wrapped code block."""
    kwargs: dict[str, Any] = {"height": height} if height else {}
    (container or st).code("" if text is None else str(text), language=None, wrap_lines=True, **kwargs)


def show_value(value: Any, container: Any = None, *, expanded: bool | int = True) -> None:
    """JSON-like values (arguments, log entries) as a JSON viewer; strings as code."""
    target = container or st
    if isinstance(value, (dict, list)):
        target.json(value, expanded=expanded)
    else:
        show_code(value, target)


# --- Words a non-programmer meets ------------------------------------------------------------

GLOSSARY: dict[str, str] = {
    "goal": "What you ask the agent to do, in plain words (any language).",
    "step": "One round of the loop: the model reads the goal and recent results, then either "
    "calls tools or gives the final answer.",
    "tool call": "The model asking the program to run one tool (a calculator, a file reader …) "
    "with some inputs; the result goes back to the model.",
    "context block": "One model turn plus the tool results it caused — the unit of memory "
    "the model is shown again on later steps.",
    "trimmed": "Left out of what the model sees, to keep its input short: only the most recent "
    "context blocks are sent (the goal is always sent).",
    "retry": "Running a tool or model call again after a temporary failure, after a short, growing, randomised wait.",
    "fallback": "A backup tool used when the first one keeps failing (search_web → search_cached).",
    "duplicate": "The same tool with the same inputs again in one run; it is refused so the model "
    "tries something new instead of looping.",
    "truncated": "A tool result longer than the limit was cut, and marked [TRUNCATED].",
    "token": "The unit models count text in — roughly ¾ of an English word; tokens drive cost.",
    "estimated tokens": "An estimate from the text's length: the rule-based demo model and scripted runs have no "
    "tokenizer, so no model counted these tokens.",
    "provider": "Which model answers: a local model, the offline demo planner, or a cloud API.",
    "step limit": "How many steps the agent may take before it stops without an answer.",
    "context-block limit": "How many recent context blocks are sent to the model at each step.",
    "scripted": "A scripted demo replays fixed model turns to show engine behaviour on purpose; no model is asked.",
    "cost": "Estimated price of the tokens used, from a price table; free for local/offline models.",
    "origin": "Who decided: 🧠 the model chose the tool and its inputs itself (perhaps held to a schema "
    "that lists the tools); ⚙ the workbench chose it for the model, by the rule named. "
    "How sure the model was, where shown, is its own probability for its choice and for the others it "
    "was offered (from its token probabilities, before the workbench's grammar): how close the "
    "choice was, not a sign that it was right.",
}


def explain(term: str) -> str:
    """The one-line, plain-language explanation of ``term``."""
    return GLOSSARY[term]


# --- Formatting ------------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (a hand-edited record may hold anything)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def fmt_ms(value: Any) -> str:
    """Milliseconds for people: ``850 ms``, ``2.4 s``, ``3 min 5 s``."""
    if _missing(value):
        return "—"
    ms = _number(value)
    if ms is None:
        return str(value)
    if ms < 1000:
        return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(int(ms / 1000), 60)
    return f"{minutes} min {seconds} s"


def fmt_cost(usd: Any) -> str:
    """An estimated cost: ``$0.0012``, ``free`` for 0, ``unknown`` when the model has no price."""
    if _missing(usd):
        return "unknown"
    if _number(usd) is None:
        return str(usd)
    usd = float(usd)
    if usd == 0:
        return "free"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def fmt_int(value: Any) -> str:
    """An integer with thousands separators (``—`` when missing)."""
    if _missing(value):
        return "—"
    number = _number(value)
    return str(value) if number is None else f"{int(number):,}"


def viewer_zone() -> str | None:
    """The browser's time zone (``Asia/Seoul``); None when it says none (tests) or it is UTC."""
    try:
        zone = st.context.timezone
    except Exception:  # noqa: BLE001 - outside a session (a bare script run): UTC
        return None
    return zone if zone and zone not in ("UTC", "Etc/UTC") else None


def fmt_time(value: Any) -> str:
    """A timestamp (ISO string or pandas Timestamp) in the viewer's time, with UTC beside it
    (``2026-12-03 21:55:29 KST (12:55 UTC)``); ``YYYY-MM-DD HH:MM:SS UTC`` when the browser gives
    no zone."""
    if _missing(value):
        return "—"
    try:
        ts = pd.Timestamp(value)
    except (TypeError, ValueError):
        return str(value)
    if ts.tzinfo is None:
        ts = ts.tz_localize("UTC")
    utc = ts.tz_convert("UTC")
    zone = viewer_zone()
    if zone:
        try:
            local = utc.tz_convert(zone)
        except Exception:  # noqa: BLE001 - a zone name this machine does not know: UTC
            return utc.strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()} ({utc:%H:%M} UTC)"
    return utc.strftime("%Y-%m-%d %H:%M:%S UTC")


STATUS_ICONS = {
    "completed": "✅",
    "running": "⏳",
    "waiting_for_approval": "✋",
    "max_steps": "⏹️",
    "error": "❌",
    "cancelled": "🛑",
    "interrupted": "⚠️",
}
STATUS_HELP = {
    "completed": "The agent gave a final answer.",
    "running": "The run is still going.",
    "waiting_for_approval": "The run waits for a person to approve, edit or reject a tool call (Run page).",
    "max_steps": "The step limit was reached before a final answer.",
    "error": "The run failed (for example, the model could not be reached).",
    "cancelled": "Someone pressed Stop (or left the page) while it ran; finished steps were kept.",
    "interrupted": "The process running it went away before it finished (a crash or restart).",
}


def status_text(status: Any) -> str:
    """Status with its icon; an unknown status (a record is data too) is escaped."""
    if status in STATUS_ICONS:
        return f"{STATUS_ICONS[status]} {status}"
    return f"• {md_label(status, 20)}"


# --- Engine objects (cached per data folder) ------------------------------------------------


def signed_in_user() -> str | None:
    """The signed-in user's e-mail (or name) when Streamlit's authentication is configured and
    someone is logged in; None otherwise."""
    try:
        user = st.user
        if not user.get("is_logged_in"):
            return None
        name = user.get("email") or user.get("name") or user.get("sub")
    except Exception:  # noqa: BLE001 - no auth configured (or an older Streamlit): nobody signed in
        return None
    return str(name) if name else None


def with_signed_in_user(config: Settings) -> Settings:
    """``config`` with the signed-in user as who runs (AGENT_USER stays when nobody signs in)."""
    user = signed_in_user()
    return config.replace(user=user) if user else config


def settings() -> Settings:
    """Settings of this session, read once per session from the environment / ``.env``.

    app.py stores them; a page run alone (tests) reads them itself.
    """
    current = st.session_state.get("app_settings")
    if current is None:
        current = with_signed_in_user(Settings.from_env())  # runs are recorded as the signed-in user
        st.session_state["app_settings"] = current
    return current


@st.cache_resource(show_spinner=False)
def _sample_workspace(workspace: str) -> str:
    """Copy the sample documents once per folder and process; what to tell the person ('' = nothing)."""
    from agent_core.tools.sample_workspace import ensure_sample_workspace

    try:
        copied = ensure_sample_workspace(Path(workspace))
    except OSError as exc:
        return f"The workspace folder {workspace} is missing and the sample documents could not be copied ({exc}); the file examples will fail."
    return f"The data folder had no workspace/: the sample documents were copied to {workspace}." if copied else ""


@st.cache_resource(show_spinner=False)
def _notes_given() -> set[str]:
    """The workspace folders whose note was given already (one set per server process)."""
    return set()


def sample_workspace_note(config: Settings) -> str:
    """Make sure the data folder has a ``workspace/`` (the sample documents, on first start); what
    to tell the person, once per folder and server process (not in every new browser session)."""
    folder = str(config.workspace_dir)
    note = _sample_workspace(folder)
    given = _notes_given()
    if not note or folder in given:
        return ""
    given.add(folder)
    return note


@st.cache_resource(show_spinner=False)
def _store(runs_dir: str) -> RunStore:
    return RunStore(runs_dir)


def run_store(config: Settings, *, refresh: bool = True) -> RunStore:
    """The shared :class:`RunStore` of ``config.runs_dir`` (one per folder), refreshed unless the
    page only loads single records (``refresh=False``)."""
    store = _store(str(config.runs_dir.resolve()))
    if refresh:
        # Shown only when reading takes over half a second: the first look at a large folder
        # (every file is parsed once; later visits and restarts use the index).
        with st.spinner(
            "Reading the saved runs… the first look at a large folder takes a while; later visits are quick.",
            show_time=True,
        ):
            store.refresh()
    return store


def tool_registry(config: Settings) -> ToolRegistry:
    """A fresh registry of the built-in tools (cheap; nothing in it is shared between runs)."""
    return build_default_registry(config)


# --- Filters on the store's tables ----------------------------------------------------------


def date_filter(where: Any, column: pd.Series, key: str) -> tuple[date, ...]:
    """A "Dates (UTC)" range box spanning the days in ``column``; the days picked as a tuple
    (one day while the second end of the range is still being picked)."""
    first, last = date_bounds(column)
    days = where.date_input("Dates (UTC)", value=(first, last), key=key, help="Runs started in this range.")
    return tuple(days) if isinstance(days, (tuple, list)) else (days,)


def choice_filter(where: Any, label: str, column: pd.Series, key: str, help: str | None = None) -> list[str]:
    """A multiselect over the values found in ``column``; nothing picked means all."""
    return where.multiselect(label, sorted(column.dropna().unique()), key=key, placeholder="all", help=help)


# --- Small shared widgets -------------------------------------------------------------------


def quantitative(field: str, title: str | None = None, **more: Any) -> dict[str, Any]:
    """A Vega-Lite encoding channel for a numeric column."""
    return {"field": field, "type": "quantitative", **({"title": title} if title else {}), **more}


def nominal(field: str, **more: Any) -> dict[str, Any]:
    """A Vega-Lite encoding channel for a column of names."""
    return {"field": field, "type": "nominal", **more}


def bar_chart(data: pd.DataFrame, encoding: dict[str, Any], *, step: int = 26, **mark: Any) -> None:
    """A horizontal bar chart from a Vega-Lite ``encoding``, as wide as its container.

    The spec is written directly (no Altair objects: building and validating those costs
    ~50 ms a chart on every rerun). Bars get ``step`` pixels each instead of a fixed height —
    with a legend above or below the plot, Streamlit 1.67 squashes a fixed-height chart to a sliver.
    """
    spec = {"mark": {"type": "bar", **mark}, "encoding": encoding, "height": {"step": step}}
    st.vega_lite_chart(data, spec, width="stretch")


def metric_row() -> Any:
    """A row for ``st.metric`` s that wraps onto more lines on narrow screens (use
    ``width="content"`` on the metrics) instead of cutting their values off."""
    return st.container(horizontal=True, wrap=True, gap="medium")


def problems_warning(store: RunStore) -> None:
    """List unreadable files in the runs folder as a warning (they are skipped, never fatal)."""
    problems = store.problems()
    if not problems:
        return
    with st.container(border=True):
        st.warning(
            f"{len(problems)} file(s) in the runs folder could not be read as run records and "
            "are skipped. Other runs are shown normally.",
            icon="⚠️",
        )
        st.dataframe(pd.DataFrame(problems, columns=["file", "problem"]), hide_index=True, width="stretch")


def no_runs_yet(what: str) -> None:
    """The empty state: say why the page is empty and point to the Run page."""
    st.info(f"No runs yet — {what} appear here once an agent has run.", icon="ℹ️")
    if not settings().read_only:  # a viewer instance has no Run page
        st.page_link("pages/run.py", label="Go to Run and start one", icon=":material/play_arrow:")


def wrapping_columns(key: str, min_px: int = 170) -> None:
    """Let the ``st.columns`` rows inside the container ``key`` wrap once a column would be
    narrower than ``min_px`` (Streamlit stacks columns only below 640 px, so at 800 px with the
    sidebar open a date range or "Newest" was cut off). Our own CSS, no run text in it."""
    st.html(
        f"<style>.st-key-{key} [data-testid='stHorizontalBlock'] {{ flex-wrap: wrap; }} "
        f".st-key-{key} [data-testid='stColumn'] {{ min-width: {int(min_px)}px; }} "
        # A date range ("2026/12/01 – 2026/12/01" and its icon) needs more room than other fields.
        f".st-key-{key} [data-testid='stColumn']:has([data-testid='stDateInput']) {{ min-width: 250px; }}</style>"
    )


def fmt_tokens(value: Any, estimated: bool) -> str:
    """A token count, marked "~… (estimated)" when no model counted it (``estimated``)."""
    return f"~{fmt_int(value)} (estimated)" if estimated else fmt_int(value)


def examples_for(goals: Sequence[str], locale: str | None) -> list[str]:
    """Example goals with those in the browser's language first (Korean for a ``ko`` locale,
    else the others), each group in its own order."""
    from agent_core.text.lang import is_korean

    korean = str(locale or "").lower().startswith("ko")
    return sorted(goals, key=lambda goal: is_korean(goal) != korean)


NARROW_PX = 1000
"""Below this window width the sidebar starts folded (at 800 px it took 300 px)."""
# Our own script and CSS (nothing from a run in them): fold the sidebar once per browser tab when
# the window is narrow; the person can open it again (its arrow), and it stays as they leave it.
_FOLD_SIDEBAR = f"""
<style>.st-key-app_fold_sidebar {{ display: none; }}</style>
<script>
(() => {{
  if (window.innerWidth >= {NARROW_PX} || sessionStorage.getItem("aw_sidebar_folded")) return;
  let tries = 40;
  const fold = () => {{
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    const open = document.querySelector('[data-testid="stSidebar"][data-collapsed="false"]');
    if (button && open) {{
      button.click();
      sessionStorage.setItem("aw_sidebar_folded", "1");
    }} else if (open && tries-- > 0) {{
      setTimeout(fold, 100);
    }}
  }};
  fold();
}})();
</script>
"""


def fold_sidebar_when_narrow() -> None:
    """In a window under :data:`NARROW_PX`, fold the sidebar (once per browser tab)."""
    st.container(key="app_fold_sidebar").html(_FOLD_SIDEBAR, unsafe_allow_javascript=True)
