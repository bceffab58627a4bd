"""Count what the service does for Prometheus, at ``/metrics``, only where configured.

``METRICS`` (``QUIZSVC_METRICS``) decides: unset or ``0``, no metric is kept and ``/metrics``
answers 404 like any unknown page; ``1``, anyone who can reach the port may read them; any
other value is a token that ``/metrics`` requires as ``Authorization: Bearer <token>`` (401
without it). The metrics:

- ``quizsvc_http_request_duration_seconds`` (histogram): every request by ``method``,
  ``route`` (the URL rule, e.g. ``/api/sessions/<string:session_id>/next``: ids never make
  labels) and ``status``;
- ``quizsvc_answers_graded_total`` by ``outcome`` (``right``/``wrong``): closed answers graded
  (the API's and the pages'; a replay of an Idempotency-Key and a flashcard are not counted);
- ``quizsvc_sandbox_replays_total`` and ``quizsvc_imports_total`` by ``outcome``: ``done``
  (2xx), ``refused`` (4xx: a rate limit, the CPU budget, a bound, a body too large) or
  ``failed`` (5xx), counted per request of the routes that do that work (``WORK_ROUTES``);
- ``quizsvc_queue_depth`` (gauge) by ``queue``: whatever ``set_queue_depth`` was last told.

Under gunicorn every worker is a process of its own: ``quizsvc serve`` points
``PROMETHEUS_MULTIPROC_DIR`` at an empty folder before gunicorn starts (prometheus_client's
multiprocess mode: each process writes its values to files there), and ``/metrics`` adds up
every worker's, whichever worker answers the scrape. Without that variable (tests, one
process) the app's own registry is read.
"""

from __future__ import annotations

import hmac
import os
import tempfile
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from quizsvc.config import FALSE_WORDS, TRUE_WORDS
from quizsvc.http.errors import error_response

KEY = "quizsvc.metrics"
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
# Seconds: a page or an answer takes milliseconds; a sandbox replay or an import up to seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0)
UNMATCHED = "(unmatched)"  # the route label of a request no URL rule matched (a 404)
# (method, endpoint) -> the costly work that route does.
WORK_ROUTES = {
    ("POST", "simulate.Simulate"): "sandbox",
    ("GET", "web.simulator"): "sandbox",
    ("POST", "portability.Import"): "import",
}

bp = Blueprint("metrics", __name__)


@dataclass(frozen=True)
class Metrics:
    """One app's metrics and the registry that holds them."""

    registry: CollectorRegistry
    requests: Histogram
    answers: Counter
    work: dict[str, Counter]
    queue_depth: Gauge


def new_metrics() -> Metrics:
    """Create the service's metrics in a registry of their own (one per app)."""
    registry = CollectorRegistry()
    return Metrics(
        registry=registry,
        requests=Histogram("quizsvc_http_request_duration_seconds",
                           "Time to answer a request, by method, URL rule and status.",
                           ("method", "route", "status"), buckets=LATENCY_BUCKETS,
                           registry=registry),
        answers=Counter("quizsvc_answers_graded", "Closed answers graded, right or wrong.",
                        ("outcome",), registry=registry),
        work={
            "sandbox": Counter("quizsvc_sandbox_replays",
                               "Sandbox replay requests: done, refused (4xx) or failed (5xx).",
                               ("outcome",), registry=registry),
            "import": Counter("quizsvc_imports",
                              "Import requests: done, refused (4xx) or failed (5xx).",
                              ("outcome",), registry=registry),
        },
        queue_depth=Gauge("quizsvc_queue_depth", "Jobs waiting in a queue of costly work.",
                          ("queue",), multiprocess_mode="mostrecent", registry=registry),
    )


def metrics_access(setting: Any) -> tuple[bool, str | None]:
    """Read ``METRICS``: whether metrics are kept, and the bearer token they need (if any)."""
    word = "" if setting is None else str(setting).strip()
    if word.lower() in FALSE_WORDS:
        return False, None
    if word.lower() in TRUE_WORDS:
        return True, None
    return True, word


def app_metrics() -> Metrics | None:
    """Return the current app's metrics (None when they are off)."""
    found: Metrics | None = current_app.extensions.get(KEY)
    return found


def outcome_of(status: int) -> str:
    """Say what a response status means for the work it answers."""
    if status >= 500:
        return "failed"
    return "refused" if status >= 400 else "done"


def observe_request(metrics: Metrics, status: int, seconds: float) -> None:
    """Count the current request: its latency by route and status, and any costly work."""
    rule = request.url_rule
    metrics.requests.labels(request.method, rule.rule if rule else UNMATCHED,
                            str(status)).observe(seconds)
    work = WORK_ROUTES.get((request.method, request.endpoint or ""))
    if work is not None:
        metrics.work[work].labels(outcome_of(status)).inc()


def answer_graded(correct: bool) -> None:
    """Count one closed answer graded (call it where a new grade is returned, not a replay)."""
    metrics = app_metrics()
    if metrics is not None:
        metrics.answers.labels("right" if correct else "wrong").inc()


def set_queue_depth(depth: int, queue: str = "default") -> None:
    """Report how many jobs wait in ``queue`` now (the newest report wins across workers)."""
    metrics = app_metrics()
    if metrics is not None:
        metrics.queue_depth.labels(queue).set(depth)


def exposition_registry(metrics: Metrics) -> CollectorRegistry:
    """Return what a scrape reads: every worker's files in multiprocess mode, else the app's."""
    if os.environ.get(MULTIPROCESS_DIR):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return metrics.registry


@bp.get("/metrics")
def scrape() -> Response:
    """Answer Prometheus: the metrics in its text format, when enabled (and authorised)."""
    metrics = app_metrics()
    if metrics is None:
        abort(404)
    _, token = metrics_access(current_app.config.get("METRICS"))
    if token is not None:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.encode("utf-8", "surrogateescape"), token.encode()):
            refused = error_response(401, "unauthorized",
                                     "The metrics need Authorization: Bearer <QUIZSVC_METRICS>.")
            refused.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return refused
    body = generate_latest(exposition_registry(metrics))
    return Response(body, mimetype=None, content_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})


def prepare_multiprocess_dir(environ: MutableMapping[str, str]) -> Path:
    """Point ``PROMETHEUS_MULTIPROC_DIR`` at an empty folder before the workers start.

    A folder the operator named is emptied of the last run's files (prometheus_client would
    add them to this run's counts); otherwise a new temporary folder is made.
    """
    named = environ.get(MULTIPROCESS_DIR)
    if named:
        folder = Path(named)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink()
    else:
        folder = Path(tempfile.mkdtemp(prefix="quizsvc-metrics-"))
        environ[MULTIPROCESS_DIR] = str(folder)
    return folder


def init_app(app: Flask) -> None:
    """Keep metrics when ``METRICS`` says so, and serve ``/metrics`` (404 when they are off)."""
    enabled, _ = metrics_access(app.config.get("METRICS"))
    if enabled:
        app.extensions[KEY] = new_metrics()
    app.register_blueprint(bp)
