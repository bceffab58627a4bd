"""Prometheus metrics: off (404) unless configured; requests counted by URL rule and status.

Each test's app keeps its own registry, so a count here is exactly what that app saw. The
gunicorn run, where workers add up across processes, is
``tests/reliability/test_metrics_workers.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from quizsvc import create_app
from quizsvc.http.metrics import KEY, metrics_access, set_queue_depth
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID

LATENCY = "quizsvc_http_request_duration_seconds"
SPLIT = {"config": {"max_num_batched_tokens": 16},
         "requests": [{"id": "A", "prompt_len": 9, "max_tokens": 2}]}


def app_with(app_config: dict, connection: Any, **config: Any) -> Any:
    """Return an app on the test's connection with ``config`` on top."""
    app = create_app({**app_config, **config})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app


def scrape(client: Any, **headers: str) -> dict[tuple[str, frozenset], float]:
    """Read ``/metrics``; return every sample as {(name, labels): value}."""
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.data[:300]
    assert response.headers["Content-Type"].startswith("text/plain")
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.get_data(as_text=True))
            for sample in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    """Return one sample's value (0 when it was never counted)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


@pytest.mark.parametrize(("setting", "access"), [
    (None, (False, None)), ("", (False, None)), ("0", (False, None)), ("off", (False, None)),
    ("1", (True, None)), ("true", (True, None)), ("s3cret-token", (True, "s3cret-token")),
])
def test_the_setting_turns_metrics_on_with_or_without_a_token(setting, access) -> None:
    assert metrics_access(setting) == access


def test_metrics_are_off_by_default_and_the_url_does_not_exist(app, client) -> None:
    assert app.config["METRICS"] == ""
    assert KEY not in app.extensions
    response = client.get("/metrics")
    assert response.status_code == 404
    assert "quizsvc_" not in response.get_data(as_text=True)
    assert response.headers.getlist("Set-Cookie") == []


def test_requests_are_counted_by_url_rule_method_and_status(app_config, connection) -> None:
    app = app_with(app_config, connection, METRICS="1")
    study = Study(ApiBrowser(app), None, None)
    session = study.start(LESSON_ID, mode="quiz", size=2)
    study.next(session["id"])
    study.next(session["id"])
    client = study.browser.client
    assert client.get(f"/api/sessions/{session['id']}x/next").status_code == 404
    assert client.get("/no/such/url").status_code == 404
    samples = scrape(app.test_client())
    rule = "/api/sessions/<string:session_id>/next"
    assert value(samples, f"{LATENCY}_count", method="GET", route=rule, status="200") == 2
    assert value(samples, f"{LATENCY}_count", method="GET", route=rule, status="404") == 1
    assert value(samples, f"{LATENCY}_count", method="POST", route="/api/sessions",
                 status="201") == 1
    assert value(samples, f"{LATENCY}_count", method="GET", route="(unmatched)",
                 status="404") == 1
    assert value(samples, f"{LATENCY}_bucket", method="GET", route=rule, status="200",
                 le="+Inf") == 2
    assert value(samples, f"{LATENCY}_sum", method="GET", route=rule, status="200") > 0
    assert not any(session["id"] in dict(labels).get("route", "") for _, labels in samples)


def test_answers_graded_are_counted_right_and_wrong_once_each(app_config, connection, db,
                                                              bank) -> None:
    app = app_with(app_config, connection, METRICS="1")
    study = Study(ApiBrowser(app), db, bank)
    session = study.start(LESSON_ID, mode="quiz", size=2)
    first = study.next(session["id"])["question"]["variant_id"]
    assert study.answer(first, study.right_answer(first), key="right").status_code == 201
    replay = study.answer(first, study.right_answer(first), key="right")
    assert replay.headers.get("Idempotent-Replayed") == "true"  # not graded again
    second = study.next(session["id"])["question"]["variant_id"]
    assert study.answer(second, study.wrong_answer(second)).status_code == 201
    samples = scrape(app.test_client())
    assert value(samples, "quizsvc_answers_graded_total", outcome="right") == 1
    assert value(samples, "quizsvc_answers_graded_total", outcome="wrong") == 1


def test_sandbox_replays_and_imports_are_counted_done_and_refused(app_config,
                                                                  connection) -> None:
    app = app_with(app_config, connection, METRICS="1", SIMULATE_RATE_LIMIT="2/minute",
                   IMPORT_MAX_CONTENT_LENGTH=4000)
    browser = ApiBrowser(app)
    statuses = [browser.post("/api/simulate", json=SPLIT).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert browser.post("/api/import", json={"pad": "x" * 5000}).status_code == 413
    assert browser.post("/api/import", json={"pad": 1}).status_code == 422
    samples = scrape(app.test_client())
    assert value(samples, "quizsvc_sandbox_replays_total", outcome="done") == 2
    assert value(samples, "quizsvc_sandbox_replays_total", outcome="refused") == 1
    assert value(samples, "quizsvc_imports_total", outcome="refused") == 2
    assert value(samples, "quizsvc_imports_total", outcome="done") == 0


def test_the_queue_depth_is_what_it_was_last_told(app_config, connection) -> None:
    app = app_with(app_config, connection, METRICS="1")
    with app.app_context():
        set_queue_depth(7, "sandbox")
        set_queue_depth(3, "sandbox")
        set_queue_depth(1, "imports")
    samples = scrape(app.test_client())
    assert value(samples, "quizsvc_queue_depth", queue="sandbox") == 3
    assert value(samples, "quizsvc_queue_depth", queue="imports") == 1


def test_with_metrics_off_the_counting_functions_do_nothing(app) -> None:
    with app.app_context():
        set_queue_depth(3)  # no metrics kept, nothing raised
    assert KEY not in app.extensions


def test_a_token_guards_the_metrics(app_config, connection) -> None:
    app = app_with(app_config, connection, METRICS="s3cret-token")
    client = app.test_client()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token"}):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401, headers
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
        assert refused.json["reason"] == "unauthorized"
    samples = scrape(client, Authorization="Bearer s3cret-token")
    assert value(samples, f"{LATENCY}_count", method="GET", route="/metrics",
                 status="401") == 3
