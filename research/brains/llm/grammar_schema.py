"""The schema sent with JSON mode, shaped for servers that turn it into a grammar (llama-cpp-python).

A grammar makes the reply valid JSON of the schema, but a small model still writes the least it
is allowed: empty lists, endless strings. So every list must hold 1..MAX_ITEMS items and every
string 2..MAX_STRING_CHARS plain characters starting with a letter or digit; `$ref`s are inlined
(a small model copies "#/$defs/..." from a schema it is shown as if it were content). The bounds
also cap a looping model well before the reply's token cap.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel

from research.brains.llm.model_output import strict_json_schema

MAX_ITEMS = 5
MAX_STRING_CHARS = 160
_MAX_DEPTH = 8
_WORD = "[A-Za-z0-9]"
_TEXT = "[A-Za-z0-9 ,.;:()'?!&%/+-]"


@functools.lru_cache(maxsize=64)
def _cached(schema: type[BaseModel]) -> dict[str, Any]:
    strict = strict_json_schema(schema)
    defs = strict.pop("$defs", {})
    bounded: dict[str, Any] = _bounded(_inline(strict, defs, 0))  # a dict stays a dict through both passes
    return bounded


def grammar_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """A bounded, ref-free JSON schema for `schema` (a fresh copy each call)."""
    import copy

    return copy.deepcopy(_cached(schema))


def _inline(node: Any, defs: dict[str, Any], depth: int) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < _MAX_DEPTH:
        return _inline(defs.get(ref.removeprefix("#/$defs/"), {}), defs, depth + 1)
    return {key: _inline(value, defs, depth) for key, value in node.items()}


def _bounded(node: Any) -> Any:
    if isinstance(node, list):
        return [_bounded(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _bounded(value) for key, value in node.items()}
    if out.get("type") == "array":
        out.setdefault("minItems", 1)
        out.setdefault("maxItems", MAX_ITEMS)
    elif out.get("type") == "string" and "enum" not in out:
        # Starts with a letter or digit (a small model otherwise writes "" or "-"), no quotes or
        # backslashes (so the reply stays plain JSON), at most MAX_STRING_CHARS. A pattern, because
        # llama-cpp-python's grammar builder ignores minLength/maxLength next to one.
        out.setdefault("pattern", f"^{_WORD}{_TEXT}{{1,{MAX_STRING_CHARS - 1}}}$")
    return out
