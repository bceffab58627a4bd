"""Logs are one JSON object per line, with the same keys every time and the request's id."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from quizsvc.http.logs import REQUEST_LOGGER, configure_logging, log_handler

KEYS = {"time", "level", "logger", "message", "request_id", "method", "route", "status",
        "duration_ms"}


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """Send every record at INFO and above, as the JSON handler writes it, to a buffer."""
    stream = io.StringIO()
    handler = log_handler("json", stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def written(stream: io.StringIO) -> list[dict[str, Any]]:
    """Parse every line written so far (each must be one JSON object)."""
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_each_request_writes_one_line_naming_its_route_status_and_id(client, lines) -> None:
    response = client.get("/api/sessions/abc/next", headers={"X-Request-Id": "req-7"})
    closing = [line for line in written(lines) if line["logger"] == REQUEST_LOGGER]
    assert len(closing) == 1
    line = closing[0]
    assert set(line) == KEYS
    assert (line["level"], line["method"], line["route"], line["status"], line["request_id"]) \
        == ("INFO", "GET", "/api/sessions/<string:session_id>/next", 404, "req-7")
    assert response.headers["X-Request-Id"] == "req-7"
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["time"].endswith("Z") and "T" in line["time"]


def test_a_bug_is_logged_with_its_traceback_and_request_id(app, client, lines) -> None:
    @app.route("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    response = client.get("/boom")
    failure = next(line for line in written(lines) if line["level"] == "ERROR")
    assert failure["request_id"] == response.headers["X-Request-Id"] == response.json[
        "request_id"]
    assert failure["route"] == "/boom" and failure["status"] is None
    assert "RuntimeError: secret internals" in failure["exception"]
    assert "\n" not in lines.getvalue().splitlines()[0]


def test_a_line_outside_any_request_has_the_same_keys_with_nulls(lines) -> None:
    logging.getLogger("quizsvc.test").warning("starting %s", "up")
    (line,) = written(lines)
    assert set(line) == KEYS
    assert line["message"] == "starting up" and line["logger"] == "quizsvc.test"
    assert line["request_id"] is line["route"] is line["status"] is None


def test_configure_logging_puts_one_handler_on_the_root_logger() -> None:
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        stream = io.StringIO()
        handler = configure_logging("json", "WARNING", stream)
        assert root.handlers == [handler] and root.level == logging.WARNING
        logging.getLogger("quizsvc.x").info("dropped")
        logging.getLogger("quizsvc.x").warning("kept")
        assert [json.loads(x)["message"] for x in stream.getvalue().splitlines()] == ["kept"]
        with pytest.raises(ValueError, match="log format"):
            configure_logging("xml")
    finally:
        for extra in list(root.handlers):
            root.removeHandler(extra)
        for old in saved:
            root.addHandler(old)
        root.setLevel(level)
