"""What every page of a drive must hold, watched over a whole walk in the browser: no script error
or console error, no answer of the server's own failure (5xx), nothing fetched from anywhere but
the laptop (no CDN, no external font), and on a phone nothing wider than the screen.

    watched = Watched(server_url)
    page = watched.page(context.new_page(), "Ann's phone")
    ...
    watched.fits(page)                 # the page as it stands now: no sideways scroll
    assert watched.problems == []
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# The marker a page is given once (``mark``) and keeps until it is loaded again: a page that
# still holds it was updated live, never reloaded.
MARK = "window.__notReloaded = true"
MARKED = "window.__notReloaded === true"


class Watched:
    def __init__(self, server_url: str):
        self.host = urlsplit(server_url).netloc
        self.problems: list[tuple] = []

    def page(self, page, label: str):
        page.on("console", lambda m: m.type == "error" and self.problems.append((label, "console", m.text, page.url)))
        page.on("pageerror", lambda e: self.problems.append((label, "script error", str(e), page.url)))
        page.on("response", lambda r: r.status >= 500 and self.problems.append((label, "server error", r.status, r.url)))
        page.on("request", lambda r: self._local(r.url) or self.problems.append((label, "off the laptop", r.url)))
        return page

    def _local(self, url: str) -> bool:
        if re.match(r"^(data|blob|about):", url):
            return True
        return urlsplit(url).netloc == self.host

    def fits(self, page, label: str = "") -> None:
        """The page scrolls no wider than its window (a phone held upright: 360 px)."""
        wide = page.evaluate("document.documentElement.scrollWidth")
        width = page.viewport_size["width"]
        if wide > width:
            self.problems.append((label or page.url, "scrolls sideways", wide, width, page.url))


def mark(page) -> None:
    page.evaluate(MARK)


def never_reloaded(page) -> bool:
    return page.evaluate(MARKED)
