"""Providers as a first-time user should see them: plain names, status first, short enough to
read at 800 px; ``openai-chat`` counts as available only while its server answers."""

from __future__ import annotations

import dataclasses

import streamlit as st

from agent_core.providers import ProviderInfo
from agent_core.providers.reachability import answers

PLAIN: dict[str, tuple[str, str]] = {
    # id: (name, what it is — shown when available)
    "local": ("Local AI model", "runs on this computer, no key"),
    "offline": ("Instant demo", "rule-based, no AI"),
    "openai": ("OpenAI", "cloud, your API key"),
    "anthropic": ("Anthropic Claude", "cloud, your API key"),
    "openai-chat": ("Your own model server", "Ollama, vLLM, LM Studio …"),
}


def _needs_server(info: ProviderInfo) -> bool:
    return info.spec is not None and info.spec.needs_running_server


def _why(info: ProviderInfo) -> str:
    hint = info.hint.lower()
    if "key" in hint:
        return "needs an API key"
    if _needs_server(info):
        return "no server answers"
    if "not installed" in hint or "install" in hint:
        return "not installed"
    return "unavailable"


def label(info: ProviderInfo) -> str:
    """``Local AI model — runs on this computer, no key``; ``⛔ OpenAI — needs an API key``."""
    name, what = PLAIN.get(info.id, (info.id, info.label))
    return f"{name} — {what}" if info.available else f"⛔ {name} — {_why(info)}"


@st.cache_data(ttl=20, show_spinner=False)
def _server_answers(url: str) -> bool:
    return answers(url)


def checked(info: ProviderInfo, base_url: str = "") -> ProviderInfo:
    """``info``, made unavailable when it needs a running server (``openai-chat``) and nothing
    answers at its base URL (checked quickly, remembered for 20 s)."""
    if not _needs_server(info) or not info.available:
        return info
    from agent_core.providers.openai_chat import configured_base_url

    url = base_url.strip() or configured_base_url()
    if _server_answers(url):
        return info
    hint = (
        f"no server answers at {url}. Start one (for example `ollama serve`), or give its Base URL; "
        "set OPENAI_COMPAT_BASE_URL to change the default."
    )
    return dataclasses.replace(info, available=False, hint=hint)


def pointers(providers: dict[str, ProviderInfo]) -> str:
    """ "Working here: Instant demo, Local AI model." — for an unavailable provider's message."""
    names = [PLAIN.get(pid, (pid, ""))[0] for pid, info in providers.items() if info.available]
    return f"Working here: {', '.join(names)}." if names else ""
