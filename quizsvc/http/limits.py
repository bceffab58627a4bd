"""Keep one client from taking the service down: rate limits on what is costly or guessable.

Every limited route is counted twice: per browser (its cookie's sha256) and per client
address. The browser's count is the learner's fair share; the address's is larger and stops
a client that takes a fresh browser for every request (a new cookie costs nothing) from
starting a fresh count each time. Limited so:

- the sandbox (``POST /api/simulate`` and the simulator page): requests, and the CPU its
  replays take on the costly-work pool, charged to the browser's, the address's and one
  budget for everyone (``SANDBOX_CPU_*``); a replay is refused (429 ``sandbox_busy``) while
  one is spent, so however many browsers flood it the sandbox keeps to its share;
- link-code redemption (a code is guessable only by trying many);
- imports and Anki decks (each costs the pool seconds of CPU);
- reports of a problem with a question (each is a row an author must read);
- new browsers: a state change from a browser the service has not stored creates a learner,
  so creating them is counted per address (``NEW_BROWSER_RATE_LIMIT``);
- the author views: by the author's token when it is the right one, otherwise by address, so
  strangers guessing behind the author's address never lock the author out.

The limits come from the configuration; the counters from ``RATELIMIT_STORAGE_URI``.
``memory://`` counts per worker process, so a deployment of several workers or servers must
share a store: ``quizsvc serve`` starts a Redis for itself when none is configured, and
docker-compose.yml runs one. A refused request is a 429 in the error envelope, with
``Retry-After``. Behind a reverse proxy set ``PROXY_HOPS`` so the address is the client's.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from quizsvc.errors import N_, TooMany
from quizsvc.http.cookies import BROWSER_COOKIE, cookie_name

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def address_key() -> str:
    """Count a request against its client address."""
    return "address:" + get_remote_address()


def browser_key() -> str:
    """Count a request against its browser (its cookie's hash), else its address."""
    token = request.cookies.get(cookie_name(BROWSER_COOKIE))
    if token:
        return "browser:" + hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
    return address_key()


def author_key() -> str:
    """Count an author view against the author when the right token is presented, else
    against the address (a guesser locks out only its own address)."""
    token = current_app.config.get("AUTHOR_TOKEN") or ""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(
            given.encode("utf-8", "surrogateescape"), token.encode()):
        return "author"
    return "author-guess:" + get_remote_address()


limiter = Limiter(key_func=browser_key, headers_enabled=True)


def setting(name: str) -> Callable[[], str]:
    """Return a callable reading one limit from the configuration (read at each request)."""
    return lambda: str(current_app.config[name])


def per_browser_and_address(scope: str, browser_setting: str, address_setting: str,
                            methods: list[str] | None = None) -> Decorator:
    """Limit a view per browser and per address, the two counters shared by every view of
    ``scope`` (the API's route and its page count together); ``methods`` limits only those
    (a resource whose GET is cheap)."""
    by_browser = limiter.shared_limit(setting(browser_setting), scope=scope, methods=methods)
    by_address = limiter.shared_limit(setting(address_setting), scope=scope + "-address",
                                      key_func=address_key, methods=methods)

    def both(view: Callable[..., Any]) -> Callable[..., Any]:
        return by_address(by_browser(view))

    return both


def sandbox_limit() -> Decorator:
    """Count a request against the sandbox's limits (the API's and the page's replays)."""
    return per_browser_and_address("sandbox", "SIMULATE_RATE_LIMIT",
                                   "SIMULATE_ADDRESS_RATE_LIMIT")


def link_redeem_limit() -> Decorator:
    """Count a request against link redemption's limits (API and page alike)."""
    return per_browser_and_address("link-redeem", "LINK_RATE_LIMIT", "LINK_ADDRESS_RATE_LIMIT")


def import_limit() -> Decorator:
    """Count a request against the import's limits."""
    return per_browser_and_address("import", "IMPORT_RATE_LIMIT", "IMPORT_ADDRESS_RATE_LIMIT")


def retention_limit() -> Decorator:
    """Count a change of desired retention (API and page alike): each reschedules every card
    the learner has, replaying their whole review log."""
    return per_browser_and_address("retention", "RETENTION_RATE_LIMIT",
                                   "RETENTION_ADDRESS_RATE_LIMIT", methods=["PUT", "POST"])


def anki_limit() -> Decorator:
    """Count a request against the Anki deck's limits (API and page alike)."""
    return per_browser_and_address("anki", "ANKI_RATE_LIMIT", "ANKI_ADDRESS_RATE_LIMIT")


def report_limit() -> Decorator:
    """Count a request against the limits of reports of a problem (API and page alike)."""
    return per_browser_and_address("report", "REPORT_RATE_LIMIT", "REPORT_ADDRESS_RATE_LIMIT")


def author_rate_limit() -> Decorator:
    """Count an author view against the author, or a guesser's address."""
    decorator: Decorator = limiter.limit(setting("AUTHOR_RATE_LIMIT"), key_func=author_key)
    return decorator


def instructor_rate_limit() -> Decorator:
    """Count an instructor view against the client address (a token is 256 bits: the limit
    keeps guessers from costing the pool reports, not from finding one)."""
    decorator: Decorator = limiter.limit(setting("INSTRUCTOR_RATE_LIMIT"), key_func=address_key)
    return decorator


def refused_until(limit: Any, *identifiers: str) -> int:
    """Return the whole seconds until ``limit`` lets ``identifiers`` through again."""
    stats = limiter.limiter.get_window_stats(limit, *identifiers)
    return max(1, math.ceil(stats.reset_time - time.time()))


def count_new_browser() -> None:
    """Count one new browser against its address; refuse it (429) when too many were made."""
    address = get_remote_address()
    for limit in parse_many(current_app.config["NEW_BROWSER_RATE_LIMIT"]):
        if not limiter.limiter.hit(limit, "new-browser", address):
            raise TooMany(N_("Too many new browsers from this address; try again in "
                             "%(retry_after)s s."), reason="new_browsers",
                          params={"retry_after": refused_until(limit, "new-browser", address)})


class SandboxBudget:
    """The CPU the sandbox may still spend, for this browser, its address and everyone."""

    def __init__(self) -> None:
        config = current_app.config
        owners = ((config["SANDBOX_CPU_PER_BROWSER"], ("sandbox-cpu", browser_key())),
                  (config["SANDBOX_CPU_PER_ADDRESS"], ("sandbox-cpu", address_key())),
                  (config["SANDBOX_CPU_FOR_ALL"], ("sandbox-cpu", "everyone")))
        self.budgets = [(limit, identifiers) for spec, identifiers in owners
                        for limit in parse_many(spec)]

    def check(self) -> None:
        """Refuse a replay while one of its budgets is spent."""
        for limit, identifiers in self.budgets:
            if not limiter.limiter.test(limit, *identifiers):
                raise TooMany(N_("The sandbox has used its share of the server for now; "
                                 "run it again in %(retry_after)s s."), reason="sandbox_busy",
                              params={"retry_after": refused_until(limit, *identifiers)})

    def charge(self, cpu_seconds: float) -> None:
        """Charge a replay's CPU (in milliseconds) to every budget."""
        cost = max(1, math.ceil(cpu_seconds * 1000))
        for limit, identifiers in self.budgets:
            limiter.limiter.hit(limit, *identifiers, cost=cost)


@contextmanager
def sandbox_spending() -> Iterator[Callable[[float], None]]:
    """Run a replay within the sandbox's CPU budgets: refused if spent; the block is given
    the callable that charges the CPU the replay took (on the pool, not this thread)."""
    budget = SandboxBudget()
    budget.check()
    yield budget.charge


def init_app(app: Flask) -> None:
    """Bind the limiter to the app, its counters where the configuration says; trust
    ``PROXY_HOPS`` proxies for the client's address."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    limiter.init_app(app)
