"""A Markdown file's front matter: YAML between leading `---` fences, read by PyYAML's safe loader.

Values become plain text (quotes and escapes resolved, lists joined with "; "); nested structures
are not metadata the library keeps. Invalid YAML falls back to `key: value` lines, so a sloppy
file still imports. Bounded: the fence scan is linear and a large block is ignored.
"""

from __future__ import annotations

import datetime
import re

import yaml

MAX_FRONT_MATTER_CHARS = 64_000  # a document's metadata, not a document: larger is ignored
_META_VALUE_CHARS = 2_000
_META_LIST_ITEMS = 100
_META_SCALARS = (str, int, float, bool, datetime.date)


def _fenced(text: str) -> tuple[str, str] | None:
    """The block between a leading `---` line and the next `---` line, and the body after it
    (a line scan: linear in the text, whatever it holds)."""
    text = text.removeprefix("\ufeff")
    first, newline, rest = text.partition("\n")
    if not newline or first.rstrip("\r").rstrip(" \t") != "---":
        return None
    pos = 0
    while pos <= len(rest):
        end = rest.find("\n", pos)
        line = rest[pos:] if end == -1 else rest[pos:end]
        if pos and line.rstrip("\r").rstrip(" \t") == "---":
            return rest[: pos - 1].rstrip("\r"), "" if end == -1 else rest[end + 1 :]
        if end == -1:
            return None
        pos = end + 1
    return None


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML front matter between leading `---` fences (read by a YAML parser: quotes and escapes
    resolved, lists joined with "; "), and the body after them. Front matter that is not valid
    YAML (`title: A: B`) is read line by line as `key: value`, so a sloppy file still imports."""
    fenced = _fenced(text)
    if fenced is None:
        return {}, text
    block, body = fenced
    meta = _yaml_meta(block)
    return (meta if meta is not None else _line_meta(block)), body


def _yaml_meta(block: str) -> dict[str, str] | None:
    if len(block) > MAX_FRONT_MATTER_CHARS:
        return {}
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(block, Loader=loader)  # noqa: S506 - a safe loader: plain data only
    except yaml.YAMLError:
        return None
    if data is None:
        return {}
    if not isinstance(data, dict):
        return None
    meta: dict[str, str] = {}
    for key, value in data.items():
        text = _meta_text(value)
        if text is not None:
            meta[str(key).strip().lower()] = text
    return meta


def _meta_text(value: object) -> str | None:
    """A front-matter value as text: scalars as they read, a list of scalars joined; nested
    structures are not metadata the library keeps (and aliases cannot blow them up)."""
    if value is None:
        return ""
    if isinstance(value, _META_SCALARS):
        return str(value).strip()[:_META_VALUE_CHARS]
    if isinstance(value, list):
        items = [str(v).strip() for v in value[:_META_LIST_ITEMS] if isinstance(v, _META_SCALARS)]
        return "; ".join(i for i in items if i)[:_META_VALUE_CHARS]
    return None


def _line_meta(block: str) -> dict[str, str]:
    """`key: value` lines; `authors: [A, B]` or `- A` lines under a key joined with "; "."""
    meta: dict[str, str] = {}
    current: str | None = None
    for line in block.splitlines():
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and current:
            value = _unquote(item.group(1))
            meta[current] = f"{meta[current]}; {value}" if meta[current] else value
            continue
        if ":" not in line or line.lstrip().startswith("#"):
            continue
        key, value = line.split(":", 1)
        current = key.strip().lower()
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            value = "; ".join(_unquote(v) for v in value[1:-1].split(",") if v.strip())
        meta[current] = _unquote(value)
    return meta


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
