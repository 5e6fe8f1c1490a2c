"""Cleaning what a model says: reasoning blocks out, the JSON object in, a strict schema to ask for.

Local reasoning models (DeepSeek-R1, Qwen3, ...) prefix answers with `<think>...</think>`; some
servers put the opening tag in the chat template so only `</think>` reaches us; a truncated reply
may open a block and never close it. None of that may reach a draft or a JSON parser.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel


class InvalidModelOutput(ValueError):
    """The model answered, but with nothing usable (empty, or not the shape asked for)."""


_TAG = r"(?:think|thinking|reasoning)"
_CLOSED_BLOCK = re.compile(rf"<({_TAG})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_ORPHAN_CLOSE = re.compile(rf"^(?:(?!<{_TAG}\b).)*?</{_TAG}\s*>", re.IGNORECASE | re.DOTALL)
_LEADING_OPEN = re.compile(rf"^\s*<{_TAG}\b[^>]*>.*\Z", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def strip_think(text: str) -> str:
    """Remove reasoning blocks: closed pairs, an orphan closing tag's preamble, an unterminated lead."""
    text = _CLOSED_BLOCK.sub("", text or "")
    text = _ORPHAN_CLOSE.sub("", text, count=1)
    text = _LEADING_OPEN.sub("", text)
    return text.strip()


def strip_fences(text: str) -> str:
    """```json ... ``` -> the inside (models wrap JSON in fences even when told not to)."""
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a model reply, after think blocks and fences are removed.

    Raises ValueError with a short reason (sent back to the model in the repair turn).
    """
    cleaned = strip_fences(strip_think(text))
    decoder = json.JSONDecoder()
    position = cleaned.find("{")
    while position != -1:
        try:
            value, _end = decoder.raw_decode(cleaned, position)
        except json.JSONDecodeError:
            position = cleaned.find("{", position + 1)
            continue
        if isinstance(value, dict):
            return value
        position = cleaned.find("{", position + 1)
    if not cleaned:
        raise ValueError("the reply was empty")
    raise ValueError(f"no JSON object found in the reply (it began: {cleaned[:80]!r})")


# Keywords OpenAI's strict structured outputs reject or that local grammars handle badly.
_UNSUPPORTED_KEYWORDS = frozenset(
    {
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
    }
)


def strict_json_schema(model: type[BaseModel], *, keep: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The model's JSON schema in the strict form OpenAI requires: every property required,
    additionalProperties false, and no `default` ("'default' is not permitted" is a 400).
    `keep` names dropped keywords to keep (the grammar schema reads `maxLength`)."""
    schema: dict[str, Any] = _strictify(model.model_json_schema(), _UNSUPPORTED_KEYWORDS - keep)
    return schema


def _strictify(node: Any, dropped: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_strictify(item, dropped) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strictify(value, dropped) for key, value in node.items() if key not in dropped}
    if "$defs" in node:
        out["$defs"] = {name: _strictify(sub, dropped) for name, sub in node["$defs"].items()}
    if "properties" in node:
        out["properties"] = {name: _strictify(prop, dropped) for name, prop in node["properties"].items()}
        out["required"] = list(node["properties"])
        out["additionalProperties"] = False
    return out
