"""The addresses phones use to join a drive, and their QR codes (segno, inline SVG)."""

from __future__ import annotations

from functools import lru_cache

import segno
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from common.network import lan_address
from drive.models import Drive, Player

_LOOPBACK = {"localhost", "127.0.0.1", "[::1]", "::1"}


def base_url(request) -> str:
    """``http://<laptop LAN address>:<port>``: the laptop's own view of itself says localhost,
    which a phone cannot reach, so that is swapped for the LAN address."""
    host = request.get_host()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name in _LOOPBACK:
        host = f"{lan_address()}:{request.get_port()}"
    return f"{request.scheme}://{host}"


def join_url(request, drive: Drive) -> str:
    return base_url(request) + reverse("phone:join", args=[drive.join_code])


def private_url(request, player: Player) -> str:
    return base_url(request) + reverse("phone:private", args=[player.drive.join_code, player.token])


@lru_cache(maxsize=256)
def qr_svg(url: str) -> SafeString:
    """The address's QR code, or nothing when no QR code holds it (a Host name of thousands of
    characters, where ALLOWED_HOSTS takes any: the page shows the address alone)."""
    try:
        svg = segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff", omitsize=True)
    except segno.DataOverflowError:
        return SafeString("")
    # The SVG is generated from a URL we built, never from user text: safe to inline.
    return mark_safe(svg)
