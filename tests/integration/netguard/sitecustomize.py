"""Loaded by a test subprocess through PYTHONPATH: the process may only connect to loopback.

The pytest process has the same guard (tests/conftest.py); a `python -m research` subprocess does
not run conftest, so this module brings it along. A refused connection raises an error that is
not an OSError, so HTTP clients cannot mistake it for a retryable network failure.
"""

import ipaddress
import socket

_real_getaddrinfo = socket.getaddrinfo
_real_create_connection = socket.create_connection
_real_connect = socket.socket.connect


class NetworkBlockedError(RuntimeError):
    pass


def _loopback(host):
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host in (None, "", "localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(address):
    if isinstance(address, tuple) and address and not _loopback(address[0]):
        raise NetworkBlockedError(f"test subprocess is offline: refused {address[0]!r}")


def _getaddrinfo(host, *args, **kwargs):
    if not _loopback(host):
        raise NetworkBlockedError(f"test subprocess is offline: refused DNS lookup of {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


def _create_connection(address, *args, **kwargs):
    _check(address)
    return _real_create_connection(address, *args, **kwargs)


def _connect(self, address):
    if self.family != getattr(socket, "AF_UNIX", None):
        _check(address)
    return _real_connect(self, address)


socket.getaddrinfo = _getaddrinfo
socket.create_connection = _create_connection
socket.socket.connect = _connect
