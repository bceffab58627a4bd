"""Under gunicorn, /metrics adds up every worker's counts, and the logs are JSON lines.

``quizsvc serve`` with ``QUIZSVC_METRICS=1`` points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh
folder before gunicorn starts: each of the 3 workers writes its own counts there, and whichever
worker answers a scrape reads them all. Counted per worker, a scrape would show about a third
of the requests sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.live import migrated
from tests.support.reliability import Service, send, serve

WORKERS = 3
REQUESTS = 60


@pytest.fixture(scope="module")
def service(bank_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """Serve the app with metrics on, 3 workers, on a SQLite file of its own."""
    folder = tmp_path_factory.mktemp("metrics-workers")
    database = migrated(f"sqlite:///{folder / 'quizsvc.sqlite3'}")
    running = serve(database.url, bank_dir, WORKERS, folder / "gunicorn.log",
                    extra_env={"QUIZSVC_METRICS": "1", "QUIZSVC_LOG_FORMAT": "json"})
    try:
        yield running
    finally:
        running.stop()
        database.engine.dispose()


def healthz_count(service: Service) -> float:
    """Scrape /metrics; return how many GET /healthz 200s it counts."""
    reply = send(service.port, "GET", "/metrics")
    assert reply.status == 200, reply.body[:300]
    for family in text_string_to_metric_families(reply.body.decode()):
        for sample in family.samples:
            if (sample.name == "quizsvc_http_request_duration_seconds_count"
                    and sample.labels == {"method": "GET", "route": "/healthz",
                                          "status": "200"}):
                return sample.value
    return 0.0


def test_every_worker_s_requests_are_counted_whichever_worker_answers(service) -> None:
    before = healthz_count(service)
    for _ in range(REQUESTS):
        reply = send(service.port, "GET", "/healthz")
        assert reply.status == 200
    scrapes = [healthz_count(service) for _ in range(2 * WORKERS)]
    assert scrapes == [before + REQUESTS] * len(scrapes), service.log_tail()
    folder = next(line for line in service.log_tail(400).splitlines()
                  if "metrics at /metrics" in line).rsplit(" ", 1)[1]
    pids = {path.stem.rsplit("_", 1)[1] for path in Path(folder).glob("histogram_*.db")}
    assert len(pids) >= 2, pids  # more than one worker wrote counts


def test_the_workers_log_one_json_object_per_request(service) -> None:
    reply = send(service.port, "GET", "/healthz", headers={"X-Request-Id": "probe-1"})
    assert reply.headers["x-request-id"] == "probe-1"
    lines = [line for line in service.log_tail(400).splitlines() if line.startswith("{")]
    parsed = [json.loads(line) for line in lines]
    probe = [line for line in parsed if line["request_id"] == "probe-1"]
    assert len(probe) == 1, lines[-5:]
    assert probe[0]["route"] == "/healthz" and probe[0]["status"] == 200
