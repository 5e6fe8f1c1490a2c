"""An httpx transport that connects to the address url_safety checked, never to a second lookup.

check_url resolves a host and refuses private answers, but httpx resolved the host again when it
connected, so a DNS server answering "public" then "127.0.0.1" (DNS rebinding) got past it. Here
the scraper pins each checked host to the address it checked; the connection goes to that IP
while the URL, the Host header and TLS SNI (httpcore takes them from the request, not from the
socket's address) keep the name. A host that was not checked is refused.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx
from httpcore._backends.base import SOCKET_OPTION, NetworkStream
from httpcore._backends.sync import SyncBackend


class UnpinnedHostError(httpcore.ConnectError):
    """A connection to a host the scraper never checked."""


class _PinnedBackend(SyncBackend):
    def __init__(self) -> None:
        self._pins: dict[str, str] = {}
        self._lock = threading.Lock()

    def pin(self, host: str, address: str) -> None:
        with self._lock:
            self._pins[host.lower().strip("[]")] = address

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> NetworkStream:
        with self._lock:
            address = self._pins.get(str(host).lower().strip("[]"))
        if address is None:
            raise UnpinnedHostError(f"{host} was not checked before connecting")
        return super().connect_tcp(address, port, timeout, local_address, socket_options)


class PinnedTransport(httpx.HTTPTransport):
    """httpx.HTTPTransport whose connections go to pinned addresses (see `pin`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._backend = _PinnedBackend()
        # httpx builds its httpcore pool without a network_backend argument; give it ours.
        self._pool._network_backend = self._backend

    def pin(self, host: str, address: str) -> None:
        self._backend.pin(host, address)
