"""Progress shows how likely each due card is recalled now (fsrs's retrievability)."""

from __future__ import annotations

import re
from typing import Any

from tests.support.fake_bank import LESSON_ID


def answer_one_wrong(app: Any, bank: Any) -> Any:
    """Answer one question wrong through the API and return the client (its browser)."""
    client = app.test_client()
    client.get("/api/me")
    headers = {"X-CSRF-Token": client.get_cookie("csrf_token").value}
    session = client.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                  "size": 1}, headers=headers).json
    question = client.get(f"/api/sessions/{session['id']}/next").json["question"]
    wrong = [x + 1 for x in bank.variant(question["question_id"], 0).answer]
    answered = client.post("/api/attempts", json={"variant_id": question["variant_id"],
                                                  "answer": wrong},
                           headers={**headers, "Idempotency-Key": "recall-1"})
    assert answered.status_code == 201 and answered.json["correct"] is False
    return client


def test_a_due_card_shows_its_chance_of_recall_falling_while_it_waits(app: Any, bank: Any,
                                                                        clock: Any) -> None:
    client = answer_one_wrong(app, bank)
    clock.advance(days=1)
    soon = client.get("/api/reviews/due").json["items"]
    assert len(soon) == 1 and 0 < soon[0]["retrievability"] < 1
    clock.advance(days=20)
    later = client.get("/api/reviews/due").json["items"][0]["retrievability"]
    assert later < soon[0]["retrievability"]
    page = client.get("/progress?lang=en").get_data(as_text=True)
    shown = re.search(r'<td class="recall-now">(\d+)%</td>', page)
    assert shown and int(shown.group(1)) == round(later * 100)
    assert "Chance of recall now" in page
    assert "现在答对的概率" in client.get("/progress?lang=zh").get_data(as_text=True)


def test_with_nothing_due_the_page_says_so(app: Any) -> None:
    client = app.test_client()
    page = client.get("/progress?lang=en").get_data(as_text=True)
    assert 'id="due-recall"' in page and "Nothing is due for review now." in page
