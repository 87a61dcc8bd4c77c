"""The addresses phones use to join a drive, and their QR codes (segno, inline SVG)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

import segno
from django.http.request import split_domain_port
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from common.network import lan_address
from drive.models import Drive, Player

def _is_loopback(name: str) -> bool:
    """Whether a host name (as ``split_domain_port`` gives it: lower case, no trailing dot) is
    this machine's loopback, however spelled ("LOCALHOST", "localhost.", "127.0.0.2", "[::1]"):
    Django takes all of them, and none reaches the laptop from a phone."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url(request) -> str:
    """``http://<laptop LAN address>:<port>``: the laptop's own view of itself says localhost,
    which a phone cannot reach, so that is swapped for the LAN address (with the port the
    address was opened at)."""
    host = request.get_host()
    name, port = split_domain_port(host)
    if _is_loopback(name):
        host = f"{lan_address()}:{port or request.get_port()}"
    return f"{request.scheme}://{host}"


def join_url(request, drive: Drive) -> str:
    return base_url(request) + reverse("phone:join", args=[drive.join_code])


def private_url(request, player: Player) -> str:
    return base_url(request) + reverse("phone:private", args=[player.drive.join_code, player.token])


def join_qr_label(drive: Drive) -> str:
    return f"QR code to join {drive.name}"


def private_qr_label(player: Player) -> str:
    return f"QR code of {player.name}’s private link"


@lru_cache(maxsize=256)
def qr_svg(url: str, label: str) -> SafeString:
    """The address's QR code, an image named ``label`` (what it is: "QR code to join Spring
    drive"), or nothing when no QR code holds it (a Host name of thousands of characters, where
    ALLOWED_HOSTS takes any: the page shows the address alone)."""
    try:
        svg = segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff", omitsize=True)
    except segno.DataOverflowError:
        return SafeString("")
    # The SVG is generated from a URL we built, never from user text: safe to inline. The label
    # may hold a name someone typed: escaped.
    return mark_safe(svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1))
