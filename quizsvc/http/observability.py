"""Watch every request from its first hook to its last: its id, its log line, its metrics.

The first ``before_request`` hook notes when the request began and gives it its id (so even
a request the body checks or CSRF refuse has one); the last ``after_request`` hook sends the
id back in ``X-Request-Id``, counts the request in the metrics (when they are on) and writes
the line that closes it (``quizsvc.http.logs``). Pages and the error envelope read the same
id (``request_id`` is a Jinja global).
"""

from __future__ import annotations

import time

from flask import Flask, Response, g

from quizsvc.http import metrics
from quizsvc.http.logs import log_request
from quizsvc.http.request_id import request_id, send_request_id


def begin_request() -> None:
    """Note when the request began and choose its id."""
    g.request_began = time.perf_counter()
    request_id()


def end_request(response: Response) -> Response:
    """Send the id back, count the request and log it (the last hook to see the response)."""
    seconds = time.perf_counter() - g.get("request_began", time.perf_counter())
    found = metrics.app_metrics()
    if found is not None:
        metrics.observe_request(found, response.status_code, seconds)
    log_request(response.status_code, seconds * 1000)
    return send_request_id(response)


def init_app(app: Flask) -> None:
    """Install the hooks first in line (before) and last in line (after), and metrics."""
    app.before_request_funcs.setdefault(None, []).insert(0, begin_request)
    # Flask runs after_request hooks last-registered first: the first in the list runs last.
    app.after_request_funcs.setdefault(None, []).insert(0, end_request)
    app.jinja_env.globals["request_id"] = request_id
    metrics.init_app(app)
