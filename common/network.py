"""This machine's addresses, so that phones on the same Wi-Fi can reach the laptop.

Only reads the local interface table; sends nothing on the network.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct

_SIOCGIFADDR = 0x8915


def _linux_interface_addresses() -> list[str]:
    found = []
    for _index, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                packed = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue  # interface without an IPv4 address
            found.append(socket.inet_ntoa(packed[20:24]))
    return found


def local_ipv4_addresses() -> list[str]:
    """Every IPv4 address of this machine, loopback first, then the LAN ones."""
    addresses: set[str] = {"127.0.0.1"}
    try:
        addresses.update(_linux_interface_addresses())
    except (OSError, AttributeError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addresses.add(info[4][0])
    except OSError:
        pass
    return sorted(addresses, key=lambda a: (not ipaddress.ip_address(a).is_loopback, a))


def lan_address() -> str:
    """The address phones should use: the first private, non-loopback IPv4, else 127.0.0.1."""
    candidates = [a for a in local_ipv4_addresses() if not ipaddress.ip_address(a).is_loopback]
    private = [a for a in candidates if ipaddress.ip_address(a).is_private]
    return (private or candidates or ["127.0.0.1"])[0]


def default_allowed_hosts() -> list[str]:
    hostname = socket.gethostname()
    hosts = ["localhost", "[::1]", hostname, f"{hostname}.local", *local_ipv4_addresses()]
    return list(dict.fromkeys(hosts))


def is_this_machine(address: str | None) -> bool:
    """Whether a client's address is this machine's own (loopback, ``::ffff:127.0.0.1`` too)."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:  # (no address, a Unix socket's peer)
        return False
    ip = getattr(ip, "ipv4_mapped", None) or ip
    return ip.is_loopback
