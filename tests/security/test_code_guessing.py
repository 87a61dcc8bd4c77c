"""Guessing drive codes is rate-limited per address (``drive.access.drive_by_code``,
``config.middleware.UnknownCodes``): found from outside, a client tried 308 codes a second on
``/<CODE>/board`` and ``/join?code=`` (every five-letter code in 3.7 hours), each a "Not Found"
line in the log. An address that asked for ``UNKNOWN_CODES_PER_MINUTE`` codes no drive has is
answered 429 for any code, a real drive's included (else the 429s and the pages would still tell
codes that exist from codes that do not), by page or socket, for the rest of the sliding minute;
the drive's own phones and its organiser are served as ever, and so is every other address."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from drive.access import UNKNOWN_CODES_PER_MINUTE
from tests.spies import own_warnings

GUESSER, NEIGHBOUR = "10.0.0.66", "10.0.0.67"
SAYS = "Too many codes that no drive has, from this address: wait a minute, then try again."


@pytest.fixture
def mid_minute(monkeypatch):
    """Held in the middle of a minute: guesses straddling its turn would be weighed a little under
    their count (the sliding minute is an estimate)."""
    import datetime

    from common import ratelimit

    now = datetime.datetime(2026, 12, 2, 9, 0, 30, tzinfo=datetime.timezone.utc)
    monkeypatch.setattr(ratelimit.timezone, "now", lambda: now)


def guesses(n: int) -> list[str]:
    """``n`` codes no drive has (drives' codes hold no I or O: drive.models.JOIN_ALPHABET)."""
    letters = "IO"
    return ["QQ" + "".join(letters[(k >> bit) & 1] for bit in range(5)) for k in range(n)]


def test_an_address_guessing_codes_is_answered_429_for_any_code_but_the_drives_phones_and_organiser(
        world, mid_minute, caplog):
    guesser = Client(REMOTE_ADDR=GUESSER)
    for n, code in enumerate(guesses(UNKNOWN_CODES_PER_MINUTE)):
        path = f"/{code}/board" if n % 2 else f"/join?code={code}"
        assert guesser.get(path).status_code == 404, path
    caplog.clear()
    with caplog.at_level(logging.INFO):
        for path in (f"/{guesses(21)[-1]}/board", f"/join?code={world.code}", f"/{world.code}/board", f"/{world.code}",
                     f"/{world.code}/play", f"/{world.code.lower()}/board"):
            refused = guesser.get(path)
            assert refused.status_code == 429 and refused.content.decode().strip() == SAYS, path
    assert guesser.post(f"/{world.code}/join", {"player": world.table1[3].pk}).status_code == 429
    said = [r.getMessage() for r in own_warnings(caplog)]
    assert len(said) == 1 and said[0].startswith(f"Refused codes from {GUESSER} ("), said  # a line a minute
    # The drive's phones and its organiser, from that address too, are served as ever.
    phone = world.phone(world.enterer, REMOTE_ADDR=GUESSER)
    assert phone.get(f"/{world.code}/me").status_code == 200
    assert phone.get(f"/{world.code}/board").status_code == 200
    assert world.organiser_client(REMOTE_ADDR=GUESSER).get(f"/{world.code}/board").status_code == 200
    # Another address: as ever.
    neighbour = Client(REMOTE_ADDR=NEIGHBOUR)
    assert neighbour.get(f"/{world.code}/board").status_code == 200
    assert neighbour.get(f"/{guesses(1)[0]}/board").status_code == 404
    assert neighbour.get(f"/join?code={world.code}").status_code == 302


def test_what_is_no_code_at_all_is_no_guess(world, mid_minute):
    """A phone's browser asks for /robots.txt and /apple-touch-icon.png by itself: the route of
    a code catches them, and they count as no guess (no drive's code holds a dot)."""
    phone = Client(REMOTE_ADDR=GUESSER)
    for _ in range(2 * UNKNOWN_CODES_PER_MINUTE):
        for path in ("/robots.txt", "/apple-touch-icon.png", "/favicon-32x32.png"):
            assert phone.get(path).status_code == 404, path
    assert phone.get(f"/{world.code}/board").status_code == 200


def from_address(address: str):
    """The application, its sockets seen as coming from ``address``."""

    async def app(scope, receive, send):
        return await application({**scope, "client": [address, 50000]}, receive, send)

    return app


async def connects(address: str, path: str, cookie: str = "") -> bool:
    headers = [(b"origin", b"http://localhost")] + ([(b"cookie", cookie.encode())] if cookie else [])
    ws = WebsocketCommunicator(from_address(address), path, headers=headers)
    ok, _ = await ws.connect(timeout=30)
    if ok:
        await ws.disconnect()
    return ok


@pytest.mark.django_db(transaction=True)
async def test_sockets_count_and_are_refused_as_pages_are(world, mid_minute):
    code, token = world.code, world.enterer.token
    for guess in guesses(UNKNOWN_CODES_PER_MINUTE):
        assert not await connects(GUESSER, f"/ws/drive/{guess}/board/")
    # The limit is the address's, pages and sockets alike.
    page = await sync_to_async(Client(REMOTE_ADDR=GUESSER).get)(f"/{code}/board")
    assert page.status_code == 429
    assert not await connects(GUESSER, f"/ws/drive/{code}/board/")
    assert await connects(GUESSER, f"/ws/drive/{code}/phone/", cookie=f"ff_{code}={token}")  # the drive's phone
    assert await connects(NEIGHBOUR, f"/ws/drive/{code}/board/")
    play = WebsocketCommunicator(from_address(GUESSER), f"/ws/play/{code}/", headers=[(b"origin", b"http://localhost")])
    assert (await play.connect(timeout=30))[0]
    assert (await play.receive_json_from(timeout=30))["message"] == SAYS
    await play.disconnect()
