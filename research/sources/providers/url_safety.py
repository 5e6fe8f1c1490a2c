"""Which URLs the page scraper may fetch: http(s) only, and never an internal address.

Result URLs come from search engines and from redirects chosen by whoever runs the page, so a
fetch could be steered at the machine itself, the LAN or a cloud metadata service (SSRF). The
host is resolved first and every address it resolves to must be public; the scraper calls
`check_url` again for every redirect hop. `resolver` is injectable so tests can decide what a
name resolves to without touching DNS.

The scraper then connects to the checked address itself (pinned_transport.py), so a DNS server
that answers differently on a second lookup (DNS rebinding) is never asked again.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

ALLOWED_SCHEMES = ("http", "https")

# Named explicitly (they are also link-local / unique-local) so the refusal says what they are.
CLOUD_METADATA = {
    ipaddress.ip_address("169.254.169.254"): "cloud metadata service",
    ipaddress.ip_address("fd00:ec2::254"): "cloud metadata service",
    ipaddress.ip_address("100.100.100.200"): "cloud metadata service",  # Alibaba Cloud
}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT: not global, not "private"


class UnsafeURLError(ValueError):
    """The URL must not be fetched; the message says why (scheme, address class, ...)."""


@dataclass(frozen=True)
class CheckedURL:
    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver returns for host (IPv4 and IPv6)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses hidden inside IPv6 forms that still reach an IPv4 host."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [ip.ipv4_mapped, ip.sixtofour]
    if ip.teredo:
        found.extend(ip.teredo)
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [v4 for v4 in found if v4 is not None]


def blocked_reason(ip: IPAddress) -> str | None:
    """Why an address is not public (None when it is)."""
    for inner in _embedded_ipv4(ip):
        reason = blocked_reason(inner)
        if reason:
            return f"{reason} (embedded in {ip})"
    if ip in CLOUD_METADATA:
        return CLOUD_METADATA[ip]
    checks = (
        ("loopback", ip.is_loopback),
        ("unspecified", ip.is_unspecified),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("shared (carrier-grade NAT)", ip in _SHARED),
    )
    for label, hit in checks:
        if hit:
            return label
    if not ip.is_global:
        return "not globally routable"
    return None


def _parse_ip(text: str) -> IPAddress:
    # getaddrinfo can return scoped IPv6 ("fe80::1%eth0"); the scope does not change the class.
    return ipaddress.ip_address(text.split("%", 1)[0])


def check_url(url: str, allow_private: bool = False, *, resolver: Resolver | None = None) -> CheckedURL:
    """Refuse anything but an http(s) URL whose host resolves only to public addresses.

    With allow_private the address checks are skipped (for intranets and local test servers);
    the scheme check always applies.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise UnsafeURLError(f"only http and https URLs are fetched, not {scheme or 'a relative URL'!r}")
    host = parts.hostname
    if not host:
        raise UnsafeURLError("the URL has no host")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise UnsafeURLError("the URL has an invalid port") from None
    if allow_private:
        return CheckedURL(url, host, port, ())

    try:
        literal: IPAddress | None = _parse_ip(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = (resolver or system_resolver)(host, port)
        except (OSError, UnicodeError) as exc:
            raise UnsafeURLError(f"cannot resolve {host} ({type(exc).__name__})") from None
        if not addresses:
            raise UnsafeURLError(f"{host} resolves to no address")
    for text in addresses:
        try:
            ip = _parse_ip(text)
        except ValueError:
            raise UnsafeURLError(f"{host} resolves to an unparseable address") from None
        reason = blocked_reason(ip)
        if reason:
            shown = host if literal is not None else f"{host} (resolves to {ip})"
            raise UnsafeURLError(f"refusing {shown}: {reason} address")
    return CheckedURL(url, host, port, tuple(addresses))
