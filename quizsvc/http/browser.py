"""Know the browser behind every request, once, for the API and the pages alike.

- The browser cookie carries a server-minted id: 256 random bits and an HMAC under
  ``SECRET_KEY`` (so an id the client made up is never adopted), HttpOnly, SameSite=Lax, Secure
  and ``__Host-``-prefixed when ``COOKIE_SECURE``. Only its sha256 is stored, and only from the
  browser's first state-changing request on: reading pages stores nothing, so a crawler or a
  client without cookies creates no rows.
- The CSRF cookie is readable by scripts; every POST/PUT/PATCH/DELETE must echo it in the
  ``X-CSRF-Token`` header or, for HTML forms, a hidden ``csrf_token`` field. It is an HMAC over
  the browser id, so a cookie planted by a sibling site for another browser does not pass.

``resolve_browser`` (a ``before_request`` hook) reads the cookie, looks the browser up (one
query), checks CSRF on state changes and registers a new browser before its first write; it
records the result in ``flask.g`` once. ``visitor()`` and ``csrf_token()`` read it back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, request

from quizsvc.errors import N_, CsrfFailed
from quizsvc.runtime import now
from quizsvc.store.database import get_db
from quizsvc.store.repository import Stale
from quizsvc.study.context import Identity
from quizsvc.study.linking import digest

BROWSER_COOKIE = "quizsvc_browser"
CSRF_COOKIE = "csrf_token"
SECURE_PREFIX = "__Host-"  # a Secure cookie set by this host for "/" only, never a sibling's
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers accept
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
FORM_MIMETYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
# Blueprints whose views need no browser: probes, the OpenAPI document, author views (which
# have their own bearer token), Prometheus metrics.
WITHOUT_BROWSER = frozenset({"health", "api-docs", "author", "metrics"})
TOKEN_BYTES = 32  # 256 bits of the browser id
MAC_CHARS = 32  # hex characters of an HMAC kept in a token
MAX_TOKEN = 200  # longer cookie values are not ours


@dataclass(frozen=True)
class Visitor:
    """The browser behind this request: its cookie id and, once stored, its identity."""

    token: str
    identity: Identity | None
    minted: bool  # a new id for this browser, to set in its cookie


def cookie_name(base: str) -> str:
    """Return a cookie's name: ``__Host-`` prefixed when cookies are Secure."""
    return SECURE_PREFIX + base if current_app.config.get("COOKIE_SECURE") else base


def mac(secret_key: str, message: str) -> str:
    """Return the truncated HMAC-SHA256 of ``message`` under the app's secret key."""
    return hmac.new(secret_key.encode(), message.encode(), hashlib.sha256).hexdigest()[:MAC_CHARS]


def same_text(a: str, b: str) -> bool:
    """Compare two secrets in constant time (any text: non-ASCII never matches an ASCII MAC)."""
    return hmac.compare_digest(a.encode("utf-8", "surrogateescape"),
                               b.encode("utf-8", "surrogateescape"))


def mint_token(secret_key: str) -> str:
    """Return a new browser id: random bits and their HMAC, so the server knows its own."""
    base = secrets.token_urlsafe(TOKEN_BYTES)
    return f"{base}.{mac(secret_key, 'browser:' + base)}"


def minted_here(secret_key: str, token: str) -> bool:
    """Tell whether ``token`` is a browser id this deployment minted."""
    base, dot, signature = token.partition(".")
    return bool(dot) and same_text(signature, mac(secret_key, "browser:" + base))


def sign_csrf(secret_key: str, browser_token: str, nonce: str) -> str:
    """Return the CSRF token for ``nonce``, bound to this browser by an HMAC."""
    return f"{nonce}.{mac(secret_key, f'{browser_token}.{nonce}')}"


def csrf_valid(secret_key: str, browser_token: str, token: str | None) -> bool:
    """Tell whether ``token`` was signed for this browser."""
    if not token or token.count(".") != 1:
        return False
    nonce = token.split(".", 1)[0]
    return same_text(sign_csrf(secret_key, browser_token, nonce), token)


def submitted_csrf_token() -> str | None:
    """Return the CSRF token the request echoes: the header, else the form field."""
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    if request.mimetype in FORM_MIMETYPES:
        return request.form.get(CSRF_FIELD)
    return None


def check_csrf(browser_token: str) -> None:
    """Refuse a state change unless the echoed token equals the cookie and is this browser's."""
    cookie = request.cookies.get(cookie_name(CSRF_COOKIE))
    echoed = submitted_csrf_token()
    if not (cookie and echoed and same_text(cookie, echoed)
            and csrf_valid(current_app.config["SECRET_KEY"], browser_token, cookie)):
        raise CsrfFailed(
            N_("Missing or wrong CSRF token: echo the %(cookie)s cookie in the %(header)s "
               "header (or a %(field)s form field)."),
            {"headers": {CSRF_HEADER: ["missing or does not match the csrf_token cookie"]}},
            reason="csrf_failed",
            params={"cookie": CSRF_COOKIE, "header": CSRF_HEADER, "field": CSRF_FIELD})


def needs_browser() -> bool:
    """Tell whether the matched view serves a browser (not a probe, a document or a file)."""
    endpoint = request.endpoint
    if endpoint is None or endpoint == "static" or endpoint.endswith(".static"):
        return False
    return request.blueprint not in WITHOUT_BROWSER


def find_browser(token: str) -> Identity | None:
    """Look the browser stored under ``token`` up, in a read that takes no lock."""
    if len(token) > MAX_TOKEN or not token.isascii():
        return None
    uow = get_db().unit_of_work()
    with uow.read():
        row = uow.learners.browser_by_hash(digest(token))
    return None if row is None else Identity(learner_id=row.learner_id, browser_id=row.id)


def register(token: str) -> Identity:
    """Store a new learner and this browser, before the browser's first state change.

    When another first write of the same browser stored it in the meantime (two tabs, a
    double submit), take that row: the learner made here is rolled back, and neither request
    fails on the browser's unique token hash.
    """
    uow = get_db().unit_of_work()
    try:
        with uow.write():
            row = uow.learners.register_browser(digest(token), now())
            if row is None:
                raise Stale(token)  # rolls back the learner made for it
        return Identity(learner_id=row.learner_id, browser_id=row.id)
    except Stale:
        pass
    stored = find_browser(token)
    if stored is None:  # it was committed; only `db prune` deletes, and only old learners
        raise RuntimeError("a browser that conflicted on insert cannot be read back")
    return stored


def resolve_browser() -> None:
    """The ``before_request`` hook: find the browser, check CSRF, register before a write."""
    if not needs_browser():
        return
    secret_key = current_app.config["SECRET_KEY"]
    token = request.cookies.get(cookie_name(BROWSER_COOKIE)) or ""
    identity = find_browser(token) if token else None
    minted = False
    if identity is None and not (token.isascii() and len(token) <= MAX_TOKEN
                                 and minted_here(secret_key, token)):
        token, minted = mint_token(secret_key), True
    if request.method not in SAFE_METHODS:
        check_csrf(token)
        if identity is None:
            identity = register(token)
    g.visitor = Visitor(token, identity, minted)


def visitor() -> Visitor:
    """Return the browser ``resolve_browser`` found for this request."""
    found: Visitor | None = g.get("visitor")
    if found is None:
        raise RuntimeError("this view serves no browser")
    return found


def csrf_token() -> str:
    """Return the CSRF token this browser must echo (the cookie's, while it is valid)."""
    token = g.get("csrf_token_value")
    if token:
        return str(token)
    found: Visitor | None = g.get("visitor")
    if found is None:
        return ""
    secret_key = current_app.config["SECRET_KEY"]
    cookie = request.cookies.get(cookie_name(CSRF_COOKIE))
    if found.minted or not csrf_valid(secret_key, found.token, cookie):
        cookie = sign_csrf(secret_key, found.token, secrets.token_urlsafe(16))
    g.csrf_token_value = cookie
    return str(cookie)


def set_browser_cookies(response: Response) -> Response:
    """Set the browser cookie for a new id and a (re)signed CSRF cookie when needed."""
    found: Visitor | None = g.get("visitor")
    if found is None:
        return response
    secure = bool(current_app.config.get("COOKIE_SECURE"))
    if found.minted:
        response.set_cookie(cookie_name(BROWSER_COOKIE), found.token, max_age=COOKIE_MAX_AGE,
                            path="/", secure=secure, httponly=True, samesite="Lax")
    token = csrf_token()
    if token != request.cookies.get(cookie_name(CSRF_COOKIE)):
        response.set_cookie(cookie_name(CSRF_COOKIE), token, max_age=COOKIE_MAX_AGE, path="/",
                            secure=secure, httponly=False, samesite="Lax")
    response.vary.add("Cookie")
    return response


def init_app(app: Flask) -> None:
    """Install the browser hooks and the ``csrf_token()`` Jinja global."""
    app.before_request(resolve_browser)
    app.after_request(set_browser_cookies)
    app.jinja_env.globals["csrf_token"] = csrf_token
