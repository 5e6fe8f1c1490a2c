"""Shared pytest fixtures. The network guard below keeps every test offline."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, Iterator

import pytest


class NetworkBlockedError(RuntimeError):
    """A test tried to reach a non-loopback address.

    Deliberately not an OSError: HTTP clients would wrap an OSError as a retryable connection
    error and the test could pass quietly; this one propagates and fails the test loudly.
    """


def _is_loopback(host: Any) -> bool:
    if host in (None, "", "localhost", b"localhost"):
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a DNS name other than localhost
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def _check(address: Any) -> None:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return
    host = address[0] if isinstance(address, tuple) and address else address
    if not _is_loopback(host):
        raise NetworkBlockedError(f"tests are offline: refused connection to {host!r}")


@pytest.fixture(scope="session", autouse=True)
def _refuse_non_loopback_network() -> Iterator[None]:
    """Every test: connections and DNS lookups outside 127.0.0.0/8 and ::1 raise NetworkBlockedError."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create_connection = socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family != getattr(socket, "AF_UNIX", object()):
            _check(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        if self.family != getattr(socket, "AF_UNIX", object()):
            _check(address)
        return real_connect_ex(self, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        _check(address)
        return real_create_connection(address, *args, **kwargs)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_loopback(host):
            raise NetworkBlockedError(f"tests are offline: refused DNS lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        patch.setattr(socket, "create_connection", create_connection)
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        yield


@pytest.fixture(autouse=True)
def _capabilities_outside_the_worktree(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Settings built without a data_dir would remember model capabilities in ./data: point the
    default at a scratch dir, so no test leaves files behind or learns from another's server."""
    import os

    if "RESEARCH_DATA_DIR" not in os.environ:
        monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path_factory.mktemp("data")))
