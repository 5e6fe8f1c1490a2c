"""Formatting helpers for outside text (titles, snippets, drafts) and small display values.

Text from the web is never rendered as HTML: every markdown element receives it through
`md_escape` (single-line fields) or `draft_markdown` (the draft, whose markdown we do want).
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from research.api import Source, inert_markdown

KIND_ICONS = {"web": ":material/public:", "academic": ":material/school:", "book": ":material/menu_book:"}
KIND_LABELS = {"web": "Web", "academic": "Academic", "book": "Book"}
ORIGIN_LABELS = {
    "user": "Set by you",
    "llm": "Chosen by the model",
    "offline": "Chosen by the offline classifier",
    "default": "Balanced default",
}
# Short forms for tables (History's Origin column, the Compare cards).
ORIGIN_SHORT = {"user": "user", "llm": "model", "offline": "offline classifier", "default": "default"}

# Every ASCII punctuation mark CommonMark lets us escape that could start markup, plus `$` (LaTeX),
# `:` (Streamlit directives such as :red[...] and :material/...:) and `~` (strikethrough).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


# GFM turns a bare "https://..." or "www." (escaped or not) into a link: a zero-width space after
# the scheme's colon, the "www" and an "@" keeps a URL in outside text plain text.
_LINKIFIABLE = re.compile(r"(?i)(?<=[a-z])\\?:(?=//)|(?<=\bwww)\\?\.|@")


def md_escape(text: object) -> str:
    """Outside text as literal markdown: no links, images, HTML, LaTeX, directives or lists."""
    escaped = _MD_SPECIAL.sub(r"\\\1", " ".join(str(text or "").split()))
    return _LINKIFIABLE.sub(lambda m: m.group(0) + "\u200b", escaped)


def draft_markdown(markdown: str) -> str:
    """The draft's own markdown for display inside the page: headings two levels down (the page
    has its own title), one line per numbered source, and `$` never starting LaTeX ("$5 and $10")."""
    text = re.sub(r"(?<!\\)\$", r"\\$", inert_markdown(markdown or ""))
    text = re.sub(r"(?m)^(#{1,4})(?=\s)", lambda m: "#" * min(6, len(m.group(1)) + 2), text)
    return "\n".join(_source_line_break(line) for line in text.split("\n"))


_SOURCE_ENTRY = re.compile(r"\[\d{1,3}\] ")


def _source_line_break(line: str) -> str:
    """A numbered Sources entry ends in two spaces: a hard line break (one entry per line)."""
    return line.rstrip() + "  " if _SOURCE_ENTRY.match(line) else line


def download_markdown(markdown: str) -> str:
    """A draft version as the file "Download vN" serves: the same sanitised Markdown as the exports."""
    return inert_markdown(markdown or "")


def kind_icon(kind: str) -> str:
    return KIND_ICONS.get(kind, ":material/search:")


def domain_of(url: str, fallback: str = "") -> str:
    parts = urlsplit(url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        return parts.netloc.lower().removeprefix("www.")
    return fallback


def source_domain(source: Source) -> str:
    """A source's Domain, as the Sources table shows it and the Compare page counts it: a web
    address's host; a library document's file or collection (`Source.domain`), never "library" for all."""
    return domain_of(source.url, source.domain)


def is_web_link(url: str) -> bool:
    """Only http(s) URLs may become clickable links (never javascript:, data:, file:)."""
    return urlsplit(url or "").scheme in ("http", "https")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "–"


def safe_filename(topic: str, suffix: str) -> str:
    """A file name from any topic: ASCII letters, digits and dashes only, never empty."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", topic or "").strip("-").lower()[:60].rstrip("-")
    return f"{stem or 'research'}{suffix}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


RUN_STATUS_BADGES = {
    "running": ":blue-badge[:material/progress_activity: Running]",
    "finished": ":green-badge[:material/check_circle: Finished]",
    "failed": ":red-badge[:material/error: Failed]",
    "paused": ":orange-badge[:material/pause_circle: Waiting for plan review]",
    "cancelled": ":gray-badge[:material/cancel: Cancelled]",
    "interrupted": ":orange-badge[:material/pause_circle: Interrupted]",
    "pending": ":gray-badge[Starting]",
}


def run_status_badge(status: str) -> str:
    """A run's status as a coloured badge (unknown statuses shown as escaped text)."""
    return RUN_STATUS_BADGES.get(status, md_escape(status))
