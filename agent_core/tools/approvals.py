"""Which tool calls a person approves first: a policy per tool, ``auto`` / ``ask`` / ``blocked``.

Defaults: a built-in tool runs (``auto``), and so does a tool whose annotations say it only
reads (``readOnlyHint: true``); an MCP or declared tool that may change things, or whose
annotations say nothing, asks first. A person's choices (the Tools page, "Always allow this tool"
saved) are kept in ``AGENT_DATA_DIR/approvals.json`` as ``{"tools": {name: policy}}``; a tool
missing from the file has its default.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Literal, get_args

from agent_core.settings import Settings
from agent_core.tools.registry import Tool

log = logging.getLogger("agent_core.tools.approvals")

Policy = Literal["auto", "ask", "blocked"]
POLICIES: tuple[Policy, ...] = get_args(Policy)
FILE_NAME = "approvals.json"

POLICY_WORDS: dict[Policy, str] = {
    "auto": "runs without asking",
    "ask": "asks you first",
    "blocked": "never runs",
}
"""Each policy in plain words (badges, menus, the CLI)."""


def approvals_path(settings: Settings) -> Path:
    """``<data_dir>/approvals.json``: the saved policies."""
    return settings.data_dir / FILE_NAME


def default_policy(tool: Tool) -> Policy:
    """What a tool gets when no one chose: built-in or read-only tools run, the others ask."""
    if tool.source == "builtin":
        return "auto"
    if (tool.annotations or {}).get("readOnlyHint") is True:
        return "auto"
    return "ask"


def load_policies(settings: Settings) -> dict[str, Policy]:
    """The saved policies by tool name; an unreadable file is logged and counts as empty (every
    tool then has its default, which asks for anything that may change things)."""
    path = approvals_path(settings)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s could not be read (%s): the default policies apply", path, exc)
        return {}
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, dict):
        return {}
    return {str(name): value for name, value in tools.items() if value in POLICIES}


def policy_for(tool: Tool, saved: dict[str, Policy]) -> Policy:
    """The tool's policy: the saved one, else its default."""
    return saved.get(tool.name) or default_policy(tool)


def save_policy(settings: Settings, name: str, policy: Policy | None) -> dict[str, Policy]:
    """Save ``name``'s policy (None: back to its default) atomically; returns the saved policies."""
    if policy is not None and policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: use one of {', '.join(POLICIES)}")
    policies = load_policies(settings)
    if policy is None:
        policies.pop(name, None)
    else:
        policies[name] = policy
    path = approvals_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".approvals.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"tools": dict(sorted(policies.items()))}, handle, indent=2, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return policies
