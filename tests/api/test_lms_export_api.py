"""``POST /api/author/exports/{moodle,qti}``: the LMS exports through the API, behind the author
token, recorded as exported before the file is handed over (issue 25)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc import create_app
from quizsvc.bank import load_bank
from quizsvc.store.models import ExportedVariant
from tests.support.cohorts import AUTHOR_TOKEN, bearer

LESSON = "vllm-v1-ledger"


@pytest.fixture(scope="module")
def real_bank() -> Any:
    return load_bank()


@pytest.fixture
def exporter(app_config: dict[str, Any], connection: Any, real_bank: Any) -> Any:
    app = create_app({**app_config, "BANK": real_bank, "AUTHOR_TOKEN": AUTHOR_TOKEN})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app.test_client()


def export(client: Any, fmt: str, **body: Any) -> Any:
    return client.post(f"/api/author/exports/{fmt}", json={"lesson": LESSON, **body},
                       headers=bearer(AUTHOR_TOKEN))


def recorded(db: Any) -> int:
    db.expire_all()
    return int(db.scalar(select(func.count()).select_from(ExportedVariant)))


def test_a_moodle_export_is_the_file_the_command_writes_and_is_recorded(exporter, db,
                                                                        real_bank):
    from quizsvc.bank.lms.commands import WRITERS
    from quizsvc.bank.lms.exercises import exercise_set

    questions = [q.id for q in real_bank.questions_for(LESSON)
                 if real_bank.kinds[q.kind].graded][:2]
    response = export(exporter, "moodle", questions=questions, variants=3, seeds_from=77,
                      lang="en")
    assert response.status_code == 200, response.data[:300]
    assert response.mimetype == "application/xml"
    assert response.headers["X-Quizsvc-Seeds-From"] == "77"
    assert "attachment" in response.headers["Content-Disposition"]
    expected = WRITERS["moodle"](real_bank, exercise_set(real_bank, LESSON, questions, 3, 77),
                                 "en")
    assert response.data == expected  # the same seeds make the same file
    ET.fromstring(response.data)
    assert recorded(db) == 6  # two questions, three variants each
    again = export(exporter, "moodle", questions=questions, variants=3, seeds_from=77,
                   lang="en")
    assert again.headers["X-Quizsvc-Recorded"] == "0" and recorded(db) == 6


def test_a_qti_export_is_a_package(exporter, db, real_bank):
    question = next(q.id for q in real_bank.questions_for(LESSON) if q.kind == "numeric")
    response = export(exporter, "qti", questions=[question], variants=2, seeds_from=5)
    assert response.status_code == 200
    assert response.mimetype == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.data)) as package:
        assert "imsmanifest.xml" in package.namelist()
    assert recorded(db) == 2


def test_exports_need_the_author_token(exporter, client):
    assert exporter.post("/api/author/exports/moodle", json={"lesson": LESSON}
                         ).status_code == 401
    assert client.post("/api/author/exports/moodle", json={"lesson": LESSON},
                       headers=bearer(AUTHOR_TOKEN)).status_code == 404  # no token set


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"variants": 0}, 422, "variants"),
    ({"variants": 51}, 422, "variants"),
    ({"lang": "fr"}, 422, "lang"),
    ({"seeds_from": -1}, 422, "seeds_from"),
    ({"questions": ["no-such-question"]}, 404, None),
    ({"lesson": "no-such-lesson"}, 404, None),
])
def test_a_bad_export_request_is_refused_and_records_nothing(exporter, db, body, status,
                                                             field):
    response = export(exporter, "moodle", **body)
    assert response.status_code == status, response.json
    if field is not None:
        assert field in response.json["errors"]["json"]
    assert recorded(db) == 0


def test_an_unknown_format_is_404(exporter):
    assert export(exporter, "scorm").status_code == 404
