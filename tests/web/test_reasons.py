"""Chinese pages show the service's common English reasons in Chinese; the API stays English.

The table is the documentation of what is translated; the drift tests raise the reasons from
the code that really produces them, so rewording one in English without its Chinese fails
here rather than silently showing English on a Chinese page.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from quizsvc.bank import grading
from quizsvc.study import simulator as sim
from quizsvc.web import forms
from quizsvc.web.reasons import REASONS_ZH, reason_in
from tests.support.fake_bank import LESSON_ID


@pytest.mark.parametrize(("english", "chinese"), [
    ("must be a whole number", "必须是整数"),
    ("must be between 1 and 50", "必须在 1 到 50 之间"),
    ("must be one of review, quiz, flashcards", "必须是以下之一:review, quiz, flashcards"),
    ("element 2: expected an integer, got 'x'", "第 2 项:需要一个整数,收到的是 'x'"),
    ("size: must be between 1 and 50", "size:必须在 1 到 50 之间"),
    ("B.num_computed_tokens: cannot exceed K (3)", "B.num_computed_tokens:不能超过 K(3)"),
    ("Must be one of: again, hard, good, easy.", "必须是以下之一:again, hard, good, easy。"),
    ("No such session.", "没有这一轮学习。"),
])
def test_common_reasons_read_in_chinese_with_field_names_kept(english: str,
                                                              chinese: str) -> None:
    assert reason_in(english, "zh") == chinese
    assert reason_in(english, "en") == english


def test_a_reason_the_table_does_not_know_stays_english() -> None:
    assert reason_in("the warm-up would need too many filler requests", "zh") == (
        "the warm-up would need too many filler requests")


def test_every_pattern_reads_the_same_in_javascript() -> None:
    """site.js compiles the same table with RegExp: keep to the syntax both share."""
    for pattern, rendering in REASONS_ZH:
        assert "(?" not in pattern and "\\A" not in pattern and "\\Z" not in pattern, pattern
        re.compile(pattern)
        groups = re.compile(pattern).groups
        assert {int(n) for n in re.findall(r"\$(\d)", rendering)} <= set(range(1, groups + 1))


def raised(call: Any, *args: Any) -> str:
    """Return the reason ``call(*args)`` refuses with."""
    with pytest.raises((grading.ParseError, forms.FormError, sim.SettingsError)) as caught:
        call(*args)
    if isinstance(caught.value, grading.ParseError):  # its reason is a catalog word
        return str(caught.value)
    return getattr(caught.value, "reason", None) or str(caught.value)


@pytest.mark.parametrize(("call", "args"), [
    (grading.parse_integer, ("twelve",)),
    (grading.parse_integer, (True,)),
    (grading.parse_vector, (7, 3)),
    (grading.parse_vector, ([1, 2], 3)),
    (grading.parse_vector, ([1, "x", 3], 3)),
    (grading.parse_ids, (5, {"a"})),
    (grading.parse_ids, (["a", "a"], {"a"})),
    (grading.parse_ids, (["z"], {"a"})),
    (grading.parse_choice, (["a", "b"], {"a"})),
    (grading.parse_rating, ("meh",)),
    (grading.parse_rating, (7,)),
    (forms.order_from_positions, (["a", "b"], {"position.a": "1", "position.b": "9"})),
    (forms.order_from_positions, (["a", "b"], {"position.a": "1", "position.b": "1"})),
    (sim.parse_settings, ({"token_budget": "x"},)),
    (sim.parse_settings, ({"token_budget": "0"},)),
    (sim.parse_settings, ({"spec_method": "magic"},)),
    (sim.parse_settings, ({"bogus": "1"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)), ({"accepted": "2"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)), ({"A.drafts": "1"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)), ({"token_budget": "9"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)), ({"A.num_tokens": "64"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)),
     ({"A.num_computed_tokens": "10"},)),
    (lambda form: sim.plan_scenario(sim.parse_settings(form)),
     ({"A.state": "off", "B.state": "off", "C.state": "off"},)),
])
def test_the_reasons_the_code_really_gives_are_in_the_table(call: Any, args: tuple) -> None:
    english = raised(call, *args)
    chinese = reason_in(english, "zh")
    assert chinese != english and not re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", chinese), (
        english, chinese)


# ---------------------------------------------------------------- pages


def visible(html: str) -> str:
    """Return a page without the reason table it carries for its scripts."""
    return re.sub(r'<script type="application/json" id="reason-table">.*?</script>', "", html,
                  flags=re.S)


class Browser:
    """One browser posting forms like a page without JavaScript."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.client.get("/")

    def post(self, url: str, **fields: Any) -> Any:
        csrf = self.client.get_cookie("csrf_token").value
        return self.client.post(url, data={"csrf_token": csrf, **fields})


def test_the_error_page_gives_a_form_reason_in_chinese(app: Any) -> None:
    page = Browser(app).post("/study", mode="quiz", lesson=LESSON_ID, size="many")
    assert page.status_code == 422
    html = visible(page.get_data(as_text=True))
    assert "size:必须是整数" in html and "must be a whole number" not in html


def test_the_link_page_gives_the_reason_in_chinese_or_english(app: Any) -> None:
    browser = Browser(app)
    assert "这不是关联代码" in browser.post("/link/redeem", code="!!").get_data(as_text=True)
    browser.client.get("/link?lang=en")
    assert "not a link code" in browser.post("/link/redeem", code="!!").get_data(as_text=True)


def test_an_empty_explanation_is_refused_in_chinese(app: Any) -> None:
    browser = Browser(app)
    session_url = browser.post("/study", mode="quiz", lesson=LESSON_ID, size="1"
                               ).headers["Location"]
    page = browser.client.get(session_url).get_data(as_text=True)
    hidden = dict(re.findall(r'name="(variant_id|idempotency_key)" value="([^"]+)"', page))
    answered = browser.post(f"{session_url}/answer", **hidden, **{"answer.0": "0",
                                                                   "answer.1": "0"})
    refused = browser.post(f"{answered.headers['Location']}/explanation", explanation=" ")
    assert refused.status_code == 422
    assert "explanation: 请写下答案错在哪里" in refused.get_data(as_text=True)


def test_the_simulator_gives_its_reasons_in_chinese(app: Any) -> None:
    html = app.test_client().get("/simulator?accepted=2").get_data(as_text=True)
    assert "不能超过 K(num_speculative_tokens = " in html


def test_the_api_keeps_english_and_chinese_pages_carry_the_table_for_scripts(app: Any) -> None:
    client = app.test_client()
    client.get("/api/me")
    refused = client.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                 "size": 0},
                          headers={"X-CSRF-Token": client.get_cookie("csrf_token").value})
    assert refused.status_code == 422 and "必须" not in refused.get_data(as_text=True)
    html = client.get("/quiz").get_data(as_text=True)
    table = re.search(r'<script type="application/json" id="reason-table">(.*?)</script>', html,
                      re.S)
    assert table and [tuple(row) for row in json.loads(table.group(1))] == list(REASONS_ZH)
    assert 'id="reason-table"' not in client.get("/quiz?lang=en").get_data(as_text=True)
