"""Estimated model cost: a price table in USD per 1M prompt / completion tokens.

The defaults cover a few common OpenAI models (list prices, which change: treat the figures as
estimates). `RESEARCH_PRICES` overrides or extends the table with JSON, either form per model:

    RESEARCH_PRICES='{"gpt-4o-mini": [0.15, 0.60], "llama3.1": {"prompt": 0, "completion": 0}}'

A `"*"` entry prices every model the table does not name (e.g. `{"*": [0, 0]}` for local models).
Unknown models have no estimate (None), never a guess.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass

from research.schemas.state_shapes import Usage

log = logging.getLogger(__name__)

PRICES_ENV = "RESEARCH_PRICES"
WILDCARD = "*"


@dataclass(frozen=True)
class Price:
    prompt_per_million: float
    completion_per_million: float


DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "o4-mini": Price(1.10, 4.40),
    "o3": Price(2.00, 8.00),
    "gpt-5": Price(1.25, 10.00),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5-nano": Price(0.05, 0.40),
}


def load_price_table(raw: str | None = None) -> dict[str, Price]:
    """The default table with the JSON overrides from `raw` (default: the RESEARCH_PRICES env var).

    A malformed override is logged and ignored, so a typo never stops a run.
    """
    table = dict(DEFAULT_PRICES)
    raw = os.environ.get(PRICES_ENV) if raw is None else raw
    if not raw or not raw.strip():
        return table
    try:
        overrides = json.loads(raw)
        if not isinstance(overrides, dict):
            raise ValueError("expected a JSON object of model -> price")
        for model, value in overrides.items():
            table[str(model)] = _parse_price(value)
    except (ValueError, TypeError) as exc:
        log.warning("Ignoring %s: %s", PRICES_ENV, exc)
        return dict(DEFAULT_PRICES)
    return table


def _parse_price(value: object) -> Price:
    if isinstance(value, dict):
        return Price(float(value["prompt"]), float(value["completion"]))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return Price(float(value[0]), float(value[1]))
    raise ValueError(f"a price is [prompt, completion] or {{'prompt': x, 'completion': y}}, got {value!r}")


def price_for(model: str, table: dict[str, Price] | None = None) -> Price | None:
    """Exact name first, then the longest table name the model starts with (dated snapshots such as
    gpt-4o-mini-2024-07-18 price as gpt-4o-mini), then the wildcard."""
    table = load_price_table() if table is None else table
    name = model.strip()
    if name in table:
        return table[name]
    bare = name.rsplit("/", 1)[-1]  # "openai/gpt-4o" as some gateways name it
    prefixes = [key for key in table if key != WILDCARD and (bare == key or bare.startswith(key + "-"))]
    if prefixes:
        return table[max(prefixes, key=len)]
    return table.get(WILDCARD)


def estimate_cost(model: str, usage: Usage, table: dict[str, Price] | None = None) -> float | None:
    """USD estimate for `usage` on `model`, or None when the model has no known price."""
    price = price_for(model, table)
    if price is None:
        return None
    return (
        usage.prompt_tokens * price.prompt_per_million + usage.completion_tokens * price.completion_per_million
    ) / 1_000_000
