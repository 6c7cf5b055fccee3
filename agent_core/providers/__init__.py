"""Provider catalogue: which providers exist, whether each can be used here, and a factory.

Each provider module exposes ``SPEC`` (a :class:`~agent_core.providers.base.ProviderSpec`: label,
default model, free or paid, default answer check, tracing name, whether it preloads …),
``availability() -> str | None`` (None when usable, else a one-line hint) and
``create(*, model, base_url, settings) -> Provider``. Modules are imported lazily (they import
their SDK only when a provider is made), so a missing SDK only makes its provider unavailable.

May import: the foundation modules, ``text``, ``records``, ``tools``, ``verdicts`` and ``checks``;
never the loop (``agent_core.run``) or anything above it. Only a provider's own module imports
its SDK. Imported by the loop, ``analysis``, ``evals``, the CLI and the pages.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from agent_core.errors import ProviderUnavailable
from agent_core.providers.base import AnswerCheckMode, Provider, ProviderSpec
from agent_core.settings import Settings

_MODULES: dict[str, str] = {
    "local": "agent_core.providers.local",
    "offline": "agent_core.providers.offline",
    "openai": "agent_core.providers.openai_responses",
    "openai-chat": "agent_core.providers.openai_chat",
    "anthropic": "agent_core.providers.anthropic_messages",
}
PROVIDER_IDS: tuple[str, ...] = tuple(_MODULES)
"""The providers a person can choose, in menu order."""
_OTHER_MODULES: dict[str, str] = {"scripted": "agent_core.providers.scripted"}
"""Providers the engine makes itself (demos, tests), never offered in a menu."""


@dataclass(frozen=True)
class ProviderInfo:
    """What the UI and the CLI show about a provider."""

    id: str
    label: str
    default_model: str
    available: bool
    hint: str
    """Why it is unavailable and what to do; empty when available."""
    uses_base_url: bool
    spec: ProviderSpec | None = None
    """The provider's declared traits; None when its module cannot be imported."""


def _module(provider_id: str) -> ModuleType | None:
    try:
        return importlib.import_module(_MODULES.get(provider_id) or _OTHER_MODULES[provider_id])
    except ImportError:
        return None


def provider_spec(provider_id: str) -> ProviderSpec | None:
    """The declared traits of ``provider_id``; None for an id no module here provides (a record
    from elsewhere, a test's own provider)."""
    if provider_id not in _MODULES and provider_id not in _OTHER_MODULES:
        return None
    module = _module(provider_id)
    spec = getattr(module, "SPEC", None)
    return spec if isinstance(spec, ProviderSpec) else None


def tokens_estimated(provider_id: str) -> bool:
    """Whether a run's token counts are the workbench's estimate, not a model's count: a
    rule-based provider (the offline demo model, scripted turns) has no tokenizer, so its counts
    come from the text's length. The pages label them as estimates."""
    spec = provider_spec(str(provider_id or ""))
    return bool(spec is not None and spec.rule_based)


def default_answer_check(provider_id: str) -> AnswerCheckMode:
    """The answer check a run on ``provider_id`` gets when ``ANSWER_CHECK`` is unset."""
    spec = provider_spec(provider_id)
    return spec.answer_check if spec is not None else "flag"


_ANSWER_CHECK_MODES: dict[str, AnswerCheckMode] = {"off": "off", "flag": "flag", "retry": "retry"}


def answer_check_for(settings: Settings, provider_id: str) -> AnswerCheckMode:
    """The answer check for a run on ``provider_id``: the setting (checked when settings are
    read), or the provider's default."""
    return _ANSWER_CHECK_MODES.get(settings.answer_check or "") or default_answer_check(provider_id)


def provider_info(provider_id: str) -> ProviderInfo:
    """Availability and labels of one provider (never raises for a known id)."""
    if provider_id not in _MODULES:
        raise ValueError(f"unknown provider {provider_id!r}; choose one of: {', '.join(PROVIDER_IDS)}")
    module = _module(provider_id)
    if module is None:
        return ProviderInfo(provider_id, provider_id, "", False, "not installed", False)
    try:
        hint = module.availability()
    except Exception as exc:  # availability must never crash a page
        hint = f"unavailable: {exc}"
    spec: ProviderSpec = module.SPEC
    return ProviderInfo(
        id=provider_id,
        label=spec.label,
        default_model=spec.default_model,
        available=hint is None,
        hint=hint or "",
        uses_base_url=spec.uses_base_url,
        spec=spec,
    )


def list_providers() -> list[ProviderInfo]:
    """Every known provider, in menu order."""
    return [provider_info(pid) for pid in PROVIDER_IDS if _MODULES.get(pid)]


def default_provider_id() -> str:
    """``local`` when its model and runtime are installed, else ``offline``."""
    local = provider_info("local")
    return "local" if local.available else "offline"


def make_provider(
    provider_id: str,
    *,
    settings: Settings,
    model: str | None = None,
    base_url: str | None = None,
) -> Provider:
    """Build a provider; raise :class:`ProviderUnavailable` with a hint when it cannot be used."""
    info = provider_info(provider_id)
    if not info.available:
        raise ProviderUnavailable(
            f"{provider_id} is unavailable: {info.hint}", provider=provider_id, error_type="Unavailable"
        )
    module = _module(provider_id)
    assert module is not None
    provider: Provider = module.create(
        model=model or settings.model_name or None, base_url=base_url or None, settings=settings
    )
    return provider
