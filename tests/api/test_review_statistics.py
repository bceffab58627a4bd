"""``GET /api/progress/statistics``: what the progress page's charts draw, as JSON."""

from __future__ import annotations

from typing import Any

from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID


def test_the_api_gives_the_statistics_the_page_draws(study: Study, browser: ApiBrowser,
                                                     clock: Any) -> None:
    empty = browser.get("/api/progress/statistics").json
    assert [day["reviews"] for day in empty["reviews_per_day"]] == [0] * 30
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.wrong_answer(vid))
    assert browser.put("/api/scheduling", json={"desired_retention": 0.85}).status_code == 200
    body = browser.get("/api/progress/statistics").json
    assert body["today"] == clock.now.date().isoformat()
    assert len(body["reviews_per_day"]) == 30 and len(body["retention"]) == 8
    assert body["reviews_per_day"][-1] == {"day": clock.now.date().isoformat(), "reviews": 1}
    assert body["retention"][-1] | {"first_day": None} == {
        "first_day": None, "last_day": clock.now.date().isoformat(), "reviews": 0,
        "recalled": 0, "retention": None}
    assert body["desired_retention"] == 0.85
