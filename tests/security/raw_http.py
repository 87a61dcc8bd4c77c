"""A real server, started with DEBUG off and on, talked to over raw sockets: what the server
tests of request heads and bodies share (tests/security/test_request_heads.py,
test_body_limits.py)."""

from __future__ import annotations

import socket

import pytest

from tests.faults.support import Server


def debug_off_and_on(name: str):
    """A module's ``server`` fixture: a server of its own (``name``: its folder and its secret
    key's), with DEBUG off, then on."""

    @pytest.fixture(scope="module", params=["0", "1"], ids=["debug-off", "debug-on"])
    def server(request, tmp_path_factory):
        s = Server(tmp_path_factory.mktemp(name))
        s.env.update({"DEBUG": request.param, "SECRET_KEY": f"{name}-" + "k" * 50})
        s.start()
        yield s
        s.stop()

    return server


def log_of(server: Server) -> str:
    return (server.data / "daphne.log").read_text()


def upgrade(server: Server, path: str, **headers: str) -> bytes:
    """A websocket handshake's request to ``path`` from the server's own page, as it is sent;
    ``headers`` (``_`` for ``-``) added or put in the place of its own."""
    fields = {"Host": f"127.0.0.1:{server.port}", "Origin": server.url, "Upgrade": "websocket",
              "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
              **{name.replace("_", "-"): value for name, value in headers.items()}}
    return (f"GET {path} HTTP/1.1\r\n".encode() + "".join(f"{k}: {v}\r\n" for k, v in fields.items()).encode("latin-1")
            + b"\r\n")


def connect(server: Server) -> socket.socket:
    """A socket to the server."""
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def send_and_read(sock: socket.socket, data: bytes, received: bytes = b"", until=None) -> bytes:
    """``data`` sent on ``sock`` as it is (as much as the server takes), and what the server
    answers, after ``received``: until it closes the connection, or until ``until(answer)``."""
    try:
        sock.sendall(data)
    except OSError:  # the server answered and closed before taking all of it: its answer waits
        pass
    answer = received
    while until is None or not until(answer):
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        answer += chunk
    return answer


def send_raw(server: Server, data: bytes) -> bytes:
    """``data`` sent as it is on a connection of its own, and all the server answers."""
    with connect(server) as sock:
        return send_and_read(sock, data)
