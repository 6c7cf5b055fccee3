"""The one door declared http tools go out through: allowed hosts, public addresses, no surprises.

A URL is called only when (1) its scheme is http or https, (2) its host is one the operator lists
in ``HTTP_TOOL_HOSTS`` (``api.example.com`` or ``*.example.com``), and (3) every address the host
resolves to is a public one: private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback (unless
``HTTP_TOOL_ALLOW_LOOPBACK=1``), link-local (169.254/16 — the cloud metadata address — and
fe80::/10), multicast, reserved and unspecified addresses are refused, IPv4 written in other
forms (``2130706433``, ``0x7f.1``) and IPv4-mapped IPv6 included. The connection then goes to the
address that was checked (the Host header and TLS name stay the host's), so a second DNS answer
cannot swap it; redirects are followed by hand, at most three, each checked the same way.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agent_core.settings import Settings

MAX_REDIRECTS = 3
MAX_RESPONSE_BYTES = 2_000_000


class Refused(ValueError):
    """The URL may not be called; the message says why in one sentence (the model reads it)."""


Resolver = Callable[[str, int], list[str]]


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """``host`` is listed, or matches a ``*.domain`` entry (not the bare domain itself)."""
    host = host.lower().rstrip(".")
    for entry in allowed:
        entry = entry.lower().strip().rstrip(".")
        if entry.startswith("*."):
            if host.endswith(entry[1:]) and host != entry[2:]:
                return True
        elif host == entry:
            return True
    return False


def address_problem(address: str, *, allow_loopback: bool) -> str | None:
    """Why an IP address may not be reached, or None for a public one."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return None if allow_loopback else f"{address} is this machine (loopback)"
    if ip.is_link_local:
        return f"{address} is a link-local address (where cloud metadata lives)"
    if ip.is_unspecified:
        return f"{address} is not a real destination"
    if ip.is_multicast or ip.is_reserved:
        return f"{address} is a reserved or multicast address"
    if ip.is_private or not ip.is_global:
        return f"{address} is a private network address"
    return None


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (a checked address) and what to tell the server."""

    url: str
    host: str
    address: str
    connect_url: str
    """The URL with the checked address in place of the host name."""


def check_url(url: str, settings: Settings, *, resolver: Resolver = _resolve) -> Target:
    """The checked :class:`Target` of ``url``; :class:`Refused` with the reason otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise Refused(f"Refused: only http and https URLs may be called (not {parts.scheme or 'no scheme'}:).")
    host = (parts.hostname or "").lower()
    if not host:
        raise Refused("Refused: the URL has no host.")
    if parts.username or parts.password:
        raise Refused("Refused: user names and passwords in URLs are not sent (name a secret in headers).")
    if not host_allowed(host, settings.http_tool_hosts):
        listed = ", ".join(settings.http_tool_hosts) or "none"
        raise Refused(f"Refused: {host} is not among the hosts the operator allows (HTTP_TOOL_HOSTS: {listed}).")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("Refused: the URL's port is not a number.") from None
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        if _looks_numeric(host):
            raise Refused(f"Refused: {host} is an address written in an unusual form.") from None
        try:
            addresses = resolver(host, port)
        except OSError:
            raise Refused(f"Refused: {host} could not be found (DNS).") from None
    if not addresses:
        raise Refused(f"Refused: {host} has no address.")
    for address in addresses:
        problem = address_problem(address, allow_loopback=settings.http_tool_allow_loopback)
        if problem:
            raise Refused(f"Refused: {host} leads to {problem}.")
    address = addresses[0]
    netloc_host = f"[{address}]" if ":" in address else address
    netloc = f"{netloc_host}:{parts.port}" if parts.port else netloc_host
    connect_url = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return Target(url=url, host=host, address=address, connect_url=connect_url)


def _looks_numeric(host: str) -> bool:
    """``2130706433``, ``0x7f.0.0.1``, ``0177.1``: forms some resolvers read as IPv4."""
    return all(part.isdigit() or part.lower().startswith("0x") for part in host.split(".") if part)


@dataclass(frozen=True)
class Reply:
    status: int
    text: str
    content_type: str
    url: str


def fetch(
    method: str,
    url: str,
    settings: Settings,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    json_body: Any = None,
    timeout: float = 10.0,
    resolver: Resolver = _resolve,
) -> Reply:
    """Make one request through the checks above, following up to :data:`MAX_REDIRECTS` checked
    redirects; the body is cut at :data:`MAX_RESPONSE_BYTES`."""
    import httpx2

    method = method.upper()
    current = url
    with httpx2.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            target = check_url(current, settings, resolver=resolver)
            parts = urlsplit(current)
            host_header = parts.netloc.rsplit("@", 1)[-1]
            request = client.build_request(
                method,
                target.connect_url,
                headers={**dict(headers or {}), "Host": host_header},
                params=params if current == url else None,
                json=json_body if current == url and json_body is not None else None,
                extensions={"sni_hostname": target.host} if parts.scheme == "https" else {},
            )
            response = client.send(request, stream=True)
            try:
                if response.is_redirect:
                    location = response.headers.get("location", "")
                    current = str(httpx2.URL(current).join(location))
                    if response.status_code in (301, 302, 303):
                        method = "GET"
                    continue
                data = b""
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MAX_RESPONSE_BYTES:
                        data = data[:MAX_RESPONSE_BYTES]
                        break
            finally:
                response.close()
            return Reply(
                status=response.status_code,
                text=data.decode(response.encoding or "utf-8", errors="replace"),
                content_type=response.headers.get("content-type", ""),
                url=current,
            )
    raise Refused(f"Refused: more than {MAX_REDIRECTS} redirects.")
