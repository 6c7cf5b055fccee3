"""The editable price table: matching, overrides, free providers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.providers.base import Usage
from agent_core.run.pricing import DEFAULT_PRICES, Price, estimate_cost, find_price, load_prices


@pytest.fixture(autouse=True)
def _no_prices_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRICES_FILE", raising=False)


@pytest.mark.parametrize(
    ("model", "entry"),
    [
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("GPT-4o-mini", "gpt-4o-mini"),
        ("openai/gpt-4o", "gpt-4o"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("claude-haiku-4-5", "claude-haiku-4-5"),
        ("o3-mini-2025-01-31", "o3-mini"),
    ],
)
def test_known_models(model: str, entry: str) -> None:
    assert find_price(model) == DEFAULT_PRICES[entry]


@pytest.mark.parametrize("model", ["llama3.2", "gpt-4.10", "claude-opus-4-9", "gpt-5-codex-max", "", None])
def test_unknown_models(model: str | None) -> None:
    assert find_price(model) is None
    assert estimate_cost(model, Usage(1000, 1000, 2000)) is None


def test_cost_arithmetic_with_usage_object_or_dict() -> None:
    # gpt-4.1-mini: 0.40 in / 1.60 out per 1M tokens
    assert estimate_cost("gpt-4.1-mini-2025-04-14", Usage(1_000_000, 500_000, 1_500_000)) == pytest.approx(1.2)
    assert estimate_cost("gpt-4.1-mini", {"input_tokens": 2000, "output_tokens": 1000}) == pytest.approx(0.0024)
    assert estimate_cost("gpt-4.1-mini", Usage()) == 0.0


def test_free_providers_cost_nothing() -> None:
    for provider in ("offline", "local", "scripted"):
        assert estimate_cost("whatever", Usage(10, 10, 20), provider=provider) == 0.0
    assert estimate_cost("llama3.2", Usage(10, 10, 20), provider="openai-chat") is None


def test_override_file_in_data_dir(tmp_path: Path) -> None:
    (tmp_path / "prices.json").write_text(
        json.dumps({"llama3.2": [0, 0], "gpt-4.1-mini": {"input": 1.0, "output": 2.0}}), encoding="utf-8"
    )
    table = load_prices(tmp_path)
    assert table["gpt-4.1-mini"] == Price(1.0, 2.0)
    assert table["gpt-4o"] == DEFAULT_PRICES["gpt-4o"]
    assert estimate_cost("llama3.2", Usage(5, 5, 10), data_dir=tmp_path) == 0.0
    assert estimate_cost("gpt-4.1-mini", Usage(1_000_000, 1_000_000, 0), data_dir=tmp_path) == pytest.approx(3.0)


def test_prices_file_env_wins_and_broken_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    custom = tmp_path / "mine.json"
    custom.write_text(json.dumps({"my-model": [2, 4]}), encoding="utf-8")
    (tmp_path / "prices.json").write_text(json.dumps({"my-model": [100, 100]}), encoding="utf-8")
    monkeypatch.setenv("PRICES_FILE", str(custom))
    assert estimate_cost("my-model", Usage(1_000_000, 0, 0), data_dir=tmp_path) == pytest.approx(2.0)
    custom.write_text("{not json", encoding="utf-8")
    assert load_prices(tmp_path) == DEFAULT_PRICES
