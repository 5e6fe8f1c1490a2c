"""URL normalisation: one canonical form per page (dedupe keys, source ids); where a library document is from."""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

# Library addresses of imported files end in the file's name: library://upload/<digest>/<name>, library://file/<hash>/<name>.
_FILE_PLACES = frozenset({"upload", "file"})
_NO_PLACE = "doc"  # library://doc/<digest>: a document added with no address or file name
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


def library_place(url: str) -> str:
    """Where a library document is from, as its address says ("" for any other address): an
    imported file's name ("notes.pdf"), else its collection ("sample/impressionism")."""
    parts = urlsplit(url or "")
    if parts.scheme != "library":
        return ""
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if parts.netloc in _FILE_PLACES and segments:
        return segments[-1]
    if parts.netloc == _NO_PLACE or not parts.netloc:
        return "library"
    return "/".join([parts.netloc, *segments[:-1]])
