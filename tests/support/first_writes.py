"""Send a browser's first state changes all at once, as a page with two forms or two tabs does.

A browser that has its cookie (from a page or ``GET /api/me``) but no row yet is stored by its
first state-changing request. ``first_writes`` makes many such browsers and, for each, sends
``copies`` first writes released together by a barrier (threads of one pool, so the copies
really overlap), and tallies what came back: every status, and the bodies of any 5xx. The
write is ``DELETE /api/self-assessments``: it changes nothing else, so any 5xx is the browser's
creation.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tests.support.reliability import HttpBrowser, Reply

FIRST_WRITE = ("DELETE", "/api/self-assessments")


@dataclass
class Tally:
    """What the concurrent first writes got: statuses, and the bodies of failures."""

    browsers: list[HttpBrowser] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        """Return how many first writes were sent."""
        return sum(self.statuses.values())

    @property
    def server_errors(self) -> int:
        """Return how many first writes got a 5xx."""
        return sum(count for status, count in self.statuses.items() if status >= 500)


def first_writes(port: int, browsers: int, copies: int) -> Tally:
    """Give ``browsers`` fresh browsers ``copies`` simultaneous first writes each; tally them."""
    barrier = threading.Barrier(copies, timeout=30)
    tally = Tally()

    def write(browser: HttpBrowser) -> Reply:
        barrier.wait()
        return browser.request(*FIRST_WRITE)

    with ThreadPoolExecutor(copies) as pool:
        for _ in range(browsers):
            browser = HttpBrowser(port).introduce()  # a cookie, and no row yet
            replies = [future.result(timeout=60)
                       for future in [pool.submit(write, browser) for _ in range(copies)]]
            tally.browsers.append(browser)
            for reply in replies:
                tally.statuses[reply.status] += 1
                if reply.status >= 500:
                    tally.failures.append(reply.body[:300].decode(errors="replace"))
    return tally
