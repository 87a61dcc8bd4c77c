"""The server `make run` starts (config/server.py): its status lines name every status (Twisted's
own table has no words for 429, and its status line said "429 Unknown Status"), and its access
log leaves out a private link's token."""

from __future__ import annotations

import http.client
import secrets

import pytest

from drive.access import UNKNOWN_CODES_PER_MINUTE
from tests.faults.support import Server, wait_for
from tests.security.test_code_guessing import guesses


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("status-lines"))
    s.env["DEBUG"] = "0"
    s.start()
    yield s
    s.stop()


def status_line(server: Server, path: str, method: str = "GET") -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        response.read()
        return response.status, response.reason
    finally:
        connection.close()


def test_a_refused_guesser_is_told_too_many_requests_in_the_status_line(server):
    # Twice the limit: the sliding minute weighs the guesses of a minute just turned a little
    # under their count, so the last ones are refused whenever the run started.
    answers = [status_line(server, f"/{code}/board") for code in guesses(2 * UNKNOWN_CODES_PER_MINUTE)]
    assert answers[0] == (404, "Not Found")
    refused = [reason for status, reason in answers if status == 429]
    assert refused and set(refused) == {"Too Many Requests"}, answers
    assert answers[-1] == (429, "Too Many Requests")


def test_the_status_lines_twisted_knows_are_its_own(server):
    assert status_line(server, "/healthz") == (200, "OK")


def test_the_log_leaves_out_a_private_links_token(server):
    """Found from outside: the access log wrote each private link whole, and its token is the
    player's cookie: a log pasted into a bug report handed out the players. Django's own lines
    (a refused method, a page not found) quoted it too (found by a review)."""
    token, other = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    status_line(server, f"/ABCDE/p/{token}?from=qr")
    assert status_line(server, f"/ABCDE/p/{other}", method="PUT")[0] == 405
    status_line(server, "/ABCDE/board")
    log = server.data / "daphne.log"
    wait_for(lambda: "/ABCDE/board" in log.read_text(), what="the access log's lines")
    text = log.read_text()
    assert token not in text and other not in text
    assert "/ABCDE/p/…?from=qr" in text and "PUT /ABCDE/p/…" in text


@pytest.mark.parametrize("path", ["/%20%20ABCDE/p/{}", "/ABCDE%20%20/p/{}", "/%E2%80%83ABCDE/p/{}", "/%09%0AABCDE/p/{}",
                                  "/ABCDE/%70/{}", "/ABCDE/p%2F{}", "/%41BCDE/p/%{hex}{rest}",
                                  "/ABCDE/p/{}%0Aforged {marker}", "/ABCDE/p/{}%250Aforged {marker}"])
def test_the_log_leaves_out_a_private_links_token_percent_encoded(server, path):
    """Found from outside: the server decodes a path before it routes it, so a private link
    opened percent-encoded is opened all the same, and the log wrote its token whole. The line
    is written as it came: decoded, a %0A in the path (or a %250A, under Django's own escaping)
    started a forged line of the log (found by a review)."""
    token, marker = secrets.token_urlsafe(24), secrets.token_hex(4)
    status_line(server, path.format(token, hex=format(ord(token[0]), "02X"), rest=token[1:], marker=marker)
                .replace(" ", "%20"))
    after = f"/ABCDE/board?after={marker}"
    status_line(server, after)
    log = server.data / "daphne.log"
    wait_for(lambda: after in log.read_text(), what="the access log's lines")
    text = log.read_text()
    assert token not in text and token[1:] not in text
    assert "…" in text
    assert not any(line.startswith("forged") for line in text.splitlines())
