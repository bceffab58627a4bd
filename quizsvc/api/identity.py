"""Give each browser a cookie identity, defend state changes with double-submit CSRF tokens.

- ``quizsvc_browser``: 256 random bits, HttpOnly, SameSite=Lax (Secure when
  ``COOKIE_SECURE``); set on the browser's first request. Only its sha256 is stored.
- ``csrf_token``: readable by scripts; every POST/PUT/PATCH/DELETE must echo it in the
  ``X-CSRF-Token`` header or, for HTML forms, a hidden ``csrf_token`` field. The token is
  signed with ``SECRET_KEY`` over the browser id, so a cookie planted by a sibling site for
  another browser does not pass.

``current_context()`` builds the ``Context`` every service function takes; the web pages call
it too. ``csrf_token()`` (also a Jinja global) returns the token a form must carry.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request

from quizsvc.api.services import identity as identity_service
from quizsvc.api.services.context import Context, Identity
from quizsvc.errors import CsrfFailed, ServiceError
from quizsvc.store.session import begin_read_only, get_session

BROWSER_COOKIE = "quizsvc_browser"
CSRF_COOKIE = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers accept
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

F = TypeVar("F", bound=Callable[..., Any])


class BankUnavailable(ServiceError):
    """Raise when the question bank cannot be loaded (the service is not ready to teach)."""

    status = 503
    code = "bank_unavailable"


def without_identity(view: F) -> F:
    """Mark a view that needs no browser identity (health checks, the OpenAPI document)."""
    view.quizsvc_without_identity = True  # type: ignore[attr-defined]
    return view


def identity_loaded_by_view(view: F) -> F:
    """Mark a view that finds its browser itself: ``load_identity`` does not run before it.

    The view must either establish the identity (``adopt_identity``) or call
    ``load_identity()`` before anything else can answer, so that unknown browsers, CSRF
    failures and errors come out exactly as for any other view. Only for a hot path that
    folds the browser lookup into its own query (``POST /api/attempts``).
    """
    view.quizsvc_identity_loaded_by_view = True  # type: ignore[attr-defined]
    return view


def view_flag(name: str) -> bool:
    """Read a marker from the matched view (for a MethodView: from its handler method)."""
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, name, False):
        return True
    handler = getattr(getattr(view, "view_class", None), request.method.lower(), None)
    return bool(getattr(handler, name, False))


def identity_needs() -> tuple[bool, bool]:
    """Return whether the matched view needs a browser identity, and whether it finds its own.

    Worked out once per endpoint and method: every request asks, and the answer never changes.
    """
    req = request._get_current_object()  # type: ignore[attr-defined]
    key = (req.endpoint, req.method)
    known: dict[tuple[str | None, str], tuple[bool, bool]] = current_app.extensions.setdefault(
        "quizsvc.identity_needs", {})
    needs = known.get(key)
    if needs is None:
        needs = known[key] = (needs_identity(), view_flag("quizsvc_identity_loaded_by_view"))
    return needs


def utc_now() -> datetime:
    """Return the current app's clock reading (tests inject ``CLOCK``)."""
    clock: Callable[[], datetime] = current_app.config.get("CLOCK") or (
        lambda: datetime.now(UTC))
    return clock()


def app_rng() -> random.Random:
    """Return the app's random source: seeded when ``RANDOM_SEED`` is set, else the OS's."""
    rng = current_app.extensions.get("quizsvc.rng")
    if rng is None:
        seed = current_app.config.get("RANDOM_SEED")
        rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
        current_app.extensions["quizsvc.rng"] = rng
    return rng


def get_bank() -> Any:
    """Return the app's question bank, loading it once (``BANK`` in config overrides)."""
    bank = current_app.extensions.get("quizsvc.bank")
    if bank is not None:
        return bank
    bank = current_app.config.get("BANK")
    if bank is None:
        try:
            from quizsvc.bank import load_bank
        except ImportError as error:
            raise BankUnavailable("The question bank is not installed.") from error
        bank = load_bank()
    current_app.extensions["quizsvc.bank"] = bank
    return bank


def sign_csrf(secret_key: str, browser_token: str, nonce: str) -> str:
    """Return the CSRF token for ``nonce``, bound to this browser by an HMAC."""
    mac = hmac.new(secret_key.encode(), f"{browser_token}.{nonce}".encode(), hashlib.sha256)
    return f"{nonce}.{mac.hexdigest()[:32]}"


def csrf_valid(secret_key: str, browser_token: str, token: str | None) -> bool:
    """Tell whether ``token`` was signed for this browser."""
    if not token or token.count(".") != 1:
        return False
    nonce = token.split(".", 1)[0]
    return hmac.compare_digest(sign_csrf(secret_key, browser_token, nonce), token)


def needs_identity() -> bool:
    """Tell whether the matched view wants a browser identity."""
    if request.endpoint is None or request.endpoint == "static":
        return False
    if request.blueprint == "api-docs" or request.endpoint.endswith(".static"):
        return False
    return not view_flag("quizsvc_without_identity")


def load_identity_before_view() -> None:
    """The ``before_request`` hook: ``load_identity`` unless the view finds its own browser."""
    needed, found_by_view = identity_needs()
    if needed and not found_by_view:
        load_identity()


def load_identity() -> None:
    """Resolve (or create) the browser behind the cookie, then check CSRF on state changes."""
    if not identity_needs()[0]:
        return
    session = get_session()
    token = request.cookies.get(BROWSER_COOKIE)
    identity = None
    if token:
        # A read-only transaction (on SQLite it takes no writer lock), ended before the
        # use case opens its own: SQLite has one writer, so every request's lookup would
        # otherwise queue behind the other workers' use cases.
        begin_read_only(session)
        identity = identity_service.identify(session, token)
        session.rollback()
    if identity is None:
        # Unknown or missing: always mint a fresh id rather than adopt one the client chose.
        token = identity_service.new_browser_token()
        identity = identity_service.register_browser(session, token, utc_now())
        g.new_browser_token = token
    g.browser_token = token
    g.identity = identity
    if request.method not in SAFE_METHODS:
        check_csrf(token)


def csrf_checked_browser_token() -> str | None:
    """Return the browser cookie of a request whose CSRF echo is right for it, else None.

    The checks ``check_csrf`` makes, made before knowing whether the browser is known (no
    database is read): a view marked ``identity_loaded_by_view`` uses the token only if this
    passes, and otherwise calls ``load_identity()``, which refuses the request as usual.
    """
    token = request.cookies.get(BROWSER_COOKIE)
    return token if token and csrf_echoed_for(token) else None


def adopt_identity(token: str, identity: Identity) -> None:
    """Record the identity a view found for a ``csrf_checked_browser_token`` (whose CSRF
    cookie is therefore valid, and is kept): what ``load_identity`` would have recorded."""
    flask_g = g._get_current_object()  # type: ignore[attr-defined]
    flask_g.browser_token = token
    flask_g.identity = identity
    flask_g.csrf_token_value = request.cookies.get(CSRF_COOKIE)


def submitted_csrf_token() -> str | None:
    """Return the CSRF token the request echoes: the header, else the form field."""
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    if request.mimetype in {"application/x-www-form-urlencoded", "multipart/form-data"}:
        return request.form.get(CSRF_FIELD)
    return None


def csrf_echoed_for(browser_token: str) -> bool:
    """Tell whether the request echoes its CSRF cookie and that cookie is this browser's."""
    cookie = request.cookies.get(CSRF_COOKIE)
    echoed = submitted_csrf_token()
    return bool(cookie and echoed and hmac.compare_digest(cookie, echoed)
                and csrf_valid(current_app.config["SECRET_KEY"], browser_token, cookie))


def check_csrf(browser_token: str) -> None:
    """Refuse a state change unless the echoed token equals the cookie and is this browser's."""
    if not csrf_echoed_for(browser_token):
        raise CsrfFailed(
            f"Missing or wrong CSRF token: echo the {CSRF_COOKIE} cookie in the "
            f"{CSRF_HEADER} header (or a {CSRF_FIELD} form field).",
            {"headers": {CSRF_HEADER: ["missing or does not match the csrf_token cookie"]}},
        )


def csrf_token() -> str:
    """Return the CSRF token this browser must echo (reusing the cookie's if still valid)."""
    token = g.get("csrf_token_value")
    if token:
        return token
    browser_token = g.get("browser_token")
    if browser_token is None:
        return ""
    secret_key = current_app.config["SECRET_KEY"]
    cookie = request.cookies.get(CSRF_COOKIE)
    if not csrf_valid(secret_key, browser_token, cookie):
        cookie = sign_csrf(secret_key, browser_token, secrets.token_urlsafe(16))
    g.csrf_token_value = cookie
    return cookie


def set_identity_cookies(response: Response) -> Response:
    """Set the browser cookie for new browsers and a (re)signed CSRF cookie when needed."""
    flask_g = g._get_current_object()  # type: ignore[attr-defined]
    if flask_g.get("browser_token") is None:
        return response
    req = request._get_current_object()  # type: ignore[attr-defined]
    new_token = flask_g.get("new_browser_token")
    token = csrf_token()
    if new_token or token != req.cookies.get(CSRF_COOKIE):
        secure = bool(current_app.config.get("COOKIE_SECURE"))
        if new_token:
            response.set_cookie(BROWSER_COOKIE, new_token, max_age=COOKIE_MAX_AGE, path="/",
                                secure=secure, httponly=True, samesite="Lax")
        if token != req.cookies.get(CSRF_COOKIE):
            response.set_cookie(CSRF_COOKIE, token, max_age=COOKIE_MAX_AGE, path="/",
                                secure=secure, httponly=False, samesite="Lax")
    response.vary.add("Cookie")
    if req.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def current_identity() -> Identity:
    """Return the identity ``load_identity`` resolved for this request."""
    identity = g.get("identity")
    if identity is None:
        raise RuntimeError("this view was marked without_identity")
    return identity


def current_context() -> Context:
    """Build the ``Context`` for a service call from the current request."""
    return context_for(current_identity())


def context_for(identity: Identity) -> Context:
    """Build the ``Context`` for a service call on behalf of ``identity``."""
    return Context(
        session_source=get_session,
        bank_source=get_bank,
        identity=identity,
        now=utc_now(),
        rng=app_rng(),
        config=current_app.config,
    )


def init_app(app: Flask) -> None:
    """Install the identity and CSRF hooks and the ``csrf_token()`` Jinja global."""
    app.before_request(load_identity_before_view)
    app.after_request(set_identity_cookies)
    app.jinja_env.globals["csrf_token"] = csrf_token
