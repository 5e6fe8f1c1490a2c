"""Post-checks on a model-written draft: only real citations, only retrieved URLs, required sections.

The prompt asks for all of this; these functions make it true even when the model forgets,
invents a source number, or "helpfully" links a URL it never saw. The writer node's
`finalize_citations` then renumbers markers and appends the Sources list.
"""

from __future__ import annotations

import re

from research.schemas import normalise_url

_GROUPED = re.compile(r"\[(\d{1,3}(?:\s*[,;–-]\s*\d{1,3})+)\](?!\()")  # [1, 3] or [2-4]
_MARKER = re.compile(r"\[(\d{1,3})\](?!\()")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\((https?://[^)\s]+)\)")
_ANGLE_URL = re.compile(r"<(https?://[^>\s]+)>")
_BARE_URL = re.compile(r"https?://[^\s)\]>\"']+")
_REFERENCE_HEADING = re.compile(
    r"^#{1,3}\s*(sources|references|bibliography|works cited)\s*:?\s*$", re.IGNORECASE | re.MULTILINE
)
_NEXT_TOP_HEADING = re.compile(r"^#{1,2}\s+\S", re.MULTILINE)
_GAPS_HEADING = re.compile(r"^#{1,3}\s*known gaps\b", re.IGNORECASE | re.MULTILINE)


def split_grouped_citations(text: str) -> str:
    """[1, 3] -> [1][3] and [2-4] -> [2][3][4], so every marker can be checked on its own."""

    def expand(match: re.Match[str]) -> str:
        numbers: list[int] = []
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
                low, high = int(bounds[0]), int(bounds[1])
                numbers.extend(range(low, high + 1) if 0 < high - low < 10 else (low, high))
            elif part.isdigit():
                numbers.append(int(part))
        return "".join(f"[{n}]" for n in numbers)

    return _GROUPED.sub(expand, text)


def remove_unknown_citations(text: str, allowed: set[int]) -> str:
    text = split_grouped_citations(text)
    return _MARKER.sub(lambda m: m.group(0) if int(m.group(1)) in allowed else "", text)


def remove_unknown_urls(text: str, allowed_urls: set[str]) -> str:
    """Unlink or drop every URL that is not one of the retrieved sources' URLs."""
    known = {normalise_url(url) for url in allowed_urls if url}

    def ok(url: str) -> bool:
        return normalise_url(url.rstrip(".,;:")) in known

    text = _MD_LINK.sub(lambda m: m.group(0) if ok(m.group(2)) else m.group(1), text)
    text = _ANGLE_URL.sub(lambda m: m.group(0) if ok(m.group(1)) else "", text)
    # Links kept above hold known URLs, so the bare-URL pass keeps them too.
    return _BARE_URL.sub(lambda m: m.group(0) if ok(m.group(0)) else "", text)


def strip_reference_section(text: str) -> str:
    """Drop a Sources/References section the model wrote (the real list is generated)."""
    match = _REFERENCE_HEADING.search(text)
    if not match:
        return text
    following = _NEXT_TOP_HEADING.search(text, match.end())
    tail = text[following.start():] if following else ""
    return text[: match.start()].rstrip() + ("\n\n" + tail if tail else "\n")


def ensure_title(text: str, topic: str) -> str:
    if re.match(r"^\s*#\s+\S", text):
        return text
    title = " ".join(topic.split())
    return f"# {title[:1].upper() + title[1:]}\n\n{text.lstrip()}"


def ensure_known_gaps(text: str, gaps: list[str]) -> str:
    if not gaps or _GAPS_HEADING.search(text):
        return text
    return text.rstrip() + "\n\n## Known gaps\n\n" + "\n".join(f"- {gap}" for gap in gaps) + "\n"


def tidy_spacing(text: str) -> str:
    """Collapse the double spaces and ' .' left where markers or URLs were removed."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+([.,;:])", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
