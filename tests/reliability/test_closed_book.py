"""Closed book: nothing a learner can see before grading gives the answer away.

Over every question of the real bank, on both backends, one learner meets each question the
way the pages and the API serve it and records everything shown before the answer is graded
and explained: the served payload, the session, progress, due and export views, the question
page, the 422s of malformed answers (API and form), the result of a wrong answer, its attempt
page and the refusals around it. None may contain the answer (as JSON or as the page renders
it), the worked solution, the seed, or a key such as ``correct_answer``; the options of an
ordering question are never served in the answer's order. After the explanation the same
search must find the answer, which proves the search can see it. A variant served to one
learner cannot be answered by another, not even by replaying its owner's exact request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from markupsafe import escape

from quizsvc.store.models import ServedVariant
from tests.support.browsers import ApiBrowser, wrong_answer
from tests.support.reliability import form_for

LESSON = "vllm-v1-ledger"
FORBIDDEN_KEYS = {"answer", "correct_answer", "solution", "seed", "scenario", "misconceptions",
                  "misconception", "expected", "trace"}
MALFORMED = ["nonsense", [], [None], {"x": 1}, 10**20, [["nested"]], True, "[0, 1]"]
SOLUTION_NEEDLE = 24  # a worked solution this long cannot be in a prompt by chance


@dataclass
class Seen:
    """Everything shown about one variant before its answer was graded and explained."""

    question_id: str
    kind: str
    json_bodies: list[Any] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    export: Any = None


def keys_in(value: Any) -> set[str]:
    """Return every key in a JSON value, however deep."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


def needles(variant: Any, seed: int) -> tuple[list[str], list[str]]:
    """Return what would give the answer away: in JSON text, and in page HTML."""
    in_json: list[str] = []
    answer = variant.answer
    if isinstance(answer, list):  # vectors, orders and multi-choice sets
        in_json.append(json.dumps(answer, ensure_ascii=False))
    solutions = [text.strip() for text in (variant.solution.zh, variant.solution.en)
                 if text and len(text.strip()) >= SOLUTION_NEEDLE]
    in_html = [str(escape(n)) for n in in_json + solutions]
    in_json += [json.dumps(text, ensure_ascii=False)[1:-1] for text in solutions]
    labels = list(variant.input.labels or ())
    if isinstance(answer, list) and labels and len(labels) == len(answer):
        in_html.append(" · ".join(f"{label} = {item}" for label, item in zip(labels, answer,
                                                                               strict=True)))
    return in_json, in_html


def assert_nothing_given_away(seen: Seen, variant: Any, seed: int) -> None:
    """Check one variant's pre-grading views against its answer, solution and seed."""
    in_json, in_html = needles(variant, seed)
    for body in seen.json_bodies:
        shown = ({k: v for k, v in body.items() if k != "errors"}  # errors name fields
                 if isinstance(body, dict) else body)
        assert not keys_in(shown) & FORBIDDEN_KEYS, (seen.question_id, body)
        text = json.dumps(body, ensure_ascii=False)
        for needle in in_json:
            assert needle not in text, (seen.question_id, needle, text[:500])
        assert str(seed) not in text
    for page in seen.pages:
        assert 'id="reveal"' not in page and 'class="answer-value"' not in page
        for needle in in_html:
            assert needle not in page, (seen.question_id, needle)
        assert str(seed) not in page
    # The export holds past attempts (their seeds and answers: graded already), never this one.
    assert str(seed) not in json.dumps(seen.export)


def meet(browser: ApiBrowser, db: Any, bank: Any, session_id: str
         ) -> tuple[Seen, Any, int, Any]:
    """Serve the session's next question and look at it every way a learner can, then answer
    it wrongly and look again; return what was seen, the variant, and its seed."""
    client = browser.client
    item = browser.get(f"/api/sessions/{session_id}/next").json
    question = item["question"]
    served = db.get(ServedVariant, question["variant_id"])
    db.expire(served)
    variant = bank.variant(served.question_id, served.seed)
    seen = Seen(served.question_id, served.kind, json_bodies=[item])
    for url in (f"/api/sessions/{session_id}", "/api/progress", "/api/reviews/due",
                "/api/mastery", f"/api/lessons/{LESSON}"):
        seen.json_bodies.append(browser.get(url).json)
    seen.export = browser.get("/api/export").json
    page = client.get(f"/study/{session_id}").get_data(as_text=True)
    seen.pages.append(page)
    if variant.input.type == "order":
        assert [o["id"] for o in question["input"]["options"]] != variant.answer
    key = f"closed-{served.id}"
    graded = served.kind not in ("flashcard", "explain")
    result = None
    if graded:
        for bad in MALFORMED:
            refused = browser.post("/api/attempts", json={"variant_id": served.id,
                                                          "answer": bad},
                                   headers={"Idempotency-Key": f"bad-{bad!r}"[:200]})
            if refused.status_code == 201:  # it parsed: a (wrong) answer after all
                result = refused
                break
            assert refused.status_code == 422, refused.json
            seen.json_bodies.append(refused.json)
        form = client.post(f"/study/{session_id}/answer", data={
            "csrf_token": browser.csrf, "variant_id": served.id, "idempotency_key": "form-bad",
            **{name: "?" for name in form_for(variant.answer, variant)}})
        if form.status_code == 422:
            seen.pages.append(form.get_data(as_text=True))
    answer = wrong_answer(variant) if graded else (None if served.kind == "flashcard"
                                                   else "a guess")
    if result is None:
        result = browser.post("/api/attempts", json={"variant_id": served.id,
                                                     "answer": answer},
                              headers={"Idempotency-Key": key})
    assert result.status_code == 201, result.json
    attempt = result.json
    if graded:
        assert attempt["correct"] is False and attempt["reveal"] is None
        seen.json_bodies.append(attempt)
        seen.json_bodies.append(browser.get(f"/api/attempts/{attempt['id']}").json)
        seen.json_bodies.append(browser.post(f"/api/attempts/{attempt['id']}/rating",
                                             json={"rating": "easy"}).json)
        seen.json_bodies.append(browser.post("/api/attempts", json={
            "variant_id": served.id, "answer": variant.answer},
            headers={"Idempotency-Key": key}).json)  # answered already: refused
        seen.pages.append(client.get(f"/study/{session_id}/attempts/{attempt['id']}")
                          .get_data(as_text=True))
    return seen, variant, served.seed, attempt


@pytest.fixture
def learner(app: Any) -> ApiBrowser:
    """Return one browser."""
    return ApiBrowser(app)


def test_no_view_before_grading_gives_any_question_away(learner, app, db, bank):
    met: set[str] = set()
    for _ in range(3):  # review sessions of 50: new questions in bank order until none is left
        started = learner.post("/api/sessions", json={"lesson": LESSON, "mode": "review",
                                                      "size": 50})
        assert started.status_code == 201
        session_id = started.json["id"]
        for _ in range(50):
            item = learner.get(f"/api/sessions/{session_id}/next").json
            if item["done"]:
                break
            seen, variant, seed, attempt = meet(learner, db, bank, session_id)
            assert_nothing_given_away(seen, variant, seed)
            met.add(seen.question_id)
            if attempt["graded"]:
                explained = learner.explain(attempt, explanation="I see it now").json
                in_json, _ = needles(variant, seed)
                revealed = json.dumps(explained, ensure_ascii=False)
                assert explained["reveal"]["correct_answer"] == variant.answer
                assert [n for n in in_json if n not in revealed] == [], seen.question_id
                page = learner.client.get(f"/study/{session_id}/attempts/{attempt['id']}")
                assert 'id="reveal"' in page.get_data(as_text=True)
            else:
                learner.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "good"})
    assert met == set(bank.questions)


def test_a_variant_served_to_one_learner_cannot_be_answered_by_another(app, db, bank):
    alice, mallory = ApiBrowser(app), ApiBrowser(app)
    session_id = alice.post("/api/sessions", json={"lesson": LESSON, "mode": "quiz",
                                                   "size": 2}).json["id"]
    first = alice.get(f"/api/sessions/{session_id}/next").json["question"]["variant_id"]
    served = db.get(ServedVariant, first)
    variant = bank.variant(served.question_id, served.seed)
    request = {"variant_id": first, "answer": variant.answer}
    stolen = mallory.post("/api/attempts", json=request, headers={"Idempotency-Key": "k1"})
    assert stolen.status_code == 404 and stolen.json["reason"] == "unknown_variant"
    db.expire(served)
    assert db.get(ServedVariant, first).answered is False
    mine = alice.post("/api/attempts", json=request, headers={"Idempotency-Key": "k1"})
    assert mine.status_code == 201 and mine.json["reveal"] is not None
    replayed = mallory.post("/api/attempts", json=request, headers={"Idempotency-Key": "k1"})
    assert replayed.status_code == 404  # Alice's key and body replay nothing for Mallory
    assert "reveal" not in replayed.json and str(variant.answer) not in replayed.get_data(
        as_text=True)
