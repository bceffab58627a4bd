"""The service over the real question bank: every question served, graded, withheld, revealed.

The other API tests use ``FakeBank`` (four tiny questions of every kind, flashcards included,
which the real bank has none of); this module runs the same flow over ``load_bank()`` so the
service and the bank cannot drift apart.
"""

from __future__ import annotations

import pytest

from quizsvc import create_app
from quizsvc.bank import load_bank
from quizsvc.bank.kinds import GRADED
from tests.api.test_study_flow import SECRET_KEYS, keys_in
from tests.support.browsers import ApiBrowser, Study
from tests.support.history import comparable, forget_history


@pytest.fixture(scope="session")
def real_bank():
    return load_bank()


@pytest.fixture
def real_app(app_config, connection, real_bank):
    app = create_app({**app_config, "BANK": real_bank})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app


@pytest.fixture
def learner(real_app, db, real_bank):
    return Study(ApiBrowser(real_app), db, real_bank)


def lesson_id(real_bank):
    return next(iter(real_bank.lessons))


def walk(learner, real_bank, right: bool):
    """Take every question of the lesson once; return {question_id: attempt JSON}."""
    lesson = lesson_id(real_bank)
    total = len(real_bank.questions_for(lesson))
    results = {}
    for _ in range(-(-total // 50)):
        session = learner.start(lesson, mode="review", size=50)
        assert session["new"] == session["total"]  # the clock stands still: nothing falls due
        results.update(answer_all(learner, session, right))
    assert len(results) == total
    return results


def answer_all(learner, session, right: bool):
    """Answer every question of a session."""
    results = {}
    while not (item := learner.next(session["id"]))["done"]:
        question = item["question"]
        assert not SECRET_KEYS & set(keys_in(item)), question["question_id"]
        vid, kind = question["variant_id"], question["kind"]
        if kind in GRADED:
            answer = learner.right_answer(vid) if right else learner.wrong_answer(vid)
        elif kind == "flashcard":
            answer = None
        else:
            answer = "My own words about the ledger."
        response = learner.answer(vid, answer)
        assert response.status_code == 201, (question["question_id"], response.json)
        if not response.json["graded"]:  # self-rated: rate it, or it stays new
            rated = learner.browser.post(f"/api/attempts/{response.json['id']}/rating",
                                         json={"rating": "good"})
            assert rated.status_code == 200
        results[question["question_id"]] = response.json
    return results


def test_every_real_question_is_served_without_its_answer_and_graded_right(learner,
                                                                          real_bank):
    results = walk(learner, real_bank, right=True)
    assert set(results) == {q.id for q in real_bank.questions_for(lesson_id(real_bank))}
    for question_id, result in results.items():
        if result["graded"]:
            assert result["correct"] is True, question_id
            assert result["reveal"]["correct_answer"] is not None
        assert result["reveal"]["solution"]["zh"], question_id


def test_every_real_wrong_answer_is_withheld_until_explained(learner, real_bank):
    results = walk(learner, real_bank, right=False)
    graded = {qid: r for qid, r in results.items() if r["graded"]}
    assert graded
    for question_id, result in graded.items():
        assert result["correct"] is False, question_id
        assert result["reveal"] is None
        explained = learner.browser.explain(result, explanation="I mixed up the budgets.")
        assert explained.status_code == 200
        assert explained.json["reveal"]["correct_answer"] is not None, question_id


def test_the_real_lesson_text_opens_the_book(learner, real_bank):
    lesson = lesson_id(real_bank)
    session = learner.start(lesson, mode="quiz", size=1)
    learner.next(session["id"])
    assert learner.browser.get(f"/api/lessons/{lesson}?lang=en").status_code == 409
    assert learner.browser.post(f"/api/lessons/{lesson}/open-book").json["opened_book"] == 1
    response = learner.browser.get(f"/api/lessons/{lesson}?lang=en")
    assert response.status_code == 200 and response.json["text"]


def test_real_sections_take_self_assessments_and_feed_calibration(learner, real_bank):
    lesson = real_bank.lessons[lesson_id(real_bank)]
    for section in lesson.sections:
        assert learner.browser.put(f"/api/self-assessments/{section.id}",
                                   json={"rating": 3}).status_code == 201
    walk(learner, real_bank, right=True)
    calibration = learner.browser.get("/api/progress").json["calibration"]
    graded = sum(1 for q in real_bank.questions_for(lesson.id) if str(q.kind) in GRADED)
    assert calibration["pairs"] == graded
    assert calibration["brier"] == pytest.approx(1 / 9)


def test_a_real_history_exports_and_imports_losslessly(learner, real_bank, db):
    walk(learner, real_bank, right=True)
    document = learner.browser.get("/api/export").json
    forget_history(db, learner.browser)
    assert learner.browser.post("/api/import", json=document).json["vouched"] is True
    assert comparable(learner.browser.get("/api/export").json) == comparable(document)


def forms(bank, question_id: str, seeds: int = 60) -> set[str]:
    """Return the distinct contents a question asks over ``seeds`` seeds."""
    from quizsvc.bank.content import content_key

    return {content_key(bank.variant(question_id, seed)) for seed in range(seeds)}


def test_a_question_with_one_form_is_never_mastered_by_remembering_its_answer(
        learner, real_bank, clock, db):
    """Two right closed-book answers on two days master a question only on two different
    contents: a question that asks the same thing under every seed stays unmastered."""
    lesson = lesson_id(real_bank)
    graded = [q for q in real_bank.questions_for(lesson) if str(q.kind) in GRADED]
    fixed = next((q.id for q in graded if len(forms(real_bank, q.id)) == 1), None)
    varied = next((q.id for q in graded if len(forms(real_bank, q.id)) > 20), None)
    assert varied is not None
    answered: dict[str, int] = {}
    for _day in range(3):
        session = learner.start(lesson, mode="quiz", size=50)
        while not (item := learner.next(session["id"]))["done"]:
            question = item["question"]
            vid = question["variant_id"]
            response = learner.answer(vid, learner.right_answer(vid))
            assert response.status_code == 201
            answered[question["question_id"]] = answered.get(question["question_id"], 0) + 1
        clock.advance(days=1)
    mastered = {m["question_id"] for m in learner.browser.get("/api/mastery").json
                if m["mastered"]}
    assert varied in mastered
    if fixed is not None:  # the bank may give every question several forms one day
        assert answered[fixed] >= 2 and fixed not in mastered


def test_a_replayed_wrong_model_shows_its_step_beside_the_real_one(learner, real_bank, db):
    """After the reveal, a wrong model the ledger replays has the worked solution's table twice:
    as vLLM ran the step and as the model runs it, the diverging cells marked."""
    from quizsvc.store.models import ServedVariant

    shown = 0
    for question_id, result in walk(learner, real_bank, right=False).items():
        if result["kind"] != "numeric":
            continue
        explained = learner.browser.explain(result, explanation="I mixed up the budgets.").json
        hit = explained["reveal"]["misconception"]
        served = db.get(ServedVariant, result["variant_id"])
        expected = hit and real_bank.model_step(question_id, served.seed, hit["id"], "en",
                                                explained["reveal"]["correct_answer"])
        page = learner.browser.get(f"/study/any/attempts/{result['id']}?lang=en")
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and ('id="model-step-2"' in html) == bool(expected)
        if expected:
            shown += 1
            wrong_table = html.split('id="model-step-2"')[1].split("</table>")[0]
            assert 'class="diverges"' in wrong_table, question_id
            assert f"Step {expected.step} as vLLM ran it" in html
    assert shown >= 5


def test_the_lessons_simulator_section_offers_the_simulator_in_chinese(real_app, real_bank):
    """The zh lesson writes its heading with an ASCII comma, the interface with a full-width
    one: they are the same heading to a reader, and to the page."""
    page = real_app.test_client().get(f"/lessons/{lesson_id(real_bank)}?lang=zh")
    assert page.status_code == 200
    assert "打开模拟器" in page.get_data(as_text=True)


def test_a_deck_downloaded_earlier_answers_no_variant_the_service_serves(
        learner, real_bank, real_app):
    """The attack of issue 20: download the deck, then look every served variant up in it.

    A note answers a served variant when its front shows that prompt with those options;
    no served variant may be found there, whatever its kind.
    """
    from quizsvc.bank.anki import build_deck
    from quizsvc.bank.worksheet import inline_html

    lesson = lesson_id(real_bank)
    fronts = [note.fields[1] for note in build_deck(real_bank, lesson, "both").notes
              if note.kind in ("concept-check", "worked-example")]
    served = 0
    for _ in range(3):
        session = learner.start(lesson, mode="quiz", size=50)
        while not (item := learner.next(session["id"]))["done"]:
            question = item["question"]
            shown = [inline_html(question["prompt"]["zh"])] + [
                inline_html(option["text"]["zh"]) for option in question["input"]["options"]]
            found = [front for front in fronts if all(part in front for part in shown)]
            assert not found, question["question_id"]
            learner.answer(question["variant_id"], learner.right_answer(question["variant_id"]))
            served += 1
    assert served >= 150
