"""A connection check per live provider, for the dashboard's Settings page.

Each provider gets one tiny search with a short timeout; the answer is ok or the reason it failed.
Checks run in parallel and a provider that hangs past the deadline is reported as timed out, so
the page never waits longer than about one timeout (some client libraries ignore timeouts).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from research.schemas.researchers import RESEARCHER_KINDS, ResearcherKind
from research.secrets import mask
from research.settings import Settings
from research.sources.context_pool import ContextPool
from research.sources.provider_base import ProviderError, SourceProvider
from research.sources.router import live_providers

ProvidersFor = Callable[[ResearcherKind, Settings], list[SourceProvider]]


@dataclass
class ProviderStatus:
    name: str
    kind: ResearcherKind
    ok: bool
    message: str  # "ok (n results)" or why it failed; never contains a secret
    seconds: float


def check_providers(
    settings: Settings, *, timeout: float = 5.0, providers: ProvidersFor = live_providers
) -> list[ProviderStatus]:
    """Search "test" (limit 1) on every live provider of every kind; one status per provider."""
    quick = settings.model_copy(update={"http_timeout": min(settings.http_timeout, timeout)})
    targets: list[tuple[ResearcherKind, SourceProvider | None, str]] = []
    for kind in RESEARCHER_KINDS:
        try:
            targets += [(kind, p, p.name) for p in providers(kind, quick)]
        except Exception as exc:  # noqa: BLE001 - a provider that cannot be built is a failed check
            targets.append((kind, None, f"{kind} providers: {mask(str(exc), settings.secret_values())}"))
    # Not a `with` block: leaving it would wait for a hung provider; its thread is left to finish.
    pool = ContextPool(max_workers=max(1, len(targets)), thread_name_prefix="health")
    try:
        started = time.monotonic()
        futures = [pool.submit(_check_one, p, kind, settings) if p else None for kind, p, _ in targets]
        out: list[ProviderStatus] = []
        for (kind, _provider, label), future in zip(targets, futures, strict=True):
            if future is None:
                out.append(ProviderStatus(label, kind, False, "could not be set up", 0.0))
                continue
            remaining = max(0.0, timeout - (time.monotonic() - started))
            try:
                out.append(future.result(timeout=remaining + 0.5))
            except FutureTimeout:
                out.append(ProviderStatus(label, kind, False, f"no answer within {timeout:g} s", timeout))
        return out
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _check_one(provider: SourceProvider, kind: ResearcherKind, settings: Settings) -> ProviderStatus:
    started = time.monotonic()
    try:
        result = provider.search("test", limit=1)
    except ProviderError as exc:
        message, ok = mask(exc.message, settings.secret_values()), False
    except Exception as exc:  # noqa: BLE001 - any failure is an answer for this page
        message, ok = f"unexpected error: {type(exc).__name__}", False
    else:
        message, ok = f"ok ({len(result.sources)} result{'s' if len(result.sources) != 1 else ''})", True
    return ProviderStatus(provider.name, kind, ok, message, round(time.monotonic() - started, 3))
