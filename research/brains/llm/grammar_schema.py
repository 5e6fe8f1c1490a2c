"""The schema sent with JSON mode, shaped for servers that turn it into a grammar (llama-cpp-python).

A grammar makes the reply valid JSON of the schema, but a small model still writes the least it
is allowed: empty lists, endless strings. So every list must hold 1..MAX_ITEMS items and every
string 2..MAX_STRING_CHARS plain characters starting with a letter or digit; a field that declares
its own `maxLength` (a sentence: "maxLength" in its json_schema_extra, so validation never rejects
a longer one from a server that only reads the schema) gets that room, up to MAX_DECLARED_CHARS, so
a long sentence is not cut mid-word. `$ref`s are inlined (a small model copies "#/$defs/..." from a
schema it is shown as if it were content). The bounds also cap a looping model well before the
reply's token cap.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, Field

from research.brains.llm.model_output import strict_json_schema

MAX_ITEMS = 5
MAX_STRING_CHARS = 160
MAX_DECLARED_CHARS = 600
_MAX_DEPTH = 8
_WORD = "[A-Za-z0-9]"
# Plain text as sources write it: identifiers keep `_`, numbers keep units and signs, names keep
# their accents (Latin and Greek letters); no quote or backslash (JSON), no markup or brackets.
_TEXT = "[A-Za-z0-9 ,.;:()'?!&%/+_=#\u00b0\u00b1\u00b5\u2019\u2013\u00c0-\u024f\u0370-\u03ff-]"


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def text_pattern(room: int, not_first: str = "") -> str:
    """A plain-text string of 2..room characters; with `not_first`, one that may not begin with any
    of those letters (either case): a restatement must not open as its original did."""
    banned = set(not_first.lower())
    first = _ranges([c for c in _ALNUM if c.lower() not in banned]) if banned else _WORD
    return f"^{first}{_TEXT}{{1,{max(1, room - 1)}}}$"


def _ranges(chars: list[str]) -> str:
    """A character class for `chars` (in _ALNUM order) with runs written as ranges: [A-OQ-Z...]."""
    runs: list[list[str]] = []
    for c in chars:
        if runs and ord(c) == ord(runs[-1][-1]) + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return "[" + "".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" if len(r) > 2 else "".join(r) for r in runs) + "]"


@functools.lru_cache(maxsize=64)
def _cached(schema: type[BaseModel]) -> dict[str, Any]:
    # A declared pattern (text_pattern, in a field's json_schema_extra) is the grammar's; OpenAI's
    # strict schema drops it like every pattern.
    strict = strict_json_schema(schema, keep=frozenset({"maxLength", "pattern"}))
    defs = strict.pop("$defs", {})
    bounded: dict[str, Any] = _bounded(_inline(strict, defs, 0))  # a dict stays a dict through both passes
    return bounded


def text_field(description: str, max_chars: int) -> Any:
    """A string field with room for `max_chars` in the grammar, never enforced by validation (a
    longer string from a server that only reads the schema is the caller's to trim)."""
    return Field(description=description, json_schema_extra={"maxLength": max_chars})


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
        # backslashes (so the reply stays plain JSON), at most its declared room or MAX_STRING_CHARS.
        # A pattern, because llama-cpp-python's grammar builder ignores minLength/maxLength.
        declared = out.pop("maxLength", None)
        room = max(2, min(declared, MAX_DECLARED_CHARS)) if isinstance(declared, int) else MAX_STRING_CHARS
        out.setdefault("pattern", text_pattern(room))
    else:
        out.pop("maxLength", None)
    return out
