"""A request whose line or headers the server will not read (config/server.py): a request line
or headers over 16 KB, more than 500 header fields, a request framed so it cannot be read. Each
is answered with a status and a short message, one line in the log, and the connection closed;
nothing after it is read. Found by probing a running server: a header line over 16 KB (a huge
cookie) closed the connection unanswered, and the other refusals were a bare "400 Bad Request"
with nothing in the log.

Each test talks to a real server over real sockets, with DEBUG off and on."""

from __future__ import annotations

import urllib.request

import pytest

from tests.faults.support import Server, wait_for
from tests.security.raw_http import connect, debug_off_and_on, log_of, send_raw, upgrade

HEAD_LIMIT = 16 * 1024  # twisted.web's own limits on a line and on the request's line and headers


server = debug_off_and_on("request-heads")


def lines_logged_since(server: Server, start: int) -> tuple[int, list[str]]:
    """A page that is not there asked for now, and its line in the log waited for: its status,
    and the log's lines from ``start`` to it (what a request logs is logged before its answer)."""
    try:
        status = urllib.request.urlopen(server.url + "/no-such-page/", timeout=30).status
    except urllib.error.HTTPError as exc:
        status = exc.code
    wait_for(lambda: "Not Found: /no-such-page/" in log_of(server)[start:], timeout=30, what="the log")
    return status, log_of(server)[start:].split("Not Found: /no-such-page/")[0].splitlines()


def status_of(server: Server, data: bytes) -> bytes:
    """The status line the server answers ``data`` with (the connection closed after it: a
    socket accepted stays open)."""
    with connect(server) as sock:
        sock.sendall(data)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n")[0]


def head(server: Server) -> bytes:
    return f"Host: 127.0.0.1:{server.port}\r\n".encode()


REFUSALS = {
    "a request line over 16 KB": (
        lambda s: b"GET /?q=" + b"x" * (HEAD_LIMIT + 10) + b" HTTP/1.1\r\n" + head(s) + b"\r\n",
        414, "address too long"),
    "a cookie over 16 KB": (
        lambda s: b"GET / HTTP/1.1\r\n" + head(s) + b"Cookie: a=" + b"x" * (HEAD_LIMIT + 10) + b"\r\n\r\n",
        431, "headers too large"),
    "a cookie over 16 KB, its line not yet ended": (
        lambda s: b"GET / HTTP/1.1\r\n" + head(s) + b"Cookie: a=" + b"x" * (HEAD_LIMIT + 10),
        431, "headers too large"),
    "headers over 16 KB in all": (
        lambda s: b"GET / HTTP/1.1\r\n" + head(s) + b"".join(b"X-%d: %s\r\n" % (i, b"y" * 1000) for i in range(20))
        + b"\r\n",
        431, "headers too large"),
    "more than 500 header fields": (
        lambda s: b"GET / HTTP/1.1\r\n" + head(s) + b"".join(b"X-%d: 1\r\n" % i for i in range(600)) + b"\r\n",
        431, "headers too large"),
    "a Content-Length that is no number": (
        lambda s: b"POST /login/ HTTP/1.1\r\n" + head(s) + b"Content-Length: +30\r\n\r\n",
        400, "could not be read"),
    "a Content-Length and chunks": (
        lambda s: b"POST /login/ HTTP/1.1\r\n" + head(s) + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"3\r\nabc\r\n0\r\n\r\n",
        400, "could not be read"),
    "a malformed chunk": (
        lambda s: b"POST /login/ HTTP/1.1\r\n" + head(s) + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
        400, "could not be read"),
    "a request line of no method, path and version": (
        lambda s: b"GET\r\n" + head(s) + b"\r\n",
        400, "could not be read"),
}


@pytest.mark.parametrize("what", list(REFUSALS))
def test_a_request_the_server_will_not_read_is_answered_with_why_and_one_line_in_the_log(server, what):
    build, status, says = REFUSALS[what]
    start = len(log_of(server))
    answer = send_raw(server, build(server))
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 %d " % status), (what, answer[:300])
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower() and b"text/plain" in headers
    assert says.encode() in body.lower() and len(body) < 200, (what, body)
    # The server is well, and its log has the refusal's one line, before the next request's.
    marker, logged = lines_logged_since(server, start)
    assert marker == 404
    assert len(logged) == 1 and f": {status}" in logged[0] and "Refused" in logged[0], (what, logged)
    assert "Traceback" not in log_of(server)[start:]


def test_what_follows_a_refused_request_on_its_connection_is_not_read(server):
    """A second request sent on the connection after a refused one is neither answered nor
    logged."""
    start = len(log_of(server))
    answer = send_raw(server, b"GET / HTTP/1.1\r\n" + head(server) + b"Cookie: a=" + b"x" * (HEAD_LIMIT + 10)
                      + b"\r\n\r\nGET /login/ HTTP/1.1\r\n" + head(server) + b"\r\n")
    assert answer.count(b"HTTP/1.1 ") == 1 and answer.startswith(b"HTTP/1.1 431 ")
    lines_logged_since(server, start)
    assert '"GET /login/"' not in log_of(server)[start:]


@pytest.mark.parametrize(("headers", "says"), [
    ({"Sec_WebSocket_Key": "x"}, "Sec-WebSocket-Key"),
    ({"Sec_WebSocket_Version": "99"}, "version"),
    ({"Host": "127.0.0.1:abc"}, "port"),
], ids=["key", "version", "port"])
def test_a_websocket_handshake_the_server_will_not_read_is_one_line_in_the_log(server, headers, says):
    """Found by probing: autobahn refused these with a 400 and nothing in the log."""
    start = len(log_of(server))
    answer = send_raw(server, upgrade(server, "/ws/health/", **headers))
    assert answer.startswith(b"HTTP/1.1 400 ") and says.encode() in answer.split(b"\r\n")[0], answer[:300]
    _, logged = lines_logged_since(server, start)
    assert len(logged) == 1 and "Refused a websocket handshake" in logged[0] and says in logged[0], logged


def test_a_websocket_handshake_refused_for_its_compression_offer_is_one_line_in_the_log(server):
    """A ``permessage-deflate`` offer autobahn cannot take is refused after the application has
    taken the socket (the offer is read as the handshake is answered): a 400 and one line in the
    log, as any other handshake autobahn refuses. Found by probing: the 400 had no line."""
    start = len(log_of(server))
    offer = "permessage-deflate; client_max_window_bits=99"
    answer = send_raw(server, upgrade(server, "/ws/health/", Sec_WebSocket_Extensions=offer))
    status_line = answer.split(b"\r\n")[0]
    assert status_line.startswith(b"HTTP/1.1 400 ") and b"client_max_window_bits" in status_line, answer[:300]
    _, logged = lines_logged_since(server, start)
    refused = [line for line in logged if "Refused" in line]
    assert len(refused) == 1, logged
    assert "Refused a websocket handshake from 127.0.0.1 on /ws/health/: 400" in refused[0], refused
    assert "client_max_window_bits" in refused[0] and "Traceback" not in log_of(server)[start:]


def test_a_socket_the_application_refuses_is_not_logged_twice(server):
    """A socket refused by the application (a foreign Origin, a path no consumer serves) is in
    daphne's access log already ("WSREJECT"): no line of ours besides."""
    start = len(log_of(server))
    for request in (upgrade(server, "/ws/health/", Origin="http://evil.example"), upgrade(server, "/ws/nothing-here/")):
        assert send_raw(server, request).startswith(b"HTTP/1.1 403 ")
    lines_logged_since(server, start)
    assert "Refused" not in log_of(server)[start:]


@pytest.mark.parametrize("root", [b"/login", b"/ws", b"%ff", b"\xff", "日".encode()], ids=["login", "ws", "pct", "ff", "cjk"])
def test_a_root_path_a_client_sends_is_not_taken(server, root):
    """daphne takes a request's ``Daphne-Root-Path`` header as the site's root path (a proxy's
    to set): from a client, it made a page answer 404 or 500 with a traceback (a root path not
    ASCII), and a socket a server error, or no route and a traceback. The server's root path is
    its own (``--root-path``): the header is not read."""
    start = len(log_of(server))
    plain = send_raw(server, b"GET /login/ HTTP/1.1\r\n" + head(server) + b"Connection: close\r\n\r\n")
    rooted = send_raw(server, b"GET /login/ HTTP/1.1\r\n" + head(server) + b"Connection: close\r\nDaphne-Root-Path: "
                      + root + b"\r\n\r\n")
    assert rooted.split(b"\r\n")[0] == plain.split(b"\r\n")[0] == b"HTTP/1.1 200 OK", rooted[:200]
    socket_answer = status_of(server, upgrade(server, "/ws/health/", Daphne_Root_Path=root.decode("latin-1")))
    assert socket_answer.startswith(b"HTTP/1.1 101 "), socket_answer
    assert "Traceback" not in log_of(server)[start:] and "Exception" not in log_of(server)[start:]


@pytest.mark.parametrize("protocols", [b"chat, \xff", "日本".encode()], ids=["ff", "cjk"])
def test_a_websocket_subprotocol_that_is_not_ascii_is_refused_in_one_line(server, protocols):
    """daphne reads ``Sec-WebSocket-Protocol`` as ASCII: a byte that is not was a server error
    and a traceback."""
    start = len(log_of(server))
    answer = send_raw(server, upgrade(server, "/ws/health/", Sec_WebSocket_Protocol=protocols.decode("latin-1")))
    assert answer.startswith(b"HTTP/1.1 400 ") and b"Sec-WebSocket-Protocol" in answer, answer[:300]
    _, logged = lines_logged_since(server, start)
    assert len(logged) == 1 and "Refused" in logged[0] and "Sec-WebSocket-Protocol" in logged[0], logged


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_a_websocket_handshake_of_a_method_but_get_is_one_line_naming_its_path(server, method):
    """A handshake by any method but GET is refused 405 before the websocket layer reads the
    path. Found by probing: its line in the log said "on ?"."""
    start = len(log_of(server))
    answer = send_raw(server, upgrade(server, "/ws/health/?x=1").replace(b"GET ", method.encode() + b" ", 1))
    assert answer.startswith(b"HTTP/1.1 405 "), answer[:300]
    _, logged = lines_logged_since(server, start)
    assert len(logged) == 1, logged
    assert f"Refused a websocket handshake from 127.0.0.1 on /ws/health/: 405 HTTP method \"{method}\"" in logged[0]
    assert "Traceback" not in log_of(server)[start:]


def test_an_http_1_1_request_with_no_host_is_refused_in_one_line_and_an_http_1_0_one_is_served(server):
    """RFC 9112 §3.2: an HTTP/1.1 request without a Host header gets 400. Found by probing: it
    was served as if it had come for the server's own address. HTTP/1.0 needs no Host."""
    start = len(log_of(server))
    answer = send_raw(server, b"GET /login/ HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:300]
    _, logged = lines_logged_since(server, start)
    notes = [line for line in logged if '"GET /login/" 400' not in line]  # (besides daphne's access log)
    assert len(notes) == 1 and "no Host header" in notes[0], logged
    assert "Traceback" not in log_of(server)[start:]
    answer = send_raw(server, b"GET /login/ HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 200 ") and b"<form" in answer, answer[:300]
    # A websocket's handshake with none: the websocket layer's refusal, its one line.
    start = len(log_of(server))
    answer = send_raw(server, upgrade(server, "/ws/health/").replace(head(server), b""))
    assert answer.startswith(b"HTTP/1.1 400 ") and b"Host" in answer.split(b"\r\n")[0], answer[:300]
    _, logged = lines_logged_since(server, start)
    assert len(logged) == 1 and "Refused a websocket handshake from 127.0.0.1 on /ws/health/: 400" in logged[0], logged


@pytest.mark.parametrize("sent", ["ÿ".encode(), b"\xff"], ids=["utf8", "ff"])
def test_a_websocket_refusals_status_line_is_printable_ascii(server, sent):
    """The websocket layer's refusal may quote what the client sent. Found by probing: a
    version header of "ÿ" came back raw in the status line. Anything but printable ASCII is
    written as its escape."""
    start = len(log_of(server))
    answer = send_raw(server, upgrade(server, "/ws/health/", Sec_WebSocket_Version=sent.decode("latin-1")))
    status_line = answer.split(b"\r\n")[0]
    assert status_line.startswith(b"HTTP/1.1 400 ") and b"Sec-WebSocket-Version" in status_line, answer[:300]
    assert all(0x20 <= byte < 0x7f for byte in status_line), status_line
    assert "".join(f"\\x{byte:02x}" for byte in sent).encode() in status_line, status_line
    _, logged = lines_logged_since(server, start)
    assert len(logged) == 1 and "Refused a websocket handshake" in logged[0], logged
