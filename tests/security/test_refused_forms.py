"""Forms Django will not read, through Django itself (the test client: no server in front): too
large, too many fields, a file part (no form takes one), a broken multipart body, one that says
it is not UTF-8. Each is refused with a short message, writes nothing, and is one line in the
log without a traceback, with DEBUG off and on, and with a forged Host as well (Django's page
for a forged Host reads the form: with DEBUG on it failed on one it could not read, a server
error and its tracebacks). The server in front refuses a large body before Django sees it:
test_body_limits.py."""

from __future__ import annotations

import logging
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client
from django.test.client import encode_multipart

from scoring.models import Result
from tests.security.conftest import entry_data, snapshot
from tests.spies import own_warnings

BOUNDARY = "refused-form-boundary"


def multipart(fields: dict, file_part: bytes | None = None) -> bytes:
    body = encode_multipart(BOUNDARY, fields).removesuffix(f"--{BOUNDARY}--\r\n".encode())
    if file_part is not None:
        body += (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n"
                 "Content-Type: image/jpeg\r\n\r\n").encode() + file_part + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
HOSTS = pytest.mark.parametrize("host", ["testserver", "evil.example"], ids=["our-host", "forged-host"])


def refusals(world) -> list[tuple[str, bytes, str, int, str]]:
    """(what, body, content type, status, what the answer says) for the enterer's entry form."""
    entry = entry_data(4, 2, by=world.enterer)
    big = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    return [
        ("too large", f"declarer=2&pad={big}".encode(), "application/x-www-form-urlencoded", 413, "too large"),
        ("too large, multipart", multipart({**entry, "pad": big}), MULTIPART, 413, "too large"),
        ("too many fields", "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)).encode(),
         "application/x-www-form-urlencoded", 400, "too many fields"),
        ("a file part", multipart(entry, b"\xff\xd8" + b"x" * 5000), MULTIPART, 400, "No form here takes a file"),
        ("an empty file part", multipart(entry, b""), MULTIPART, 400, "No form here takes a file"),
        ("no boundary", b"--x\r\n", "multipart/form-data", 400, "could not be read"),
        ("a bad boundary", b"junk", "multipart/form-data; boundary=\x01", 400, "could not be read"),
        ("a boundary of 5,000 characters", b"junk", "multipart/form-data; boundary=" + "B" * 5000, 400,
         "could not be read"),
        ("not UTF-8", b"declarer=2", "application/x-www-form-urlencoded; charset=latin-1", 400, "UTF-8"),
        # A codec of bytes, not of text (found by probing: a server error and a traceback).
        ("a charset of bytes", multipart(entry), MULTIPART + "; charset=hex", 400, "not a text encoding"),
        ("a charset of rot13", multipart(entry), MULTIPART + "; charset=rot13", 400, "not a text encoding"),
        ("a charset of idna", multipart(entry), MULTIPART + "; charset=idna", 400, "not a text encoding"),
    ]


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
@HOSTS
def test_each_unreadable_form_is_refused_in_one_line_and_writes_nothing(world, settings, caplog, debug, host):
    settings.DEBUG = debug
    phone = world.phone(world.enterer)
    for what, body, content_type, status, says in refusals(world):
        before = snapshot()
        caplog.clear()
        with caplog.at_level(logging.INFO):
            # (generic: the body sent as it is; post() would encode it in the charset it names)
            response = phone.generic("POST", f"/{world.code}/enter", body, content_type=content_type, HTTP_HOST=host)
        assert response.status_code == status, what
        assert says in response.content.decode(), what
        assert snapshot() == before, what
        lines = own_warnings(caplog)
        assert len(lines) == 1 and "Refused a form" in lines[0].getMessage(), (what, [r.getMessage() for r in lines])
        assert lines[0].exc_info is None and not lines[0].exc_text, what
        # What was sent is not quoted back at length, in the answer or the log.
        assert len(response.content) < 300 and len(lines[0].getMessage()) < 400, what
        assert response["X-Content-Type-Options"] == "nosniff", what


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
def test_a_forged_host_with_a_form_that_can_be_read_is_one_line_and_writes_nothing(world, settings, caplog, debug):
    settings.DEBUG = debug
    before = snapshot()
    for content_type, body in (("application/x-www-form-urlencoded", urlencode(entry_data(4, 2, by=world.enterer))),
                               (MULTIPART, multipart(entry_data(4, 2, by=world.enterer)))):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            response = world.phone(world.enterer).post(f"/{world.code}/enter", body, content_type=content_type,
                                                       HTTP_HOST="evil.example")
        assert response.status_code == 400
        lines = own_warnings(caplog)
        assert [r.name for r in lines] == ["django.security.DisallowedHost"], [r.getMessage() for r in lines]
        assert lines[0].exc_info is None and not lines[0].exc_text
    assert snapshot() == before


def test_the_same_entry_without_the_file_part_is_recorded(world):
    """The file part alone is what is refused: the same fields, without it, are an entry."""
    entry = entry_data(4, 2, by=world.enterer)
    phone = world.phone(world.enterer)
    assert phone.post(f"/{world.code}/enter", multipart(entry, b"x"), content_type=MULTIPART).status_code == 400
    assert phone.post(f"/{world.code}/enter", multipart(entry), content_type=MULTIPART).status_code == 302
    assert Result.objects.get(table=world.t1).entered_by == world.enterer


def test_the_sign_in_form_refuses_a_file_part_before_csrf(db):
    """No cookie, no CSRF token: still a 400 that says why, not a 403 after reading the file."""
    response = Client(enforce_csrf_checks=True).post("/login/", multipart({"username": "a"}, b"x" * 1000),
                                                     content_type=MULTIPART)
    assert response.status_code == 400 and "No form here takes a file" in response.content.decode()


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
@pytest.mark.parametrize("path", ["/join", "/login/", "/healthz", "/"])
@HOSTS
def test_an_address_with_too_many_parameters_is_refused_in_one_line(db, settings, caplog, debug, path, host):
    """Django's own answer read the parameters again on its debug page and failed there: a server
    error and a traceback of some 600 lines, for any visitor."""
    settings.DEBUG = debug
    query = "&".join(f"p{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    with caplog.at_level(logging.INFO):
        response = Client().get(f"{path}?{query}", HTTP_HOST=host)
    assert response.status_code == 400 and "too many parameters" in response.content.decode()
    lines = own_warnings(caplog)
    assert len(lines) == 1 and "Refused an address" in lines[0].getMessage(), [r.getMessage() for r in lines]
    assert lines[0].exc_info is None and not lines[0].exc_text
    assert Client().get(f"{path}?p=1").status_code in (200, 302)  # a few parameters are read as ever


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"])
def test_a_method_no_page_answers_is_refused_in_one_line_and_writes_nothing(world, caplog, method):
    """Found from outside: PUT, DELETE and the like on the organiser's pages answered 200 with the
    page, as a GET. Every page answers GET and HEAD or takes a POST; anything else is 405."""
    before = snapshot()
    for client, path in ((world.organiser_client(), f"/drives/{world.drive.pk}/"),
                         (world.phone(world.enterer), f"/{world.code}/enter"), (Client(), "/healthz")):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            response = client.generic(method, path, b"name=Renamed")
        assert response.status_code == 405 and response["Allow"] == "GET, HEAD, POST", (method, path)
        assert f"does not answer {method}" in response.content.decode()
        lines = own_warnings(caplog)
        assert len(lines) == 1 and "Refused a method" in lines[0].getMessage() and lines[0].exc_info is None
    assert snapshot() == before
    assert Client().head("/healthz").status_code == 200
