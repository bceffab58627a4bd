"""Keep one client from taking the service down: rate limits on what is costly or guessable.

The sandbox is limited twice. Requests are counted (a flood of cheap replays), and so is the
CPU its replays take (a few costly ones): every replay's CPU milliseconds are charged to the
browser's budget and to one budget for everyone (``SANDBOX_CPU_PER_BROWSER``,
``SANDBOX_CPU_FOR_ALL``), and a replay is refused (429 ``sandbox_busy``) while either is spent.
So however many browsers flood it, the sandbox takes at most its share of the machine and
learners' questions keep theirs.

Flask-Limiter counts requests per browser (the browser cookie's sha256; a client without one
is counted by its address) for the sandbox (``POST /api/simulate`` and the simulator page,
whose replays are bounded in CPU too) and link-code redemption (a code is guessable only by
trying many), and per address for the author views. The limits come from the configuration
(``SIMULATE_RATE_LIMIT``, ``LINK_RATE_LIMIT``, ``AUTHOR_RATE_LIMIT``), the counters from
``RATELIMIT_STORAGE_URI``: ``memory://`` counts per worker process, so a deployment with
several gunicorn workers or servers must share a store (``redis://...``; docker-compose.yml
runs one). A refused request is a 429 in the error envelope, with ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many

from quizsvc.errors import N_, TooMany
from quizsvc.http.browser import BROWSER_COOKIE, cookie_name


def browser_key() -> str:
    """Count a request against its browser (its cookie's hash), else its address."""
    token = request.cookies.get(cookie_name(BROWSER_COOKIE))
    if token:
        return "browser:" + hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
    return "address:" + get_remote_address()


limiter = Limiter(key_func=browser_key, headers_enabled=True)


def sandbox_limit() -> Any:
    """Count a request against the browser's sandbox limit (the API's and the page's
    replays share one counter)."""
    return limiter.shared_limit(simulate_limit, scope="sandbox")


def link_redeem_limit() -> Any:
    """Count a request against the browser's link-redemption limit (API and page alike)."""
    return limiter.shared_limit(link_limit, scope="link-redeem")


def simulate_limit() -> str:
    """Return the sandbox's limit from the configuration."""
    return str(current_app.config["SIMULATE_RATE_LIMIT"])


def link_limit() -> str:
    """Return link redemption's limit from the configuration."""
    return str(current_app.config["LINK_RATE_LIMIT"])


def author_limit() -> str:
    """Return the author views' limit from the configuration."""
    return str(current_app.config["AUTHOR_RATE_LIMIT"])


class SandboxBudget:
    """The CPU the sandbox may still spend, for this browser and for everyone."""

    def __init__(self) -> None:
        self.budgets = [(limit, ("sandbox-cpu", browser_key()))
                        for limit in parse_many(current_app.config["SANDBOX_CPU_PER_BROWSER"])]
        self.budgets += [(limit, ("sandbox-cpu", "everyone"))
                         for limit in parse_many(current_app.config["SANDBOX_CPU_FOR_ALL"])]

    def check(self) -> None:
        """Refuse a replay while this browser's or everyone's CPU budget is spent."""
        for limit, identifiers in self.budgets:
            if not limiter.limiter.test(limit, *identifiers):
                stats = limiter.limiter.get_window_stats(limit, *identifiers)
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                raise TooMany(N_("The sandbox has used its share of the server for now; "
                                 "run it again in %(retry_after)s s."), reason="sandbox_busy",
                              params={"retry_after": wait})

    def charge(self, cpu_seconds: float) -> None:
        """Charge a replay's CPU (in milliseconds) to every budget."""
        cost = max(1, math.ceil(cpu_seconds * 1000))
        for limit, identifiers in self.budgets:
            limiter.limiter.hit(limit, *identifiers, cost=cost)


@contextmanager
def sandbox_spending() -> Iterator[None]:
    """Run a replay within the sandbox's CPU budgets: refused if spent, charged after."""
    budget = SandboxBudget()
    budget.check()
    started = time.thread_time()
    try:
        yield
    finally:
        budget.charge(time.thread_time() - started)


def init_app(app: Flask) -> None:
    """Bind the limiter to the app, its counters where the configuration says."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    limiter.init_app(app)
