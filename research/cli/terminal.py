"""Outside text made safe for a terminal: control characters shown, never obeyed.

A topic, a question, a file name or a model's reply may carry ANSI/OSC escapes (`ESC ]0;title BEL`
sets the window title, `ESC [2J` clears the screen, colours fake a line). Every CLI line that holds
such text goes through `terminal_text`: C0 and C1 controls, DEL and the bidirectional overrides
become visible `\\x1b`-style escapes. One `str.translate` pass: linear in the text.
`--json` output goes through `terminal_json`: the same data, with each such character a `\\u`
escape (JSON escapes C0 itself, but would print DEL, C1 and the bidi controls raw).
"""

from __future__ import annotations

import json
from typing import Any

_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))  # embeddings, overrides, isolates
_CONTROLS = (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)
_ONE_LINE = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _CONTROLS}
_MULTI_LINE = {c: v for c, v in _ONE_LINE.items() if c not in (0x0A, 0x09)}  # keep newlines and tabs
# Outside its strings JSON is ASCII without controls, so these only ever meet string contents.
_JSON_RAW = {c: f"\\u{c:04x}" for c in _CONTROLS if c >= 0x20}


def terminal_text(text: object, *, multiline: bool = False) -> str:
    """`text` with every control character escaped; `multiline` keeps newlines and tabs."""
    return str(text).translate(_MULTI_LINE if multiline else _ONE_LINE)


def terminal_json(value: Any, *, allow_nan: bool = True) -> str:
    """`value` as indented JSON that keeps non-ASCII text readable and holds no raw control
    character: it parses back to the same data."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=allow_nan).translate(_JSON_RAW)
