"""Masking secrets in any text that leaves the process: logs, events, warnings, checkpoints.

One function, so every path masks the same way: the configured key values (longest first, so a
key that contains another is masked whole), plus anything shaped like an API key or bearer token
that a server echoed back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
_KEY_SHAPED = re.compile(r"\b(sk|pk|rk|tvly|ghp|gho|github_pat)[-_][A-Za-z0-9_\-]{6,}")
_BEARER = re.compile(r"(?i)\bbearer\s+\S+")


def mask(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _BEARER.sub(f"Bearer {MASK}", text)
    return _KEY_SHAPED.sub(lambda m: f"{m.group(1)}-{MASK}", text)


# --- URLs: credentials found by structure, not by pattern -------------------------------------------
URL_MASK = "****"
# Query parameters that carry a credential (libpq's `password`, `sslpassword`; API tokens and keys).
_SECRET_PARAMS = ("pass", "pwd", "secret", "token", "key", "auth", "signature", "sig", "credential", "session")


def _secret_param(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_PARAMS)


def mask_url(url: str) -> str:
    """`url` safe to print or store: its userinfo (user:password@, or a bare token@) and the values of
    password-like query parameters replaced by ****; a URL that does not parse is reduced to its
    scheme. Parsed with urllib.parse (no pattern on the text), so percent-encoding tricks and odd
    characters in the password cannot slip past."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port: the netloc did not parse
    except ValueError:
        return _unparsable(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user = userinfo.partition(":")[0] if ":" in userinfo else ""
        netloc = f"{_safe_user(user)}:{URL_MASK}@{hostport}" if user else f"{URL_MASK}@{hostport}"
    query = parts.query
    if query:
        query = "&".join(
            f"{k}={URL_MASK}" if _secret_param(k) else f"{k}={v}" if v else k for k, v in _query_pairs(query)
        )
    return urlunsplit(parts._replace(netloc=netloc, query=query, fragment=""))


def url_secrets(url: str | None) -> list[str]:
    """The credential parts of a URL (raw and percent-decoded), for `mask` to find wherever they are
    echoed (a driver error quoting its DSN): userinfo, password, password-like query values; the
    whole URL when it does not parse."""
    from urllib.parse import unquote, urlsplit

    if not url:
        return []
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - see mask_url
    except ValueError:
        return [url, url.partition("://")[2]]
    found: list[str] = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        password = userinfo.partition(":")[2] if ":" in userinfo else userinfo
        found += [userinfo, password]
    found += [v for k, v in _query_pairs(parts.query) if _secret_param(k)]
    found += [unquote(s, errors="replace") for s in found]
    return sorted({s for s in found if len(s) >= 3}, key=len, reverse=True)


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """Raw (still percent-encoded) name/value pairs: a bad %-escape must not turn into something else."""
    pairs = []
    for field in query.split("&"):
        name, _, value = field.partition("=")
        pairs.append((name, value))
    return pairs


def _safe_user(user: str) -> str:
    return user if user.isascii() and user.replace("_", "").replace("-", "").replace(".", "").isalnum() else URL_MASK


def _unparsable(url: str) -> str:
    scheme = url.partition("://")[0] if "://" in url else ""
    safe = scheme if scheme.isascii() and scheme.replace("+", "").isalnum() and len(scheme) < 20 else ""
    return f"{safe}://(unparsable URL, hidden)" if safe else "(unparsable URL, hidden)"
