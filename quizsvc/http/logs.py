"""Write logs as one JSON object per line, each naming the request it was written in.

Every line has the same keys: ``time`` (UTC, RFC 3339 with milliseconds), ``level``,
``logger``, ``message``, ``request_id``, ``method``, ``route`` (the URL rule, e.g.
``/api/sessions/<string:session_id>/next``, never the raw path with its ids), ``status`` and
``duration_ms``; a key that does not apply is null (a line written outside a request has no
request id; only the line that closes a request has its status and duration). A line written
with an exception adds ``exception``, its traceback as one string.

``configure_logging`` installs this on the root logger; ``quizsvc serve`` (gunicorn's
``serving_app``) calls it with ``LOG_FORMAT`` and ``LOG_LEVEL``. ``log_request`` writes the
line that closes each request, on the ``quizsvc.request`` logger at INFO.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

from flask import has_request_context, request

from quizsvc.http.request_id import request_id

REQUEST_LOGGER = "quizsvc.request"
REQUEST_FIELDS = ("request_id", "method", "route", "status", "duration_ms")
FORMATS = ("json", "text")


def route_of_request() -> str | None:
    """Return the matched URL rule of the current request (None: no URL matched)."""
    rule = request.url_rule
    return None if rule is None else rule.rule


class RequestContext(logging.Filter):
    """Name the request a record was written in: its id, method and route."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add the request's fields to ``record`` (None outside a request); keep the record."""
        inside = has_request_context()
        for name, value in (("request_id", request_id() if inside else None),
                            ("method", request.method if inside else None),
                            ("route", route_of_request() if inside else None)):
            if getattr(record, name, None) is None:
                setattr(record, name, value)
        return True


class JsonFormatter(logging.Formatter):
    """Format a record as one line of JSON with the same keys every time."""

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as a JSON object on one line."""
        moment = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in REQUEST_FIELDS:
            line[name] = getattr(record, name, None)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_handler(log_format: str = "json", stream: IO[str] | None = None) -> logging.Handler:
    """Return a handler that writes ``log_format`` lines (json or text) to ``stream``."""
    if log_format not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(RequestContext())
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"))
    return handler


def configure_logging(log_format: str = "json", level: str = "INFO",
                      stream: IO[str] | None = None) -> logging.Handler:
    """Send the root logger's records to one handler of ``log_format``; return the handler."""
    handler = log_handler(log_format, stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler


def log_request(status: int, duration_ms: float) -> None:
    """Write the line that closes the current request: its status and how long it took."""
    logger = logging.getLogger(REQUEST_LOGGER)
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s %s %s", request.method, request.path, status,
                    extra={"status": status, "duration_ms": round(duration_ms, 3)})
