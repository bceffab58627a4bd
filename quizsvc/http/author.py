"""Know an author: the bearer token of the API, and the signed-in author of the pages.

The API takes ``Authorization: Bearer <AUTHOR_TOKEN>`` on every request. A browser cannot
send a header from a link, and a token in a URL would land in logs and history, so the pages
sign an author in with a form: the token is posted once (CSRF-checked, in the body, never in
a URL), compared in constant time, and answered with a cookie that holds no token: an issue
time and an HMAC under ``SECRET_KEY`` over that time, the browser's own id and the token. So
the cookie works only in the browser it was given to, only for ``AUTHOR_SESSION`` and only
while the token stays the same (changing ``AUTHOR_TOKEN`` signs every author out). Signing in
stores nothing: the browser is not registered as a learner.

With no ``AUTHOR_TOKEN`` configured, author views do not exist (404).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta

from flask import Response, current_app, request

from quizsvc.errors import N_, NotFound, Unauthorized
from quizsvc.http.browser import visitor
from quizsvc.http.cookies import cookie_name

AUTHOR_COOKIE = "quizsvc_author"
AUTHOR_SESSION = timedelta(hours=12)
AUTHOR_PATH = "/author"  # the cookie goes only to the author pages


def configured_token() -> str:
    """Return the configured author token, or raise ``NotFound`` when there is none."""
    token = current_app.config.get("AUTHOR_TOKEN")
    if not token:
        raise NotFound(N_("Author views are not enabled."), reason="author_disabled")
    return str(token)


def token_matches(given: str) -> bool:
    """Tell, in constant time, whether ``given`` is the configured author token."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                               configured_token().encode())


def require_bearer() -> None:
    """Refuse a request without ``Authorization: Bearer <AUTHOR_TOKEN>`` (401; 404 when no
    token is configured, whatever the request sends)."""
    configured_token()
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token_matches(value):
        raise Unauthorized(N_("This view needs the author token."),
                           {"headers": {"Authorization": ["Bearer <author token>"]}},
                           reason="author_token")


def session_mac(issued: int, browser_token: str) -> str:
    """Return the HMAC that signs an author session issued at ``issued`` (epoch seconds)."""
    message = f"author|{issued}|{browser_token}|{configured_token()}".encode()
    return hmac.new(current_app.config["SECRET_KEY"].encode(), message,
                    hashlib.sha256).hexdigest()


def signed_in(now: datetime) -> bool:
    """Tell whether this browser holds a valid author session (404 with no token set)."""
    configured_token()
    value = request.cookies.get(cookie_name(AUTHOR_COOKIE)) or ""
    issued_text, _, mac = value.partition(".")
    if not issued_text.isdigit() or len(issued_text) > 12:
        return False
    issued = int(issued_text)
    if not 0 <= now.timestamp() - issued <= AUTHOR_SESSION.total_seconds():
        return False
    return hmac.compare_digest(mac, session_mac(issued, visitor().token))


def require_signed_in(now: datetime) -> None:
    """Refuse a page request without an author session (401; 404 with no token set)."""
    if not signed_in(now):
        raise Unauthorized(N_("This page needs the author token: sign in first."),
                           reason="author_sign_in")


def sign_in(response: Response, now: datetime) -> Response:
    """Give the browser an author session cookie (after ``token_matches``)."""
    issued = int(now.timestamp())
    response.set_cookie(
        cookie_name(AUTHOR_COOKIE), f"{issued}.{session_mac(issued, visitor().token)}",
        max_age=int(AUTHOR_SESSION.total_seconds()), path=author_cookie_path(),
        secure=bool(current_app.config.get("COOKIE_SECURE")), httponly=True,
        samesite="Strict")
    return response


def sign_out(response: Response) -> Response:
    """Drop the browser's author session cookie."""
    response.delete_cookie(cookie_name(AUTHOR_COOKIE), path=author_cookie_path(),
                           secure=bool(current_app.config.get("COOKIE_SECURE")),
                           httponly=True, samesite="Strict")
    return response


def author_cookie_path() -> str:
    """Return the cookie's path: the author pages, or "/" for a ``__Host-`` cookie (which
    browsers accept only with that path)."""
    return "/" if current_app.config.get("COOKIE_SECURE") else AUTHOR_PATH
