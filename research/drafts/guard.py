"""Post-checks on a model-written draft: only real citations, only retrieved URLs, required sections.

The prompt asks for all of this; these functions make it true even when the model forgets,
invents a source number, or "helpfully" links a URL it never saw. The writer node's
`finalize_citations` then renumbers markers and appends the Sources list.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from research.drafts.markers import CITATION_MARKER, GROUPED_MARKER, INTERNAL_MARKER
from research.drafts.repair_types import CitationRepair, DraftRepair, UrlRepair
from research.schemas.urls import normalise_url

_MD_LINK = r"\[([^\[\]\n]*)\]\((https?://[^)\s]+)\)"  # no "[" in the label: linear on "[a" repeated
_ANGLE_URL = r"<(https?://[^>\s]+)>"
_BARE_URL = r"https?://[^\s)\]>\"']+"
_DOI = r"(?<![\w/.])(?:doi:\s*)?10\.\d{4,9}/[^\s)\]>\"']+"
# A bare domain needs a known top-level domain, so "Node.js" or "e.g." are never taken for links.
_TLDS = (
    "com|org|net|edu|gov|io|ai|dev|info|co|uk|de|fr|eu|us|ca|au|biz|app|site|xyz|me|ly|tv|ru|cn|jp|in|nl|ch|se|es|it"
)
_DOMAIN = rf"(?<![\w@/.-])(?:www\.)?(?:[a-z0-9-]+\.)+(?:{_TLDS})\b(?:/[^\s)\]>\"']*)?"
_LINKISH = re.compile(
    rf"(?P<md>{_MD_LINK})|(?P<angle>{_ANGLE_URL})|(?P<url>{_BARE_URL})|(?P<doi>{_DOI})|(?P<domain>{_DOMAIN})",
    re.IGNORECASE,
)
_GONE = "\x00"  # stands where an unknown link was, until its sentence is repaired
_UNCITED = "\x01"  # stands where a removed marker was
_TRAILING = ".,;:!?"
_LINE_PREFIX = re.compile(r"^(\s*(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+|>\s*)?)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_CLAUSE = re.compile(r"((?<!\s)\s*[,;]\s+|(?<!\s)\s+[—–]\s+)")  # starts only where a space run starts: linear
_REFERENCE_HEADING = re.compile(
    r"^#{1,3}\s*(sources|references|bibliography|works cited)\s*:?\s*$", re.IGNORECASE | re.MULTILINE
)
_NEXT_TOP_HEADING = re.compile(r"^#{1,2}\s+\S", re.MULTILINE)
_GAPS_HEADING = re.compile(r"^#{1,3}\s*known gaps\b", re.IGNORECASE | re.MULTILINE)


def split_grouped_citations(text: str) -> str:
    """[1, 3] -> [1][3] and [2-4] -> [2][3][4], so every marker can be checked on its own."""
    return GROUPED_MARKER.sub(_expand_group, text)


def _expand_group(match: re.Match[str]) -> str:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", match.group(1)):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            numbers.extend(range(low, high + 1) if 0 < high - low < 10 else (low, high))
        elif part.isdigit():
            numbers.append(int(part))
    return "".join(f"[{n}]" for n in numbers)


def remove_unknown_citations(text: str, allowed: set[int]) -> CitationRepair:
    """Drop every [n] that is not one of `allowed`, and say which, and which sentences lost
    their only citation (the claim stays, but the reader is told it is now uncited)."""
    split = [m.group(0) for m in GROUPED_MARKER.finditer(text)]
    text = split_grouped_citations(text)
    removed: list[int] = []

    def keep(match: re.Match[str]) -> str:
        if int(match.group(1)) in allowed:
            return match.group(0)
        removed.append(int(match.group(1)))
        return _UNCITED

    text = CITATION_MARKER.sub(keep, text)
    uncited = [
        _preview(sentence)
        for line in text.splitlines()
        for sentence in _SENTENCE_END.split(line)
        if _UNCITED in sentence and not CITATION_MARKER.search(sentence)
    ]
    return CitationRepair(text=text.replace(_UNCITED, ""), removed=sorted(set(removed)), split=split, uncited=uncited)


def remove_unknown_urls(text: str, allowed_urls: set[str]) -> UrlRepair:
    """Remove every URL, bare domain or DOI that is not one of the retrieved sources'.

    A markdown link keeps its words; a parenthesis that held the link goes; a clause that held it
    goes when the sentence stands without it; otherwise the sentence goes, so no "See and" is left.
    """
    known = {normalise_url(url) for url in allowed_urls if url}
    hosts = {urlsplit(url).netloc for url in known}
    removed: list[str] = []

    def repair(match: re.Match[str]) -> str:
        whole = match.group(0)
        if match.group("md"):
            url = match.group(3)
            if _is_known(url, known, hosts):
                return whole
            removed.append(url)
            return match.group(2)
        core = whole.rstrip(_TRAILING)
        tail = whole[len(core) :]
        link = core.strip("<>")
        if _is_known(link, known, hosts):
            return whole
        removed.append(link)
        return _GONE + tail

    text = _LINKISH.sub(repair, text)
    if not removed:
        return UrlRepair(text=text)
    text = re.sub(rf"\s*\([^()\n]*{_GONE}[^()\n]*\)", "", text)
    lines, dropped = [], 0
    for line in text.split("\n"):
        if _GONE not in line:
            lines.append(line)
            continue
        fixed, n = _repair_line(line)
        dropped += n
        if fixed.strip():
            lines.append(fixed)
    return UrlRepair(text="\n".join(lines), removed=list(dict.fromkeys(removed)), dropped_sentences=dropped)


def repair_draft(text: str, numbers: set[int], urls: set[str]) -> DraftRepair:
    """Every guard in order, with what each removed (the writer node turns it into warnings): the
    prompts' internal markers, unknown citations, unknown links."""
    text, markers = INTERNAL_MARKER.subn("", text)
    citations = remove_unknown_citations(text, numbers)
    links = remove_unknown_urls(citations.text, urls)
    return DraftRepair(text=tidy_spacing(links.text), citations=citations, urls=links, markers_removed=markers)


def _is_known(link: str, known: set[str], hosts: set[str]) -> bool:
    if re.match(r"(?i)doi:\s*|10\.", link):
        link = "https://doi.org/" + re.sub(r"(?i)^doi:\s*", "", link)
    elif not re.match(r"(?i)https?://", link):
        link = "https://" + link
    url = normalise_url(link)
    if url in known:
        return True
    parts = urlsplit(url)  # a bare host ("arxiv.org") names a source's site, not a page
    return not parts.path and parts.netloc in hosts


def _repair_line(line: str) -> tuple[str, int]:
    match = _LINE_PREFIX.match(line)
    assert match is not None  # every part of the pattern is optional, so it matches any line
    prefix = match.group(1)
    kept, dropped = [], 0
    for sentence in _SENTENCE_END.split(line[len(prefix) :]):
        if _GONE not in sentence:
            kept.append(sentence)
            continue
        clause = _without_clause(sentence)
        if clause:
            kept.append(clause)
        else:
            dropped += 1
    body = " ".join(kept)
    return (prefix + body if body.strip() else ""), dropped


def _without_clause(sentence: str) -> str | None:
    """The sentence without the later clause that held the link, or None when the link was in
    its first clause (then the sentence does not stand without it)."""
    parts = _CLAUSE.split(sentence)
    clauses = parts[0::2]
    if _GONE in clauses[0] or len(clauses) < 2:
        return None
    end = sentence.rstrip()[-1:] if sentence.rstrip()[-1:] in ".!?" else ""
    seps = parts[1::2]
    out = clauses[0]
    for i, clause in enumerate(clauses[1:]):
        if _GONE in clause:
            continue
        previous_gone = _GONE in clauses[i]
        # An aside between two commas goes with both commas: "A [1], at X, is B" -> "A [1] is B".
        out += " " if previous_gone and seps[i].strip() == "," and seps[i - 1].strip() == "," else seps[i]
        out += clause
    out = out.rstrip().rstrip(",;—–").rstrip()
    return out if out.endswith((".", "!", "?")) else out + end


def _preview(sentence: str, limit: int = 60) -> str:
    flat = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(sentence.replace(_UNCITED, "").split()))
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def strip_reference_section(text: str) -> str:
    """Drop a Sources/References section the model wrote (the real list is generated)."""
    match = _REFERENCE_HEADING.search(text)
    if not match:
        return text
    following = _NEXT_TOP_HEADING.search(text, match.end())
    tail = text[following.start() :] if following else ""
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
