"""The plain-language summary on screen (Run outcome, History detail) and History's one-liner.

Every sentence comes from :mod:`agent_core.analysis.explain`; names in it (tools) came from the run, so
they are escaped like any run text. Each sentence has a "Step N" button that opens that step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.analysis.explain import Explanation, explain, one_line_from_row
from agent_core.records.files import load_record
from ui import common as ui

SUMMARY_COLUMN = st.column_config.TextColumn(
    "In short", help="What happened, in plain words (from the run's numbers).", width="medium"
)


def with_summary_column(columns: dict[str, Any]) -> dict[str, Any]:
    """History's table columns with the one-liner right after the status."""
    out: dict[str, Any] = {}
    for name, config in columns.items():
        out[name] = config
        if name == "status":
            out["summary"] = SUMMARY_COLUMN
    out.setdefault("summary", SUMMARY_COLUMN)
    return out


def add_one_liners(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` (a page of History's table) with a ``summary`` column from the index fields."""
    if runs.empty:
        return runs.assign(summary=pd.Series(dtype="object"))
    kinds = runs["outcome"] if "outcome" in runs else [""] * len(runs)
    lines = [
        one_line_from_row(str(status), int(steps), int(calls), int(failed), str(kind or ""))
        for status, steps, calls, failed, kind in zip(
            runs["status"], runs["steps"], runs["tool_calls"], runs["failed_calls"], kinds
        )
    ]
    return runs.assign(summary=lines)


def _full_record(record_or_event: dict[str, Any]) -> dict[str, Any] | None:
    """The record itself (the Run page has only the finished event, which names the file)."""
    if isinstance(record_or_event.get("steps"), list):
        return record_or_event
    path = record_or_event.get("path")
    if not path:
        return None
    try:
        return load_record(path)
    except Exception:  # the summary is a bonus: the outcome box still shows
        return None


def _show_step(record: dict[str, Any], step: int, show_call: Callable[[dict[str, Any], Any], None]) -> None:
    found = next((s for s in record.get("steps") or [] if isinstance(s, dict) and s.get("index") == step), None)
    if found is None:
        st.caption("This step is not in the record.")
        return
    st.markdown(f"**Step {step}** · {ui.fmt_ms(found.get('duration_ms'))}", help=ui.explain("step"))
    if found.get("text"):
        st.caption("What the model said")
        ui.show_text(ui.one_line(found.get("text"), 600))
    ids = found.get("tool_call_ids") or []
    calls = [c for c in record.get("tool_calls") or [] if isinstance(c, dict) and c.get("call_id") in ids]
    for call in calls:
        show_call(call, st)
    if not calls and not found.get("text"):
        st.caption("The model call of this step did not succeed.")


def _ai_box(result: Explanation, record: dict[str, Any], box: Any, key: str) -> None:
    """ "Explain with AI": any available provider rewords the facts; the guard may refuse its text."""
    from agent_core.analysis.explain_ai import explain_with_ai, provider_asker
    from agent_core.errors import ProviderError
    from agent_core.providers import list_providers, make_provider

    with box.expander("Explain with AI", icon="✨"):
        st.caption(
            "A model rewrites the summary from the facts above. Its text is shown only if every number "
            "and tool name in it is among the facts; otherwise you get the summary above, and a note why."
        )
        # The offline planner is rule-based: it cannot reword anything.
        infos = [p for p in list_providers() if p.available and p.spec is not None and not p.spec.rule_based]
        ids = [p.id for p in infos]
        if not ids:
            st.caption("No model is available for this: it needs the local model or a provider's API key.")
            return
        own = str(record.get("provider") or "")
        choice = st.selectbox(
            "Provider",
            ids,
            index=ids.index(own) if own in ids else 0,
            key=f"{key}_ai_provider",
            format_func=lambda pid: next((f"{p.id} — {p.label}" for p in infos if p.id == pid), pid),
        )
        if not st.button("Explain with AI", key=f"{key}_ai_go"):
            return
        try:
            provider = make_provider(choice, settings=ui.settings())
        except (ProviderError, ValueError) as exc:
            st.error(f"The provider cannot be used: {ui.md_label(exc, 200)}")
            return
        with st.spinner("Asking the model…", show_time=True):
            text, note = explain_with_ai(
                result, provider_asker(provider), known_tools=ui.tool_registry(ui.settings()).names()
            )
        ui.show_text(text)
        if note:
            st.info(ui.escape_md(note), icon="🛡️")


def show_summary(
    record_or_event: dict[str, Any],
    container: Any = None,
    *,
    show_call: Callable[[dict[str, Any], Any], None],
    key: str = "summary",
    ai: bool = False,
) -> Explanation | None:
    """The summary box: sentences (each with its step), why it failed and what to try, details.

    ``show_call(call, container)`` draws a tool call of a step opened from a sentence (the run
    view's own drawing, passed in so this module does not import it back)."""
    record = _full_record(record_or_event)
    if record is None:
        return None
    if record_or_event.get("status_shown"):
        record = {**record, "status_shown": record_or_event["status_shown"]}
    result = explain(record)
    target = container or st
    box = target.container(border=True)
    if record.get("imported_from"):
        source = {"html": "an exported web page", "json": "a JSON file", "otlp": "an OpenTelemetry file"}
        box.caption(f"📥 Imported from {source.get(str(record['imported_from']), 'a file')}, not run here.")
    box.markdown("**In plain words**", help="Made from the run's record by fixed rules, not by a model.")
    for n, sentence in enumerate(result.sentences):
        if sentence.step is None:
            box.markdown(ui.escape_md(sentence.text))
            continue
        left, right = box.columns([3, 1], vertical_alignment="center")
        left.markdown(ui.escape_md(sentence.text))
        with right.popover(
            f"Step {sentence.step}", key=f"{key}_step_{n}", type="tertiary", icon=":material/open_in_new:"
        ):
            _show_step(record, sentence.step, show_call)
    failure = result.failure
    if failure is not None:
        where = f" (step {failure.step})" if failure.step is not None else ""
        hints = "\n".join(f"- {ui.escape_md(h)}" for h in failure.hints)
        box.warning(
            f"**Why it did not finish:** {ui.escape_md(failure.headline.rstrip('.'))}{where}.\n\n"
            f"**What you can try**\n{hints}",
            icon="💡",
        )
    if result.technical:
        with box.expander("Technical details"):
            ui.show_code("\n".join(result.technical))
    if ai:
        _ai_box(result, record, box, key)
    return result


def download_page(record: dict[str, Any], where: Any = None, *, key: str = "history_dl_html") -> None:
    """History detail → "Download as a web page" (one offline HTML file that imports back)."""
    from agent_core.analysis.export_html import export_html

    target = where or st
    hide = target.checkbox(
        "Leave tool outputs out of the web page",
        key=f"{key}_hide",
        help="For sharing a run whose tool results are private; the steps and arguments stay.",
    )
    target.download_button(
        "Download as a web page",
        export_html(record, hide_outputs=hide).encode("utf-8"),
        file_name=f"{record.get('run_id')}.html",
        mime="text/html",
        key=key,
        icon="🌐",
        help="One .html file that opens in any browser, offline, with a Play button for demos. "
        "Import it back here with “Import a run”.",
    )


def _import_upload(data: bytes, name: str, runs_dir: Any) -> tuple[dict[str, Any], Any]:
    """An exported page or record JSON (:mod:`agent_core.analysis.import_run`), or OTLP JSON lines (the first trace)."""
    from agent_core.analysis.import_run import ImportProblem, import_bytes

    if not name.lower().endswith((".jsonl", ".otlp")) and b'"resourceSpans"' not in data[:4096]:
        return import_bytes(data, name, runs_dir)
    from agent_core.otel.importer import ImportError_, parse_otlp
    from agent_core.records.files import record_path, save_record

    try:
        records = parse_otlp(data, name)
    except ImportError_ as exc:
        raise ImportProblem(str(exc)) from None
    fresh = [r for r in records if not record_path(runs_dir, r["run_id"]).exists()]
    if not fresh:
        raise ImportProblem("every run in this file is already saved; nothing was changed")
    for record in fresh:
        save_record(record, runs_dir)
    return fresh[0], record_path(runs_dir, fresh[0]["run_id"])


def import_box(store: Any) -> None:
    """History → "Import a run": an exported web page or a record's JSON becomes a saved run."""
    from agent_core.analysis.import_run import ImportProblem

    with st.expander("Import a run", icon="📥"):
        upload = st.file_uploader(
            "A web page made by “Download as a web page”, a run record (JSON), or OpenTelemetry JSON lines (.jsonl)",
            type=["html", "htm", "json", "jsonl"],
            key="history_import_file",
        )
        if upload is None:
            return
        done = st.session_state.get("history_import_done") or {}
        if done.get("file_id") != upload.file_id:
            try:
                record, _ = _import_upload(upload.getvalue(), upload.name, store.runs_dir)
            except ImportProblem as exc:
                done = {"file_id": upload.file_id, "error": str(exc)}
            except OSError as exc:
                done = {"file_id": upload.file_id, "error": f"The run could not be saved: {exc}"}
            else:
                done = {"file_id": upload.file_id, "run_id": record["run_id"], "kind": record.get("imported_from")}
                store.refresh()
                st.query_params["run"] = record["run_id"]
            st.session_state["history_import_done"] = done
        if done.get("error"):
            st.error(f"Not imported: {ui.md_label(done['error'], 300)}", icon="⚠️")
        else:
            st.success(
                f"Imported run {ui.md_label(done.get('run_id'), 60)} (from {ui.md_label(done.get('kind'), 10)}); "
                "it is open below and marked as imported.",
                icon="✅",
            )
