"""URL normalisation: one canonical form per page (dedupe keys, source ids)."""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_TRACKING_PREFIXES = ("utm_", "mc_")
_TRACKING_NAMES = frozenset({"fbclid", "gclid", "msclkid", "ref", "ref_src", "igshid"})


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in _TRACKING_NAMES or name.startswith(_TRACKING_PREFIXES)


def normalise_url(url: str) -> str:
    """Canonical form for dedupe: lower-case host, no www, fragment, tracking params or trailing /."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not _is_tracking(k)])
    path = parts.path.rstrip("/")
    scheme = "https" if parts.scheme in ("http", "https") else parts.scheme
    return urlunsplit((scheme, host, path, query, ""))


def source_id_for(key: str) -> str:
    return "s" + hashlib.sha1(normalise_url(key).encode()).hexdigest()[:10]
