"""The server `make run` starts: daphne, with every request body bounded before it is read.

Run it with daphne's own arguments: ``python -m config.server -b 0.0.0.0 -p 8000
--websocket_timeout 86400 config.asgi:application``. Everything is daphne's (its command line,
websockets) but five things: the access log leaves out a private link's token (``AccessLog``), every status line names its code (Twisted's table lacks 429 and
431, which it calls "Unknown Status"), at start the process may open as many files as the system lets it
(``raise_open_file_limit``: every connection is one), a websocket frame over 64 KiB drops the connection
(``WEBSOCKET_MAX_FRAME_BYTES``, daphne's own limit with a default of ours), and an HTTP request whose body is over
``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is answered ``413`` with a short plain-text message and
the connection closed, and the server logs one line (logger ``config.server``). A
``Content-Length`` over the limit is refused as soon as the headers are in, before a byte of the
body is read; a chunked body is counted as it arrives and cut off once past the limit.

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
through real sockets by tests/security/test_body_limits.py, so a daphne that changes any of
this fails there.
"""

from __future__ import annotations

import daphne.server  # isort:skip  (installs Twisted's asyncio reactor: first)

import io
import logging
import resource
from http import HTTPStatus

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest

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
        if not self.refused:
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
        logger.warning("Refused %s from %s (the limit is %s bytes): 413", body, getattr(self.client, "host", "?"), limit)
        message = f"Request body too large: the limit is {limit // 1024} KB.\n".encode()
        self.channel.transport.write(
            b"HTTP/1.1 413 Content Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(message), message))
        self.channel.loseConnection()


class BoundedHTTPFactory(HTTPFactory):
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
        daphne.server.HTTPFactory = BoundedHTTPFactory  # the name Server.run builds its factory from
        super().run()


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
