"""File names that are safe whatever the topic: ASCII, no path separators, bounded, never empty."""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_STEM_CHARS = 60
_FALLBACK_STEM = "research"


def slugify(text: str, max_chars: int = MAX_STEM_CHARS) -> str:
    """ASCII lower-case words joined by '-': accents folded (é -> e), everything else dropped."""
    ascii_text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > max_chars:
        cut = slug[:max_chars]
        # End on a whole word when one ends reasonably late; never on a dangling '-'.
        slug = cut.rsplit("-", 1)[0] if "-" in cut[max_chars // 2 :] else cut
        slug = slug.strip("-")
    return slug


def safe_filename(topic: str, ext: str) -> str:
    """`topic` as a download name: "How do mRNA vaccines work?" + "pdf" -> "how-do-mrna-vaccines-work.pdf".

    A topic with no ASCII letters or digits ("東京") gets "research-<hash>" so different topics do
    not collide; an empty one gets "research". `ext` may be compound ("json.gz").
    """
    stem = slugify(topic)
    if not stem:
        stripped = (topic or "").strip()
        stem = f"{_FALLBACK_STEM}-{hashlib.sha1(stripped.encode()).hexdigest()[:8]}" if stripped else _FALLBACK_STEM
    parts = [slugify(p, 10) for p in (ext or "").split(".")]
    suffix = ".".join(p for p in parts if p)
    return f"{stem}.{suffix}" if suffix else stem
