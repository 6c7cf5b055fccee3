"""The Tools page's tools declared without code: a form per tool (mock or http), and an OpenAPI import.

No code is ever taken from the browser: a declared tool is a template (``{{argument}}``) and, for
http, a URL on a host the operator allows; the YAML it writes is shown beside the form.
"""

from __future__ import annotations

import re

import streamlit as st
import yaml

from agent_core.settings import Settings
from agent_core.tools import declared, declared_form, openapi
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES
from ui import common as ui
from ui.mcp_servers import badges


def declared_section(config: Settings, *, editable: bool) -> None:
    """The declared tools (with their problems), the form, and the OpenAPI import."""
    tools, problems = declared.load_all(config, builtin_names=BUILTIN_TOOL_NAMES)
    for problem in problems:
        st.warning(ui.md_label(problem, 300), icon="📄")
    st.caption(
        f"Files in {ui.escape_md(config.declared_tools_dir)} (YAML). A **mock** tool answers from a template; an "
        "**http** tool calls a URL on a host the operator allows (HTTP_TOOL_HOSTS: "
        f"{ui.escape_md(', '.join(config.http_tool_hosts) or 'none yet')}). "
        "Write {{argument}} where an argument goes; name secrets by their .env variable: ${MY_TOKEN}."
    )
    for item in tools:
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        on = item.spec.get("enabled", True) is not False
        picked = row.checkbox(
            ui.md_label(item.name, 64),
            value=on,
            key=f"tools_decl_on_{item.name}",
            disabled=not editable,
            help=ui.one_line(item.spec.get("description"), 300),
        )
        row.caption(f"{ui.escape_md(item.spec.get('kind'))} · {ui.md_label(item.file.name, 60)}")
        marks = badges(
            item.spec.get("annotations") or ({"readOnlyHint": True} if item.spec["kind"] == "mock" else None)
        )
        if marks:
            row.markdown(marks)
        if picked != on:
            spec = dict(item.spec)
            if picked:
                spec.pop("enabled", None)
            else:
                spec["enabled"] = False
            declared.save_tool(config, spec, file=item.file)
            st.rerun()
    if editable:
        _form(config, tools)
        _openapi_import(config)


def _form(config: Settings, tools: list[declared.Declared]) -> None:
    names = ["(a new tool)", *[t.name for t in tools]]
    picked = st.selectbox("Declare or edit a tool", names, key="tools_decl_pick")
    item = next((t for t in tools if t.name == picked), None)
    original = dict(item.spec) if item is not None else dict(declared_form.NEW_TOOL)
    fields = declared_form.to_fields(original)
    key = f"tools_decl_{picked}"
    with st.form(key, border=True):
        values = {}
        left, right = st.columns(2)
        values["name"] = left.text_input("Name", fields["name"], key=f"{key}_name")
        kinds = list(declared.KINDS)
        values["kind"] = right.selectbox(
            "Kind", kinds, index=kinds.index(fields["kind"]) if fields["kind"] in kinds else 0, key=f"{key}_kind"
        )
        values["description"] = st.text_input(
            "Description (the model reads it to decide)", fields["description"], key=f"{key}_description"
        )
        values["parameters"] = st.text_area(
            "Parameters (JSON Schema, as YAML)", fields["parameters"], key=f"{key}_parameters", height=120
        )
        values["result"] = st.text_area(
            "Mock: the result ({{argument}} placeholders)", fields["result"], key=f"{key}_result", height=68
        )
        m, u = st.columns([1, 4])
        values["method"] = m.text_input("HTTP: method", fields["method"], key=f"{key}_method", placeholder="GET")
        values["url"] = u.text_input(
            "HTTP: URL", fields["url"], key=f"{key}_url", placeholder="https://api.example.com/items/{{id}}"
        )
        q, h = st.columns(2)
        values["query"] = q.text_area("HTTP: query (YAML)", fields["query"], key=f"{key}_query", height=68)
        values["headers"] = h.text_area("HTTP: headers (YAML)", fields["headers"], key=f"{key}_headers", height=68)
        b, p = st.columns(2)
        values["body"] = b.text_area("HTTP: JSON body (YAML)", fields["body"], key=f"{key}_body", height=68)
        values["result_path"] = p.text_input(
            "HTTP: result path", fields["result_path"], key=f"{key}_result_path", placeholder="data.count"
        )
        saved = st.form_submit_button("Save the tool", type="primary", icon=":material/save:")
    if item is not None:
        with st.expander("Its YAML"):
            st.code(declared.dump([item.spec]), language="yaml")
    if not saved:
        return
    try:
        spec = declared_form.from_fields(original, values, builtin_names=BUILTIN_TOOL_NAMES)
        if item is None and spec["name"] in {t.name for t in tools}:
            raise declared.DeclarationError(f"A declared tool named {spec['name']} already exists: pick it to edit it.")
        path = declared.save_tool(config, spec, file=item.file if item is not None else None)
    except declared.DeclarationError as exc:
        st.error(ui.md_label(exc, 400), icon="✋")
        return
    st.toast(f"Saved {ui.md_label(spec['name'], 64)} in {ui.md_label(path.name, 60)}", icon="💾")
    st.rerun()


def _openapi_import(config: Settings) -> None:
    with st.expander("Import operations from an OpenAPI 3 file"):
        upload = st.file_uploader(
            "OpenAPI document (.yaml or .json)", type=["yaml", "yml", "json"], key="tools_openapi"
        )
        if upload is None:
            return
        try:
            doc = yaml.safe_load(upload.getvalue().decode("utf-8"))
            ops = openapi.operations(doc)
        except (UnicodeDecodeError, yaml.YAMLError, ValueError) as exc:
            st.error(ui.md_label(exc, 300), icon="📄")
            return
        labels = {op.name: f"{op.method} {op.path} — {op.summary}" for op in ops}
        chosen = st.multiselect(
            "Operations to declare as tools",
            list(labels),
            default=list(labels),
            format_func=lambda n: ui.one_line(labels[n], 100),
            key="tools_openapi_ops",
        )
        base = st.text_input("Base URL (when the document names none)", key="tools_openapi_base")
        if st.button("Declare these tools", key="tools_openapi_go", disabled=not chosen):
            try:
                specs = openapi.to_tools(doc, chosen, base_url=base.strip() or None)
            except ValueError as exc:
                st.error(ui.md_label(exc, 300), icon="📄")
                return
            folder = config.declared_tools_dir
            folder.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^A-Za-z0-9_-]+", "_", upload.name.rsplit(".", 1)[0]).strip("_") or "openapi"
            target = folder / f"{stem}.yaml"
            target.write_text(declared.dump(specs), encoding="utf-8")
            st.toast(f"Declared {len(specs)} tools in {ui.md_label(target.name, 60)}", icon="📄")
            st.rerun()
