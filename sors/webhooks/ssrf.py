"""Where a webhook may point: no request of ours may reach our own network.

A URL is checked when an endpoint is saved and again at every delivery, against the address
the delivery actually connects to: the host is resolved here, every answer must be public,
and the connection goes to that checked address (with the original Host header and TLS
server name), so a DNS answer that changes between the check and the connection (DNS
rebinding) changes nothing. Addresses written in odd forms (decimal `2130706433`, octal
`0177.0.0.1`, hex, short `127.1`, IPv4-mapped IPv6) are refused outright: they exist to slip
past filters that compare strings.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import SplitResult, urlsplit

from sors.config import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Networks that are never a customer's public endpoint, beyond what `is_global` says.
_REFUSED_NETS = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
    "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "255.255.255.255/32",
    "::/128", "::1/128", "::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48",
    "100::/64", "2001::/32", "2001:db8::/32", "2002::/16", "fc00::/7", "fe80::/10",
    "fec0::/10", "ff00::/8",
)]
_LOOPBACK_NETS = [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
# Cloud metadata services that answer on otherwise unremarkable addresses.
_METADATA = {ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "192.0.0.192",
)}
_REFUSED_NAMES = re.compile(
    r"(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa|corp)$"
)
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_OCTET = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"  # 0-255, no leading zero
_DOTTED_QUAD = re.compile(rf"^{_OCTET}(\.{_OCTET}){{3}}$")


class UnsafeUrl(ValueError):
    """The URL may not be called; the message says why (shown to the owner)."""


@dataclass(frozen=True)
class Policy:
    allow_http: bool = False
    allow_loopback: bool = False  # tests only: a receiver on 127.0.0.1

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(
            allow_http=bool(settings.webhooks.allow_http),
            allow_loopback=bool(settings.webhooks.allow_loopback),
        )


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str  # a lower-case DNS name, or an IP address in canonical form
    port: int
    path: str  # path and query, as sent
    literal: IPAddress | None  # the host, when it is an address


class Resolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[str]: ...


class SystemResolver:
    async def resolve(self, host: str, port: int) -> list[str]:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise UnsafeUrl(f"the host {host!r} does not resolve") from exc
        return list(dict.fromkeys(str(info[4][0]) for info in infos))


_resolver: Resolver = SystemResolver()


def get_resolver() -> Resolver:
    return _resolver


def set_resolver(resolver: Resolver) -> None:
    """The seam tests use to make DNS answer what they want (and change its mind)."""
    global _resolver
    _resolver = resolver


def check_address(ip: IPAddress | str, policy: Policy) -> IPAddress:
    """The address if a delivery may connect to it; UnsafeUrl otherwise."""
    addr = ipaddress.ip_address(str(ip).split("%", 1)[0]) if isinstance(ip, str) else ip
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise UnsafeUrl(f"{addr} is an IPv4-mapped IPv6 address")
    if policy.allow_loopback and any(addr in n for n in _LOOPBACK_NETS):
        return addr
    if addr in _METADATA:
        raise UnsafeUrl(f"{addr} is a cloud metadata address")
    if any(addr.version == n.version and addr in n for n in _REFUSED_NETS):
        raise UnsafeUrl(f"{addr} is not a public address")
    if not addr.is_global or addr.is_multicast or addr.is_reserved:
        raise UnsafeUrl(f"{addr} is not a public address")
    return addr


def _host_literal(host: str) -> IPAddress | None:
    """The address a host names literally; UnsafeUrl for the odd spellings of one."""
    if host.startswith("["):
        if not host.endswith("]"):
            raise UnsafeUrl("malformed IPv6 address")
        try:
            addr = ipaddress.IPv6Address(host[1:-1])
        except ValueError as exc:
            raise UnsafeUrl("malformed IPv6 address") from exc
        if addr.ipv4_mapped is not None or "." in host:
            raise UnsafeUrl("IPv4 addresses written inside IPv6 are refused")
        return addr
    if _DOTTED_QUAD.match(host):
        return ipaddress.IPv4Address(host)
    # A host whose last label is a number is an address to every URL parser (WHATWG):
    # 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 all mean 127.0.0.1. Only the canonical
    # dotted quad is accepted; the other spellings exist to slip past string filters.
    if re.fullmatch(r"\d+|0x[0-9a-f]*", host.rsplit(".", 1)[-1]):
        raise UnsafeUrl(f"{host!r} is an IP address in a non-standard notation")
    return None


def parse(url: str, policy: Policy) -> Target:
    """Syntax and scheme checks, and the literal-address rules (no DNS)."""
    if len(url) > 2048:
        raise UnsafeUrl("the URL is longer than 2048 characters")
    if any(c.isspace() or ord(c) < 32 for c in url):
        raise UnsafeUrl("the URL contains whitespace or control characters")
    try:
        parts: SplitResult = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeUrl(f"not a valid URL: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and policy.allow_http):
        raise UnsafeUrl("only https:// URLs are accepted" + ("" if scheme != "http" else
                        " (plain http needs the operator setting SORS_WEBHOOKS_ALLOW_HTTP)"))
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UnsafeUrl("credentials in the URL are not accepted")
    has_port = port is not None or parts.netloc.endswith(":")
    raw_host = parts.netloc.rsplit(":", 1)[0] if has_port else parts.netloc
    host = raw_host.lower().rstrip(".")
    if not host:
        raise UnsafeUrl("the URL has no host")
    literal = _host_literal(host)
    if literal is not None:
        check_address(literal, policy)
        host = str(literal)
    else:
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise UnsafeUrl("the host is not a valid domain name") from exc
        labels = host.split(".")
        if not all(_LABEL.match(label) for label in labels):
            raise UnsafeUrl("the host is not a valid domain name")
        if len(labels) < 2 or _REFUSED_NAMES.search(host):
            raise UnsafeUrl(f"{host!r} is not a public host name")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(url, scheme, host, port or (443 if scheme == "https" else 80), path, literal)


async def resolve_checked(
    target: Target, policy: Policy, resolver: Resolver | None = None
) -> IPAddress:
    """The address to connect to: every address the host has must be public, so a name
    with one private answer among public ones is refused too."""
    if target.literal is not None:
        return check_address(target.literal, policy)
    answers = await (resolver or _resolver).resolve(target.host, target.port)
    if not answers:
        raise UnsafeUrl(f"the host {target.host!r} does not resolve")
    checked = [check_address(a, policy) for a in answers]
    return checked[0]


async def validate(url: str, policy: Policy, resolver: Resolver | None = None) -> Target:
    """Everything an endpoint URL must pass when it is saved."""
    target = parse(url, policy)
    await resolve_checked(target, policy, resolver)
    return target
