"""Send the headers every response carries: no caching of private answers, no framing.

``Cache-Control: no-store`` on every API and author response (they hold a learner's answers,
or a bank's); the security headers on every response (``quizsvc.http.security``).
"""

from __future__ import annotations

from flask import Flask, Response, request


def set_cache_headers(response: Response) -> Response:
    """Keep shared caches from storing API responses."""
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def init_app(app: Flask) -> None:
    """Install the response-header hook."""
    app.after_request(set_cache_headers)
