"""Estimated cost of a run: a small, editable price table (USD per 1M input / output tokens).

The built-in table covers a handful of known OpenAI and Anthropic models. A model name matches an
entry exactly, or as the entry followed by a dated snapshot or ``latest`` suffix, so
``gpt-4.1-mini`` prices ``gpt-4.1-mini-2025-04-14`` and ``claude-sonnet-4-5`` prices
``claude-sonnet-4-5-20250929`` / ``claude-sonnet-4-5@20250929``. Any other name is unknown:
``gpt-5.1`` is not priced as ``gpt-5``, nor ``claude-opus-4-6`` as ``claude-opus-4``. A leading
``vendor/`` (``openai/gpt-4.1``) is ignored.

Prices change: edit :data:`DEFAULT_PRICES`, or put a JSON file at ``$PRICES_FILE`` or
``<data_dir>/prices.json`` whose entries are merged over the defaults::

    {"gpt-4.1-mini": {"input": 0.40, "output": 1.60}, "my-model": [1.0, 2.0]}

Providers that run nothing billable (``offline``, ``local``, ``scripted``: see
:attr:`ProviderSpec.free <agent_core.providers.base.ProviderSpec.free>`) cost 0.0 when the caller passes ``provider=``; an unknown model is
``None`` ("unknown"), never a guess.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_core.providers import provider_spec

log = logging.getLogger("agent_core.run.pricing")


@dataclass(frozen=True)
class Price:
    """USD per one million tokens."""

    input: float
    output: float


DEFAULT_PRICES: dict[str, Price] = {
    # OpenAI (standard tier, per 1M tokens)
    "gpt-5.1": Price(1.25, 10.00),
    "gpt-5": Price(1.25, 10.00),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "o3": Price(2.00, 8.00),
    "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
    # Anthropic
    "claude-opus-4-6": Price(5.00, 25.00),
    "claude-opus-4-5": Price(5.00, 25.00),
    "claude-opus-4-1": Price(15.00, 75.00),
    "claude-opus-4": Price(15.00, 75.00),
    "claude-sonnet-4-6": Price(3.00, 15.00),
    "claude-sonnet-4-5": Price(3.00, 15.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
}

# What may follow a table entry: a dated snapshot (-20250929, -2025-04-14, @20250929) or -latest.
_SNAPSHOT = re.compile(r"[-@](\d{8}|\d{4}-\d{2}-\d{2}|latest)")


def _price(value: Any) -> Price:
    if isinstance(value, Mapping):
        return Price(float(value["input"]), float(value["output"]))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return Price(float(value[0]), float(value[1]))
    raise ValueError(f"expected {{'input': x, 'output': y}} or [x, y], got {value!r}")


def prices_file(data_dir: Path | str | None = None) -> Path | None:
    """The override file in use: ``$PRICES_FILE``, else ``<data_dir>/prices.json`` if present."""
    env = os.environ.get("PRICES_FILE", "").strip()
    if env:
        return Path(env)
    if data_dir is not None:
        candidate = Path(data_dir) / "prices.json"
        if candidate.is_file():
            return candidate
    return None


def load_prices(data_dir: Path | str | None = None) -> dict[str, Price]:
    """The default table with the override file merged over it.

    A missing or broken file is logged and ignored: a price table must never break a run.
    """
    table = dict(DEFAULT_PRICES)
    path = prices_file(data_dir)
    if path is None:
        return table
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file must hold a JSON object")
        for model, value in data.items():
            table[str(model).lower()] = _price(value)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring price file %s: %s", path, exc)
    return table


def find_price(model: str | None, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (exact name or name + snapshot suffix), or None when unknown."""
    if not model:
        return None
    table = DEFAULT_PRICES if prices is None else prices
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    for key in sorted(table, key=len, reverse=True):
        if name.startswith(key) and _SNAPSHOT.fullmatch(name[len(key) :]):
            return table[key]
    return None


def _tokens(usage: Any, name: str) -> int:
    value = usage.get(name, 0) if isinstance(usage, Mapping) else getattr(usage, name, 0)
    return int(value or 0)


def _free(provider_id: str) -> bool:
    spec = provider_spec(provider_id)
    return spec is not None and spec.free


def estimate_cost(
    model: str | None,
    usage: Any,
    *,
    provider: str | None = None,
    data_dir: Path | str | None = None,
    prices: Mapping[str, Price] | None = None,
) -> float | None:
    """Estimated USD cost of ``usage`` (a :class:`~agent_core.providers.base.Usage` or a dict with
    ``input_tokens`` / ``output_tokens``) on ``model``.

    Returns 0.0 for a free provider (``ProviderSpec.free``), None when the model's price is unknown.
    ``prices`` replaces the table (tests); otherwise the defaults plus the override file are used.
    """
    if provider is not None and _free(provider):
        return 0.0
    table = prices if prices is not None else load_prices(data_dir)
    price = find_price(model, table)
    if price is None:
        return None
    cost = (_tokens(usage, "input_tokens") * price.input + _tokens(usage, "output_tokens") * price.output) / 1e6
    return round(cost, 8)
