"""The names of the service's cookies, shared by the browser hooks and the rate limits.

The rate limits count a request by its browser cookie, and the browser hooks count a new
browser against a limit: both read the names here, so neither module imports the other.
"""

from __future__ import annotations

from flask import current_app

BROWSER_COOKIE = "quizsvc_browser"
IDENTITY_COOKIE = "quizsvc_identity"
CSRF_COOKIE = "csrf_token"
SECURE_PREFIX = "__Host-"  # a Secure cookie set by this host for "/" only, never a sibling's


def cookie_name(base: str) -> str:
    """Return a cookie's name: ``__Host-`` prefixed when cookies are Secure."""
    return SECURE_PREFIX + base if current_app.config.get("COOKIE_SECURE") else base
