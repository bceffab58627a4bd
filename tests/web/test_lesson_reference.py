"""The lesson as a learner meets it: rule anchors, the reference and glossary pages, the worked
examples' simulator links, and a reveal that explains and links back to the rule (real bank)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlparse

import pytest

from quizsvc.bank import load_bank
from quizsvc.ledger import replay
from quizsvc.store.models import ServedVariant
from quizsvc.study import simulator as sim
from tests.support.browsers import FormBrowser

LESSON = "vllm-v1-ledger"


@pytest.fixture(scope="module")
def bank() -> Any:
    """Serve the real bank here: these tests are about its lesson."""
    return load_bank()


@pytest.fixture
def browser(app: Any) -> FormBrowser:
    return FormBrowser(app)


def text_of(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lesson_anchors_every_rule_and_links_both_reference_pages(
        browser: FormBrowser, bank: Any, lang: str) -> None:
    page = text_of(browser.get(f"/lessons/{LESSON}?lang={lang}"))
    for rule in bank.lessons[LESSON].rules:
        assert f'<h3 id="rule-{rule.id}">' in page, rule.id
    assert f'href="/lessons/{LESSON}/reference"' in page
    assert f'href="/lessons/{LESSON}/glossary"' in page
    assert "<table>" in page and "{{" not in page


@pytest.mark.parametrize(("lang", "title"), [("zh", "速查：形状与公式"),
                                             ("en", "Quick reference: shapes and formulas")])
def test_the_reference_page_links_every_rule_to_its_anchor(
        browser: FormBrowser, bank: Any, lang: str, title: str) -> None:
    page = text_of(browser.get(f"/lessons/{LESSON}/reference?lang={lang}"))
    assert f"<h1>{title}</h1>" in page
    for rule in bank.lessons[LESSON].rules:
        assert f'href="/lessons/{LESSON}#rule-{rule.id}"' in page, rule.id
    assert '<pre class="formula"><code>' in page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_glossary_page_anchors_each_term_and_links_its_rule_and_flashcard(
        browser: FormBrowser, bank: Any, lang: str) -> None:
    page = text_of(browser.get(f"/lessons/{LESSON}/glossary?lang={lang}"))
    terms = bank.lessons[LESSON].glossary
    assert page.count('<dt id="term-') == len(terms)
    for term in terms:
        block = page.split(f'<dt id="term-{term.id}">', 1)[1].split("</dd>", 1)[0]
        assert f'href="/lessons/{LESSON}#rule-{term.rule}"' in block
        assert (f'<details id="card-{term.id}">' in block) == bool(term.flashcard)


def test_an_unknown_lesson_has_no_reference_pages(browser: FormBrowser) -> None:
    assert browser.get("/lessons/nope/reference").status_code == 404
    assert browser.get("/lessons/nope/glossary").status_code == 404


@pytest.mark.parametrize("page_name", ["reference", "glossary"])
def test_the_reference_pages_ask_first_while_a_question_is_open(
        browser: FormBrowser, db: Any, bank: Any, page_name: str) -> None:
    """The pages are part of the book: a link shows the question, opening the book is a POST."""
    started = browser.post("/study", mode="quiz", lesson=LESSON, size="1")
    page = text_of(browser.get(started.headers["Location"]))
    variant_id = re.search(r'name="variant_id" value="([^"]+)"', page).group(1)
    gate = text_of(browser.get(f"/lessons/{LESSON}/{page_name}"))
    assert f'action="/lessons/{LESSON}/open-book"' in gate
    assert '<dt id="term-' not in gate and '<pre class="formula">' not in gate
    db.expire_all()
    assert not db.get(ServedVariant, variant_id).open_book
    opened = browser.post(f"/lessons/{LESSON}/open-book", then=page_name)
    assert opened.status_code == 303
    assert opened.headers["Location"].endswith(f"/lessons/{LESSON}/{page_name}")
    shown = text_of(browser.get(opened.headers["Location"]))
    assert ('<dt id="term-' in shown) if page_name == "glossary" else ('class="formula"' in shown)
    db.expire_all()
    assert db.get(ServedVariant, variant_id).open_book


def test_a_new_learners_first_quiz_starts_with_the_first_worked_example_and_its_reveal_explains(
        browser: FormBrowser, db: Any, bank: Any) -> None:
    started = browser.post("/study", mode="quiz", lesson=LESSON, size="3")
    session_url = started.headers["Location"]
    page = text_of(browser.get(session_url))
    variant_id = re.search(r'name="variant_id" value="([^"]+)"', page).group(1)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    served = db.get(ServedVariant, variant_id)
    assert served.question_id == "mixed-step-allocation"
    answered = browser.post(f"{session_url}/answer", variant_id=variant_id, idempotency_key=key,
                            **{"answer.0": "0", "answer.1": "0", "answer.2": "0"})
    attempt_url = answered.headers["Location"]
    browser.explain(attempt_url, explanation="I gave waiting requests nothing")
    reveal = text_of(browser.get(attempt_url))
    assert f'href="/lessons/{LESSON}#rule-demand"' in reveal
    solution = reveal.split('<div class="solution rendered">', 1)[1].split("</div></div>", 1)[0]
    assert "<table>" in solution and "<details><summary>逐步账本（第 2 步）</summary>" in solution
    assert "{'" not in solution


def test_a_worked_example_the_form_cannot_express_opens_as_its_own_scenario(
        browser: FormBrowser) -> None:
    page = text_of(browser.get("/simulator?example=prefix-hit"))
    assert 'id="sim-example"' in page
    target = page.split('class="step step-target"', 1)[1]
    assert re.search(r'class="alloc-list">Y 4 · V 3 · T 3<', target)
    missing = browser.get("/simulator?example=no-such-example")
    assert missing.status_code == 422


def test_every_simulator_link_of_a_worked_example_reaches_the_examples_allocation(
        bank: Any) -> None:
    """Examples linked by simulator settings: the simulator's warm-up reaches the same step."""
    examples = bank.lesson_entry(LESSON).examples.values()
    linked = [e for e in examples if e.simulator]
    assert len(linked) >= 10
    for example in linked:
        query = dict(parse_qsl(urlparse(example.simulator_link()).query))
        plan = sim.plan_scenario(sim.parse_settings(query))
        trace = replay(plan.scenario)
        mine = next(s for s in trace["steps"] if s["step"] == plan.target_step)["schedule"]
        theirs = next(s for s in example.trace["steps"] if s["step"] == example.step)["schedule"]
        want = {rid: n for rid, n in theirs["num_scheduled_tokens"].items()
                if rid in sim.REQUEST_IDS}
        got = {rid: n for rid, n in mine["num_scheduled_tokens"].items() if rid in want}
        assert got == want, example.id
        assert {rid: mine["scheduled_spec_decode_tokens"].get(rid, 0) for rid in want} == {
            rid: theirs["scheduled_spec_decode_tokens"].get(rid, 0) for rid in want}, example.id
