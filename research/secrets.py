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
