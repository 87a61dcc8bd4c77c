"""The server `make run` starts: daphne, with every request body bounded before it is read.

Run it with daphne's own arguments: ``python -m config.server -b 0.0.0.0 -p 8000
--websocket_timeout 86400 config.asgi:application``. Everything is daphne's (its command line,
websockets) but seven things: the access log leaves out a private link's token (``AccessLog``), every status line names its code (Twisted's table lacks 429 and
431, which it calls "Unknown Status"), at start the process may open as many files as the system lets it
(``raise_open_file_limit``: every connection is one), a websocket frame over 64 KiB closes the socket
(``WEBSOCKET_MAX_FRAME_BYTES``, daphne's own limit with a default of ours) with a close code, as
does every frame autobahn refuses, and one line in the log (``ClosingWebSocketProtocol``), and an HTTP request whose body is over
``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is answered ``413`` with a short plain-text message and
the connection closed, and the server logs one line (logger ``config.server``). A
``Content-Length`` over the limit is refused as soon as the headers are in, before a byte of the
body is read; a chunked body is counted as it arrives and cut off once past the limit. A request
whose line or headers twisted.web will not read (over 16 KB, more than 500 fields, malformed) is
answered 414, 431 or 400 with a short message and one line in the log (``BoundedHTTPChannel``)
(left to twisted.web, a line over 16 KB closed the connection unanswered, the rest got a bare 400,
unlogged). And a client's ``Daphne-Root-Path`` header is dropped (``BoundedRequest.process``): the
root path is the server's own.

Why this needs a server of its own: daphne runs on twisted.web, whose ``Request`` reads the
whole body (into memory, or a temporary file past 100 KB) before daphne hands the request to
the ASGI application, and daphne then queues all of it for Django; an ASGI middleware would see
a 200 MB upload only after it had been read. twisted.web calls ``Request.gotLength`` once the
headers are in and ``Request.handleContentChunk`` for each piece of body, so the limit is a
subclass of daphne's request class overriding those two (and ``process``, so that a refused
request never reaches the application). daphne picks its request class in its
``HTTPFactory.buildProtocol`` and builds that factory in ``Server.run`` from the module-level
name ``daphne.server.HTTPFactory``; ``Server.run`` below points that name at our factory, and
daphne's ``CommandLineInterface.server_class`` (its documented hook) runs our ``Server``. Tested
through real sockets by tests/security/test_body_limits.py and
tests/security/test_request_heads.py (``BoundedHTTPChannel`` overrides twisted.web's own hooks,
some of them private), so a daphne or Twisted that changes any of this fails there.
"""

from __future__ import annotations

import daphne.server  # isort:skip  (installs Twisted's asyncio reactor: first)

import io
import logging
import resource
from http import HTTPStatus

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol

from config.log_filters import without_private_links

logger = logging.getLogger(__name__)


def body_limit() -> int:
    """Bytes a request body may have: Django's own limit on a form (config/settings.py)."""
    from django.conf import settings

    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


class BoundedRequest(WebRequest):
    """daphne's request, refusing a body over ``body_limit()`` with 413 before reading it."""

    refused = False
    received = 0

    def __init__(self, *args, **kwargs):
        # Twisted would also parse a form body into request.args, which daphne never reads;
        # Django parses it (and says why it refuses one, config/middleware.py).
        super().__init__(*args, parsePOSTFormSubmission=False, **kwargs)

    def gotLength(self, length):
        if length is not None and length > body_limit():
            self.refuse(f"a request body of {length} bytes")
        else:
            super().gotLength(length)

    def handleContentChunk(self, data):
        if self.refused:
            return
        self.received += len(data)
        if self.received > body_limit():
            self.refuse(f"a chunked request body of over {body_limit()} bytes")
        else:
            super().handleContentChunk(data)

    def process(self):
        if self.refused:
            return None
        # daphne takes a ``Daphne-Root-Path`` header as the site's root path, a proxy's to set: from
        # a client on the Wi-Fi it would move every address of its pages (a 404, links and
        # redirects under that path) and, not ASCII, be a server error. The root path is the server's own
        # (daphne's ``--root-path``).
        self.requestHeaders.removeHeader(b"daphne-root-path")
        # daphne reads a websocket's subprotocols as ASCII (a server error and a traceback else).
        if not all(v.isascii() for v in self.requestHeaders.getRawHeaders(b"sec-websocket-protocol", [])):
            self.refused = True
            answer_and_close(self.channel, 400, f"Refused a Sec-WebSocket-Protocol header that is not ASCII from "
                                                f"{getattr(self.client, 'host', '?')}: 400",
                             "This request's Sec-WebSocket-Protocol header is not ASCII.")
            return None
        return super().process()

    def setResponseCode(self, code, message=None):
        # Twisted knows no phrase for the newer codes (429 Too Many Requests, 431): without
        # one, its status line says "Unknown Status". Python's own table names them.
        if message is None:
            try:
                message = HTTPStatus(code).phrase.encode()
            except ValueError:  # a code Python does not know either: Twisted's own words
                pass
        super().setResponseCode(code, message)

    def refuse(self, body: str) -> None:
        """Answer 413 and close the connection; what else arrives is not read."""
        self.refused = True
        if self.content is not None:
            self.content.close()  # a chunked body's temporary file
        self.content = io.BytesIO()  # stays empty; closed with the connection
        self.requestHeaders.removeHeader(b"Expect")  # no "100 Continue" after the answer
        limit = body_limit()
        answer_and_close(self.channel, 413, f"Refused {body} from {getattr(self.client, 'host', '?')} "
                                            f"(the limit is {limit} bytes): 413",
                         f"Request body too large: the limit is {limit // 1024} KB.")


PHRASES = {413: "Content Too Large"}  # RFC 9110's words (Python before 3.13 says "Request Entity Too Large")


def answer_and_close(channel: HTTPChannel, status: int, line: str, message: str) -> None:
    """A plain-text answer written as it is, one line in the log, the connection closed."""
    logger.warning("%s", line)
    body = f"{message}\n".encode()
    channel.transport.write(
        b"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
        % (status, PHRASES.get(status, HTTPStatus(status).phrase).encode(), len(body), body))
    channel.loseConnection()


class BoundedHTTPChannel(HTTPChannel):
    """twisted.web's connection, saying why when it will not read a request: a request line over
    ``MAX_LENGTH`` (16 KB) is 414, a header line over it or headers over ``totalHeadersSize`` (16
    KB) in all or more than ``maxHeaders`` (500) fields 431, a request it cannot parse (a
    malformed request line, ``Content-Length`` or chunk; both a length and chunks) 400; each with
    a short message and one line in the log (twisted.web closed the connection unanswered on a
    line over 16 KB, and gave the rest a bare 400, neither logged). Nothing after it is read."""

    refused = False

    def dataReceived(self, data):
        if not self.refused:
            super().dataReceived(data)

    def lineReceived(self, line):
        if self._receivedHeaderSize + len(line) > self.totalHeadersSize:
            return self.refuse_head(431, f"headers of over {self.totalHeadersSize} bytes")
        return super().lineReceived(line)

    def headerReceived(self, line):
        if self._receivedHeaderCount >= self.maxHeaders:
            self.refuse_head(431, f"more than {self.maxHeaders} header fields")
            return False
        return super().headerReceived(line)

    def lineLengthExceeded(self, line):
        if not self._receivedHeaderSize:  # the request's first line
            return self.refuse_head(414, f"a request line of over {self.MAX_LENGTH} bytes")
        return self.refuse_head(431, f"a header line of over {self.MAX_LENGTH} bytes")

    def _respondToBadRequestAndDisconnect(self):  # twisted.web's own bare 400, for every request it cannot parse
        self.refuse_head(400, "a request that could not be read (its request line, headers or chunks)")

    def refuse_head(self, status: int, what: str) -> None:
        if self.refused:
            return
        self.refused = True
        peer = self.transport.getPeer() if self.transport is not None else None
        words = {414: f"Request address too long: the limit is {self.MAX_LENGTH // 1024} KB.",
                 431: f"Request headers too large: the limit is {self.totalHeadersSize // 1024} KB "
                      f"and {self.maxHeaders} fields.",
                 400: "This request could not be read."}[status]
        answer_and_close(self, status, f"Refused {what} from {getattr(peer, 'host', '?')}: {status}", words)


class BoundedHTTPFactory(HTTPFactory):
    def protocol(self):  # (called by buildProtocol as twisted.web's own is: the channel, wrapped)
        return _GenericHTTPChannelProtocol(BoundedHTTPChannel())

    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = BoundedRequest
        return protocol


# Below this many open files at once, a hall's phones could use them all (each connection, socket
# or not, is one): the start says so.
FEW_OPEN_FILES = 4096


def raise_open_file_limit() -> int:
    """The process's soft limit on open files raised to its hard limit, and one line in the log
    saying what it is; returns it. Each connection (a page's, a socket's) is an open file: at
    the soft limit, often 1,024 on a laptop, the server stopped accepting connections without a
    word (about 1,000 idle connections, or 990 boards' sockets). A hard limit of "unlimited"
    (macOS) is not one the kernel takes as a soft limit: the largest of a few it takes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    before, infinite = soft, resource.RLIM_INFINITY
    for limit in [hard] if hard != infinite else [1_048_576, 65_536, 10_240]:
        if soft == infinite or limit <= soft:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
        except (ValueError, OSError):
            continue
        soft = limit
        break
    shown = "unlimited" if soft == infinite else f"{soft:,}"
    raised = f", raised from {before:,}" if soft != before else ""
    if soft != infinite and soft < FEW_OPEN_FILES:
        logger.warning("Open files: at most %s at once%s: each connection is one, so about that many phones' "
                       "pages and sockets; raise the hard limit (ulimit -Hn) for more", shown, raised)
    else:
        logger.info("Open files: at most %s at once%s", shown, raised)
    return soft


class AccessLog:
    """daphne's access log (``--access-log``, on by default), every private link's token left out."""

    def __init__(self, log):
        self.log = log

    def __call__(self, protocol, action, details):
        if isinstance(details.get("path"), str):
            details = {**details, "path": without_private_links(details["path"])}
        self.log(protocol, action, details)


class Server(daphne.server.Server):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.action_logger is not None:
            self.action_logger = AccessLog(self.action_logger)

    def run(self):
        raise_open_file_limit()
        daphne.server.HTTPFactory = BoundedHTTPFactory  # the names Server.run builds its factories from
        daphne.server.WebSocketFactory = ClosingWebSocketFactory
        super().run()


def printable(text: str, *, ascii_only: bool = False) -> str:
    """``text`` for a line of the log: a character that is not printable (a terminal's escape, a
    line break) written as its escape; with ``ascii_only`` (a status line's reason), any but
    printable ASCII too."""
    return "".join(c if c.isprintable() and (c.isascii() or not ascii_only) else ascii(c)[1:-1] for c in text)


class ClosingWebSocketProtocol(WebSocketProtocol):
    """daphne's websocket, closed with a code and the reason when autobahn refuses what a client
    sent (a frame over ``WEBSOCKET_MAX_FRAME_BYTES`` or a message over 1 MiB: 1009; a text frame
    that is not UTF-8, a close reason that is not: 1007; a frame against the protocol: an
    unmasked one, reserved bits or opcodes, a continuation with nothing to continue, a control
    frame over 125 bytes: 1002), and one line in the log. autobahn's default (``failByDrop``)
    dropped the connection, no close code, no line. What arrives after the close is read only
    to be thrown away, for a second at most (``closeHandshakeTimeout``), then the connection is
    dropped."""

    def failHandshake(self, reason, code=400, responseHeaders=None):
        """An opening handshake refused: autobahn's own refusal (a key, version or Host it will not
        take; a compression offer it cannot parse, read only once the application has accepted
        the socket) is one line in the log; one the application refused (a
        foreign Origin, a path no consumer serves) is in daphne's access log already
        ("WSREJECT"), and an application's error has daphne's traceback. The reason in the
        status line is written in printable ASCII, anything else as its escape."""
        # (daphne sets ``application_queue`` once the request reaches the application)
        if not hasattr(self, "application_queue") or getattr(self, "accepted_by_application", False):
            logger.warning("Refused a websocket handshake from %s on %s: %s %s", self.peer_host(), self.path_as_sent(),
                           code, printable(str(reason)[:200]))
        # autobahn's reason may quote what the client sent: the status line holds printable ASCII only.
        super().failHandshake(printable(str(reason), ascii_only=True), code, responseHeaders)

    def serverAccept(self, subprotocol=None):
        self.accepted_by_application = True  # what autobahn refuses from now on is its own refusal
        super().serverAccept(subprotocol)

    def peer_host(self) -> str:
        client = getattr(self, "client_addr", None)
        if client:
            return client[0]
        return getattr(self.transport.getPeer(), "host", "?") if self.transport is not None else "?"

    def path_as_sent(self) -> str:
        """The path as it came, a private link's token left out: autobahn's, set once it has
        checked the request line's method; before that (a method but GET, 405), the request
        line's own, its query left out as autobahn leaves it out."""
        path = getattr(self, "http_request_path", None)
        if path is None:
            target = str(getattr(self, "http_status_line", "")).split(" ")
            path = target[1].split("?")[0] if len(target) > 1 else "?"
        return printable(without_private_links(str(path)[:200]))

    def onClose(self, wasClean, code, reason):
        if self.failedByMe and self.localCloseCode is not None:  # (autobahn's own refusal: nothing else sets it)
            why = (self.localCloseReason or b"").decode("utf-8", "replace")
            logger.warning("Refused a websocket frame from %s on %s: %s %s", self.peer_host(), self.path_as_sent(),
                           self.localCloseCode, printable(why))
        super().onClose(wasClean, code, reason)


class ClosingWebSocketFactory(WebSocketFactory):
    protocol = ClosingWebSocketProtocol

    def setProtocolOptions(self, **options):
        super().setProtocolOptions(**{**options, "failByDrop": False})


# The longest websocket frame a client may send, in bytes: daphne's own option
# (``--websocket-max-frame-size``), given a default of ours; every socket here refuses a frame
# over 4,096 characters anyway (``common.consumers``). A message, whole or in fragments, keeps
# daphne's limit of 1 MiB (``--websocket-max-message-size``): autobahn holds the server's own
# messages to it too, and a board's or a dashboard's full update of a big drive is over 64 KiB
# (74 KB at 200 players; a message limit of 64 KiB would drop them, as `make bench` shows).
WEBSOCKET_MAX_FRAME_BYTES = 64 * 1024


class CommandLine(CommandLineInterface):
    server_class = Server

    def __init__(self):
        super().__init__()
        self.parser.set_defaults(websocket_max_frame_size=WEBSOCKET_MAX_FRAME_BYTES)


if __name__ == "__main__":
    CommandLine.entrypoint()
