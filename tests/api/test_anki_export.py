"""``GET /api/lessons/{id}/anki.apkg``: the lesson's Anki package, which holds the answers."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.store.models import Attempt, Mastery, ServedVariant
from tests.support.anki import anki_collection, import_package
from tests.support.fake_bank import LESSON_ID


@pytest.mark.parametrize("lang", ["zh", "en", "both"])
def test_the_package_downloads_as_an_apkg_file(browser: Any, lang: str) -> None:
    response = browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg?lang={lang}")
    assert response.status_code == 200
    assert response.mimetype == "application/apkg"
    assert response.headers["Content-Disposition"] == (
        f"attachment; filename=quizsvc-{LESSON_ID}-{lang}.apkg")
    names = zipfile.ZipFile(io.BytesIO(response.data)).namelist()
    assert "collection.anki2" in names


def test_the_language_defaults_to_chinese(browser: Any) -> None:
    response = browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg")
    assert response.headers["Content-Disposition"].endswith(f"{LESSON_ID}-zh.apkg")


def test_anki_imports_what_the_api_hands_out(browser: Any, tmp_path: Any) -> None:
    data = browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg?lang=en").data
    with anki_collection(tmp_path) as collection:
        log = import_package(collection, data, tmp_path / "deck.apkg")
        # The fake bank: a flashcard, an explain question, three worked examples of the
        # numeric one; its choice question has three contents, too few to spare one for a
        # deck, so the deck leaves it out (quizsvc.bank.publication).
        assert len(log.new) == 1 + 1 + 3
        assert len(collection.find_notes("tag:quizsvc::worked-example")) == 3


@pytest.mark.parametrize(("url", "status", "where"), [
    ("/api/lessons/no-such-lesson/anki.apkg", 404, None),
    (f"/api/lessons/{LESSON_ID}/anki.apkg?lang=fr", 422, "lang"),
    (f"/api/lessons/{LESSON_ID}/anki.apkg?mastery=1", 422, "mastery"),
])
def test_an_unknown_lesson_language_or_key_is_refused_in_the_envelope(
        browser: Any, url: str, status: int, where: str | None) -> None:
    response = browser.get(url)
    assert response.status_code == status
    assert response.json["code"] == status
    if where:
        assert where in response.json["errors"]["query"]


def test_the_answers_are_refused_while_a_question_is_open_until_the_book_is_opened(
        study: Any, db: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    served = study.next(session["id"])["question"]
    refused = study.browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg")
    assert refused.status_code == 409 and refused.json["reason"] == "questions_open"
    assert not db.get(ServedVariant, served["variant_id"]).open_book
    assert study.browser.post(f"/api/lessons/{LESSON_ID}/open-book").status_code == 200
    assert study.browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg").status_code == 200
    db.expire_all()
    assert db.get(ServedVariant, served["variant_id"]).open_book
    result = study.answer(served["variant_id"], study.right_answer(served["variant_id"]))
    assert result.json["correct"] and not result.json["closed_book"]


def test_another_learners_download_leaves_this_learners_book_closed(study: Any, db: Any,
                                                                   new_browser: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    served = study.next(session["id"])["question"]
    assert new_browser().get(f"/api/lessons/{LESSON_ID}/anki.apkg").status_code == 200
    assert not db.get(ServedVariant, served["variant_id"]).open_book


def test_downloading_records_no_attempt_and_no_mastery(browser: Any, db: Any) -> None:
    for lang in ("zh", "en", "both"):
        assert browser.get(f"/api/lessons/{LESSON_ID}/anki.apkg?lang={lang}").status_code == 200
    assert db.scalar(select(func.count()).select_from(Attempt)) == 0
    assert db.scalar(select(func.count()).select_from(Mastery)) == 0
