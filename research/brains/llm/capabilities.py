"""Which structured-output method works on which server + model, remembered across processes.

The first call to a server finds the method (structured.py tries them in order); the answer is
kept in memory and in a small JSON file in the user's cache dir (`$XDG_CACHE_HOME/research-desk/`
or `~/.cache/research-desk/llm_capabilities.json`), so later runs, later processes and fresh data
dirs go straight to the working method and pay for no failed attempts. Entries are keyed by the
server (scheme, host, port, path: never the URL's userinfo or query, where credentials live) and
the model; keys are never written. A missing or corrupt file is treated as empty (it is a cache,
not a source of truth).

`is_shape_rejection` tells "this server refuses the request's shape" (try the next method)
from a transport fault (a timeout, a refused connection, a real 5xx: the caller's fallback).
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

import openai
from langchain_core.exceptions import ContextOverflowError

log = logging.getLogger("research.brains.llm.capabilities")

FILE_NAME = "llm_capabilities.json"
CACHE_APP_DIR = "research-desk"
_DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_FILE_BYTES = 256_000  # a cache of a few servers: anything larger is not ours
_REJECTION_STATUSES = {400, 404, 405, 422}
# A 5xx counts as a rejection only when its body names a request feature: llama-cpp-python
# answers `response_format: json_schema` with HTTP 500 and a validation error naming it.
_FEATURE_WORDS = re.compile(r"response_format|json_schema|json_object|tool_choice|\btools\b", re.IGNORECASE)


_OVERFLOW_WORDS = re.compile(
    r"context_length_exceeded|maximum context length|context window|exceeds? the context|prompt is too long",
    re.IGNORECASE,
)


def is_context_overflow(exc: BaseException) -> bool:
    """The prompt (plus the reply cap) is longer than the model's context. langchain-openai only
    recognises OpenAI's wording; llama-cpp-python says "maximum context length" with a 400."""
    if isinstance(exc, ContextOverflowError):
        return True
    return (
        isinstance(exc, openai.APIStatusError)
        and exc.status_code in (400, 413, 422)
        and bool(_OVERFLOW_WORDS.search(f"{exc.message} {exc.body!r}"))
    )


def is_shape_rejection(exc: BaseException) -> bool:
    """True when the server refused the request's shape (not the prompt's length, not a fault)."""
    if is_context_overflow(exc) or not isinstance(exc, openai.APIStatusError):
        return False
    if exc.status_code in _REJECTION_STATUSES:
        return True
    if exc.status_code >= 500:
        return bool(_FEATURE_WORDS.search(f"{exc.message} {exc.body!r}"))
    return False


def cache_dir() -> Path:
    """The user's cache dir for the desk (XDG_CACHE_HOME, else ~/.cache), not a run store's."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return root / CACHE_APP_DIR


def server_id(base_url: str) -> str:
    """scheme://host:port/path of a base URL: the same server however it is written, and never its
    userinfo, query or fragment (tokens ride there)."""
    parts = urlsplit(base_url.strip())
    scheme = (parts.scheme or "https").lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number: keep the server apart, without it
        port = None
    netloc = f"[{host}]" if ":" in host else host
    return f"{scheme}://{netloc}{f':{port}' if port else ''}{parts.path.rstrip('/')}"


def server_label(base_url: str, model: str) -> str:
    return f"{server_id(base_url)}|{model}"


class CapabilityStore:
    """Remembered working methods, keyed by "base_url|model"; thread-safe; optional file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._methods: dict[str, str] | None = None  # loaded lazily

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._load().get(key)

    def put(self, key: str, method: str) -> None:
        with self._lock:
            methods = self._load()
            if methods.get(key) == method:
                return
            methods[key] = method
            self._save(methods)

    def clear(self, *, memory_only: bool = True) -> None:
        with self._lock:
            self._methods = None if memory_only and self.path else {}
            if not memory_only and self.path and self.path.exists():
                self.path.unlink()

    def _load(self) -> dict[str, str]:
        if self._methods is None:
            self._methods = _read(self.path) if self.path else {}
        return self._methods

    def _save(self, methods: dict[str, str]) -> None:
        if not self.path:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Write-then-rename: two processes learning at once never leave a half-written file.
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".capabilities-", suffix=".json")
            with os.fdopen(fd, "w") as f:
                json.dump({"methods": methods}, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only data dir costs the memory, not the run
            log.warning("could not save model capabilities to %s: %s", self.path, exc)


def _read(path: Path) -> dict[str, str]:
    try:
        if not path.exists() or path.stat().st_size > MAX_FILE_BYTES:
            return {}
        data = json.loads(path.read_text())
        methods = data.get("methods") if isinstance(data, dict) else None
        return {str(k): str(v) for k, v in methods.items()} if isinstance(methods, dict) else {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable model capabilities file %s: %s", path, exc)
        return {}


_stores: dict[Path | None, CapabilityStore] = {}
_stores_lock = threading.Lock()


def store_for(directory: Path | None) -> CapabilityStore:
    """The one store per directory in this process (the runs use cache_dir(); None: memory only)."""
    path = Path(directory) / FILE_NAME if directory is not None else None
    with _stores_lock:
        if path not in _stores:
            _stores[path] = CapabilityStore(path)
        return _stores[path]


def forget_all_in_memory() -> None:
    """Drop what this process learned (tests); files are re-read on next use."""
    with _stores_lock:
        for store in _stores.values():
            store.clear(memory_only=True)
