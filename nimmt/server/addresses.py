"""Which addresses others can open: a loopback address (127.0.0.1, ::1, localhost) names this
computer alone, so a link made of one opens nothing on a friend's phone (docs/web.md, "Addresses")."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this computer alone (127.0.0.0/8, ::1, localhost)."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
