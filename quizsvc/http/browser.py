"""Know the browser behind every request, once, for the API and the pages alike.

- The browser cookie carries a server-minted id: 256 random bits and an HMAC under
  ``SECRET_KEY`` (so an id the client made up is never adopted), HttpOnly, SameSite=Lax, Secure
  and ``__Host-``-prefixed when ``COOKIE_SECURE``. Only its sha256 is stored, and only from the
  browser's first state-changing request on: reading pages stores nothing, so a crawler or a
  client without cookies creates no rows.
- The CSRF cookie is readable by scripts; every POST/PUT/PATCH/DELETE must echo it in the
  ``X-CSRF-Token`` header or, for HTML forms, a hidden ``csrf_token`` field. It is an HMAC over
  the browser id, so a cookie planted by a sibling site for another browser does not pass.

- The identity cookie carries the stored browser's and its learner's ids with an HMAC over
  them and the browser id, so a request knows who it is without a database read; it is set
  when the browser is first stored (or first found without it) and when linking moves the
  browser to another learner (``switch_identity``), the only ways a browser's learner changes.

``resolve_browser`` (a ``before_request`` hook) reads the cookies and checks CSRF on state
changes; it records the result in ``flask.g`` once. ``visitor()`` and ``csrf_token()`` read it
back. The database is asked only when the view first asks for the browser's identity
(``stored_visitor``, which ``current_context`` calls): the browser is looked up when its
identity cookie is missing, and stored with a new learner on its first state change. By then
the view's rate limits and arguments have been checked, so a refused or malformed request
costs no database read and stores nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, replace

from flask import Flask, Request, Response, current_app, g, request
from flask.sessions import SessionInterface, SessionMixin
from sqlalchemy.exc import IntegrityError

from quizsvc.errors import N_, CsrfFailed
from quizsvc.http.cookies import BROWSER_COOKIE, CSRF_COOKIE, IDENTITY_COOKIE, cookie_name
from quizsvc.http.limits import count_new_browser
from quizsvc.runtime import now
from quizsvc.store.database import request_unit_of_work
from quizsvc.store.repository import Stale
from quizsvc.study.context import Identity
from quizsvc.study.linking import digest

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers accept
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
FORM_MIMETYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
# Blueprints whose views need no browser: probes, the OpenAPI document, author views and a
# cohort's instructor views (which have their own bearer tokens), Prometheus metrics.
WITHOUT_BROWSER = frozenset({"health", "api-docs", "author", "instructor", "metrics"})
# Views that change nothing of a browser not stored yet: an author signing in or out (only
# the browser's own cookie), a sandbox replay (it marks a stored learner's open questions
# open-book; a browser not stored has none). CSRF is checked, but no learner is made for them.
WITHOUT_REGISTRATION = frozenset({"web.author_sign_in", "web.author_sign_out",
                                  "simulate.Simulate"})
TOKEN_BYTES = 32  # 256 bits of the browser id
MAC_CHARS = 32  # hex characters of an HMAC kept in a token
MAX_TOKEN = 200  # longer cookie values are not ours


@dataclass(frozen=True)
class Visitor:
    """The browser behind this request: its cookie id and, once stored, its identity."""

    token: str
    identity: Identity | None
    minted: bool  # a new id for this browser, to set in its cookie
    new_identity: bool = False  # the identity cookie is to be (re)set
    forgotten: bool = False  # the identity cookie names a browser no longer stored
    erased: bool = False  # the learner erased everything: every cookie of ours goes
    unresolved: bool = False  # the browser is still to be looked up (no identity cookie)
    to_store: bool = False  # a state change from a browser not stored yet: store it first


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


def sign_identity(secret_key: str, browser_token: str, identity: Identity) -> str:
    """Return the identity cookie of a stored browser: its ids and their HMAC with its id."""
    ids = f"{identity.browser_id}.{identity.learner_id}"
    return f"{ids}.{mac(secret_key, f'identity:{browser_token}:{ids}')}"


def signed_identity(secret_key: str, browser_token: str, value: str) -> Identity | None:
    """Return the identity an identity cookie vouches for this browser (None: not ours)."""
    browser_id, _, rest = value.partition(".")
    learner_id, _, signature = rest.partition(".")
    if not (browser_id.isdigit() and learner_id.isdigit()) or len(value) > MAX_TOKEN:
        return None
    if not same_text(signature, mac(secret_key,
                                     f"identity:{browser_token}:{browser_id}.{learner_id}")):
        return None
    return Identity(learner_id=int(learner_id), browser_id=int(browser_id))


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
    g.csrf_token_value = cookie  # checked: the response need not check it again


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
    uow = request_unit_of_work()
    with uow.read():
        row = uow.learners.browser_by_hash(digest(token))
    return None if row is None else Identity(learner_id=row.learner_id, browser_id=row.id)


def register(token: str) -> Identity:
    """Store a new learner and this browser, before the browser's first state change.

    When another first write of the same browser stored it in the meantime (two tabs, a
    double submit), take that row: the learner made here is rolled back, and neither request
    fails on the browser's unique token hash.
    """
    count_new_browser()
    uow = request_unit_of_work()
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
    """The ``before_request`` hook: read the cookies, check CSRF; no database yet."""
    if not needs_browser():
        return
    secret_key = current_app.config["SECRET_KEY"]
    token = request.cookies.get(cookie_name(BROWSER_COOKIE)) or ""
    identity = None
    looked_up = unresolved = minted = False
    if token:
        identity = signed_identity(secret_key, token,
                                   request.cookies.get(cookie_name(IDENTITY_COOKIE)) or "")
    if identity is None:
        if token.isascii() and len(token) <= MAX_TOKEN and minted_here(secret_key, token):
            unresolved = True  # looked up when the view first asks (``stored_visitor``)
        elif token:  # an id this deployment did not mint is kept only if it is stored
            identity, looked_up = find_browser(token), True
        if identity is None and not unresolved:
            token, minted = mint_token(secret_key), True
    to_store = False
    if request.method not in SAFE_METHODS:
        check_csrf(token)
        to_store = identity is None and request.endpoint not in WITHOUT_REGISTRATION
    g.visitor = Visitor(token, identity, minted, new_identity=looked_up and identity is not None,
                        unresolved=unresolved, to_store=to_store)


def stored_visitor() -> Visitor | None:
    """Return this request's browser (None for a view that serves none): looked up first when
    its identity cookie did not name it, and stored with a new learner when this is its first
    state change and it was not found."""
    found: Visitor | None = g.get("visitor")
    if found is None or not (found.unresolved or found.to_store):
        return found
    identity, new_identity = found.identity, found.new_identity
    if found.unresolved:
        identity = find_browser(found.token)
        new_identity = identity is not None
    if identity is None and found.to_store:
        identity, new_identity = register(found.token), True
    found = g.visitor = replace(found, identity=identity, new_identity=new_identity,
                                unresolved=False, to_store=False)
    return found


def switch_identity(identity: Identity) -> None:
    """Make this request's browser belong to ``identity`` from now on (after linking moved
    it): the rest of the request sees it, and the response carries its identity cookie."""
    g.visitor = replace(visitor(), identity=identity, new_identity=True, unresolved=False,
                        to_store=False)


def forget_browser() -> None:
    """Forget this request's browser after its learner was erased: the response clears the
    browser, identity and CSRF cookies, so nothing on the device names the erased learner."""
    g.visitor = replace(visitor(), identity=None, erased=True, unresolved=False,
                        to_store=False)


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
    if found.erased:
        for name, httponly in ((BROWSER_COOKIE, True), (IDENTITY_COOKIE, True),
                               (CSRF_COOKIE, False)):
            response.delete_cookie(cookie_name(name), path="/", secure=secure,
                                   httponly=httponly, samesite="Lax")
        response.vary.add("Cookie")
        return response
    if found.minted:
        response.set_cookie(cookie_name(BROWSER_COOKIE), found.token, max_age=COOKIE_MAX_AGE,
                            path="/", secure=secure, httponly=True, samesite="Lax")
    if found.forgotten:
        response.delete_cookie(cookie_name(IDENTITY_COOKIE), path="/", secure=secure,
                               httponly=True, samesite="Lax")
    elif found.new_identity and found.identity is not None:
        response.set_cookie(cookie_name(IDENTITY_COOKIE),
                            sign_identity(current_app.config["SECRET_KEY"], found.token,
                                          found.identity),
                            max_age=COOKIE_MAX_AGE, path="/", secure=secure, httponly=True,
                            samesite="Lax")
    token = csrf_token()
    if token != request.cookies.get(cookie_name(CSRF_COOKIE)):
        response.set_cookie(cookie_name(CSRF_COOKIE), token, max_age=COOKIE_MAX_AGE, path="/",
                            secure=secure, httponly=False, samesite="Lax")
    response.vary.add("Cookie")
    return response


def forgotten_browser(error: IntegrityError) -> Response:
    """Answer a write refused by the database: 409 when this browser's identity cookie names
    a browser no longer stored (``quizsvc db prune`` removed an empty learner, or a learner
    erased its data), else the error as any other database error.

    The cookie is dropped, so the next request looks the browser up, finds nothing and starts
    a new learner; nothing of the old one was left to lose.
    """
    from quizsvc.http.errors import error_response, handle_database_error

    found: Visitor | None = g.get("visitor")
    if (found is None or found.identity is None or found.new_identity
            or find_browser(found.token) is not None):
        return handle_database_error(error)
    g.visitor = replace(found, identity=None, forgotten=True)
    return error_response(409, "browser_forgotten", "This browser's learner is no longer stored "
                          "here; send the request again to start afresh.")


class NoFlaskSession(SessionInterface):
    """Keep no Flask session: the cookies above are all the state a browser carries.

    Flask's default opens its signed session cookie on every request, building a signing
    serializer each time, for a session nothing here reads; Flask's null session refuses any
    write to it, so a view that starts using one fails loudly instead of going unsaved.
    """

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:
        """Return the null session (nothing is read)."""
        return self.make_null_session(app)

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        """Save nothing (Flask does not call this for the null session)."""


def init_app(app: Flask) -> None:
    """Install the browser hooks, the ``csrf_token()`` Jinja global, and the answer to a
    write from a browser whose identity the database no longer holds; keep no Flask
    session."""
    app.session_interface = NoFlaskSession()
    app.before_request(resolve_browser)
    app.after_request(set_browser_cookies)
    app.register_error_handler(IntegrityError, forgotten_browser)
    app.jinja_env.globals["csrf_token"] = csrf_token
