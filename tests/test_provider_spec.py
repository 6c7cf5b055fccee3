"""Provider traits are declared once, in each provider's ``SPEC``, and read from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core.providers import (
    PROVIDER_IDS,
    answer_check_for,
    default_answer_check,
    provider_info,
    provider_spec,
)
from agent_core.providers.base import Provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.pricing import estimate_cost
from agent_core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("provider_id", [*PROVIDER_IDS, "scripted"])
def test_every_provider_declares_its_spec(provider_id: str) -> None:
    spec = provider_spec(provider_id)
    assert spec is not None and spec.id == provider_id and spec.label and spec.default_model


def test_the_traits_each_provider_declares() -> None:
    traits = {
        pid: (s.free, s.answer_check, s.preloads, s.one_request_at_a_time, s.rule_based, s.trace_name)
        + (s.needs_running_server,)
        for pid in [*PROVIDER_IDS, "scripted"]
        if (s := provider_spec(pid)) is not None
    }
    assert traits == {
        "local": (True, "retry", True, True, False, "local", False),
        "offline": (True, "flag", False, False, True, "offline", False),
        "openai": (False, "flag", False, False, False, "openai", False),
        "openai-chat": (False, "flag", False, False, False, "openai", True),
        "anthropic": (False, "flag", False, False, False, "anthropic", False),
        "scripted": (True, "flag", False, False, True, "scripted", False),
    }
    assert provider_info("offline").spec == provider_spec("offline")


def test_the_answer_check_default_comes_from_the_spec() -> None:
    assert default_answer_check("local") == "retry" and default_answer_check("someone-elses") == "flag"
    assert answer_check_for(Settings(answer_check="off"), "local") == "off"


def test_free_providers_cost_nothing_and_unknown_ones_are_priced() -> None:
    usage = {"input_tokens": 1000, "output_tokens": 1000}
    assert estimate_cost("gpt-4.1-mini", usage, provider="offline") == 0.0
    assert estimate_cost("gpt-4.1-mini", usage, provider="fake-priced") == pytest.approx(0.002)


def test_optional_capabilities_have_defaults_on_the_protocol() -> None:
    provider = ScriptedProvider([])
    assert isinstance(provider, Provider)
    assert provider.meta() is None and provider.model_wait() is None and provider.use_run("", []) is None


def test_no_provider_id_tests_outside_the_providers() -> None:
    """A trait belongs in ``SPEC``; comparing a provider id with a literal elsewhere duplicates it."""
    pattern = re.compile(r"""(==|!=)\s*["'](local|offline|openai|openai-chat|anthropic)["']""")
    files = [*ROOT.glob("agent_core/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        if "providers" not in path.relative_to(ROOT).parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
