"""Outside text made safe for a terminal: control characters shown, never obeyed.

A topic, a question, a file name or a model's reply may carry ANSI/OSC escapes (`ESC ]0;title BEL`
sets the window title, `ESC [2J` clears the screen, colours fake a line). Every CLI line that holds
such text goes through `terminal_text`: C0 and C1 controls, DEL and the bidirectional overrides
become visible `\\x1b`-style escapes. One `str.translate` pass: linear in the text.
"""

from __future__ import annotations

_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))  # embeddings, overrides, isolates
_CONTROLS = (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)
_ONE_LINE = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _CONTROLS}
_MULTI_LINE = {c: v for c, v in _ONE_LINE.items() if c not in (0x0A, 0x09)}  # keep newlines and tabs


def terminal_text(text: object, *, multiline: bool = False) -> str:
    """`text` with every control character escaped; `multiline` keeps newlines and tabs."""
    return str(text).translate(_MULTI_LINE if multiline else _ONE_LINE)
