"""Send the headers every response carries: no private answer cached, no framing, no sniffing.

- ``Content-Security-Policy``: scripts, styles, images and requests from this origin only (the
  pages vendor everything and use no inline script or style), never framed by another site.
- ``X-Content-Type-Options: nosniff``, and ``Referrer-Policy: same-origin`` (a lesson link
  followed to another site does not carry a session's address).
- ``Cache-Control: no-store`` on every API response, the author views' included: they hold a
  learner's answers or a bank's; and on the author pages (``/author/``, the item analysis).
  The learners' pages keep the browser's defaults.

A few lines rather than flask-talisman: talisman's defaults (forcing HTTPS, its own session
cookie flags) overlap what ``COOKIE_SECURE`` and the reverse proxy already decide.
"""

from __future__ import annotations

from flask import Flask, Response, request

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
                               "form-action 'self'; object-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

NO_STORE_PATHS = ("/api/", "/author/")


def set_response_headers(response: Response) -> Response:
    """Add the security headers to every response, and no-store to API and author responses."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path.startswith(NO_STORE_PATHS):
        response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    """Install the response-header hook."""
    app.after_request(set_response_headers)
