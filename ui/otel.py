"""History detail → OpenTelemetry: "Download as OTLP JSON" and "Send to…" a tracing tool.

The engine does the work (:mod:`agent_core.otel`); this draws the form. The last destination
(preset, endpoint, MLflow experiment) is remembered in the data folder; keys are typed into
password fields, kept only in this browser session, and shown masked.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.otel.encode import to_otlp_json_lines
from agent_core.otel.export import record_to_trace
from agent_core.otel.send import (
    DEFAULT_DELAYS,
    PRESETS,
    ExportError,
    Target,
    load_last_destination,
    parse_headers,
    preset_target,
    save_last_destination,
    send_traces,
    target_from_env,
)
from agent_core.settings import Settings
from ui import common as ui

_ENV = "env"
_LABELS = {_ENV: "From the environment (OTEL_EXPORTER_OTLP_*)", **{k: v["label"] for k, v in PRESETS.items()}}


def _target(preset: str, endpoint: str, secrets: dict[str, str], experiment: str) -> Target:
    if preset == _ENV:
        target = target_from_env()
        if target is None:
            raise ValueError("OTEL_EXPORTER_OTLP_ENDPOINT is not set")
        return target
    headers = parse_headers(secrets.get("headers") or None)
    return preset_target(
        preset,
        endpoint=endpoint or None,
        api_key=secrets.get("api_key") or None,
        public_key=secrets.get("public_key") or None,
        secret_key=secrets.get("secret_key") or None,
        experiment_id=experiment or None,
        headers=headers,
    )


@st.cache_data(max_entries=8, show_spinner=False)
def _otlp_json(run_id: str, updated_at: str, content: bool, _record: dict[str, Any]) -> bytes:
    """The download's bytes, built once per run version (a 1,300-span run takes ~0.3 s)."""
    return to_otlp_json_lines([_record], content=content).encode("utf-8")


def export_panel(record: dict[str, Any], config: Settings) -> None:
    """The OpenTelemetry downloads and the "Send to…" form for one run."""
    st.caption(
        "OpenTelemetry: the run as GenAI spans (model calls, tool calls, attempts, fallbacks) for "
        "Phoenix, Langfuse, MLflow or any OTLP tool. Arguments, results and messages are left out "
        "unless you include them (they are masked and size-capped then)."
    )
    rid = str(record.get("run_id"))
    content = st.checkbox("Include content (goal, answer, tool arguments and results)", key="otel_content")
    clean = {k: v for k, v in record.items() if k != "status_shown"}
    st.download_button(
        "Download as OTLP JSON",
        _otlp_json(rid, str(record.get("updated_at") or record.get("finished_at")), content, clean),
        file_name=f"{rid}.otlp.jsonl",
        mime="application/jsonl",
        key="history_dl_otlp",
        help="The OpenTelemetry file-exporter format (JSON lines); `python -m agent_core import` reads it back.",
    )
    if not st.toggle(
        "Send to…", key="otel_send_open", help="Send this run to Phoenix, Langfuse, MLflow or any OTLP endpoint."
    ):
        return
    with st.container(border=True):
        last = load_last_destination(config.data_dir)
        options = list(_LABELS) if target_from_env() is not None else list(PRESETS)
        preset = st.selectbox(
            "Tool",
            options,
            format_func=_LABELS.get,
            key="otel_preset",
            index=options.index(last["preset"]) if last.get("preset") in options else 0,
        )
        secrets: dict[str, str] = {}
        endpoint = experiment = ""
        if preset == _ENV:
            env = target_from_env()
            assert env is not None
            st.caption(ui.escape_md(f"Endpoint: {env.endpoint}"))
            if env.headers:
                st.caption(ui.escape_md("Headers: " + ", ".join(f"{k}: {v}" for k, v in env.masked_headers().items())))
        else:
            default = last.get("endpoint") if last.get("preset") == preset else None
            endpoint = st.text_input(
                "Endpoint",
                value=default or PRESETS[preset]["endpoint"],
                key=f"otel_endpoint_{preset}",
                help="The tool's base URL; the OTLP path is added (…/v1/traces).",
            )
            if preset == "langfuse":
                secrets["public_key"] = st.text_input("Public key", type="password", key="otel_lf_pk")
                secrets["secret_key"] = st.text_input("Secret key", type="password", key="otel_lf_sk")
            elif preset == "mlflow":
                experiment = st.text_input("Experiment id", value=last.get("experiment_id", "0"), key="otel_mlflow_exp")
            else:
                secrets["api_key"] = st.text_input(
                    "API key (optional)",
                    type="password",
                    key=f"otel_key_{preset}",
                    help="Sent as 'Authorization: Bearer …'.",
                )
                if preset == "generic":
                    secrets["headers"] = st.text_input(
                        "More headers (optional)",
                        type="password",
                        key="otel_headers",
                        help="KEY=VALUE pairs separated by commas, as in OTEL_EXPORTER_OTLP_HEADERS.",
                    )
        if st.button("Send", key="otel_send", type="primary"):
            try:
                target = _target(preset, endpoint, secrets, experiment)
            except ValueError as exc:
                st.error(ui.escape_md(str(exc)), icon="⚠️")
                return
            with st.spinner(ui.escape_md(f"Sending to {target.endpoint} …")):
                try:
                    count = send_traces(
                        [record_to_trace(clean, content=content)], target, delays=DEFAULT_DELAYS, timeout=5.0
                    )
                except ExportError as exc:
                    st.error(ui.escape_md(str(exc)), icon="📡")
                    return
            if preset != _ENV:
                save_last_destination(
                    config.data_dir, {"preset": preset, "endpoint": endpoint, "experiment_id": experiment}
                )
            shown = ", ".join(f"{k}: {v}" for k, v in target.masked_headers().items())
            st.success(
                ui.escape_md(f"Sent {count} spans to {target.endpoint}" + (f" (headers: {shown})" if shown else "")),
                icon="✅",
            )
