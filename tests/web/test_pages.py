"""Every page through the Flask test client: readable without JavaScript, forms that work, and
the closed-book rules held in the HTML (on SQLite and PostgreSQL, like the API tests)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from quizsvc.store.models import ServedVariant
from quizsvc.study import simulator as sim_plans
from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID

PAGES = ["/", "/lessons", f"/lessons/{LESSON_ID}", f"/lessons/{LESSON_ID}?lang=en", "/quiz",
         "/review", "/flashcards", "/simulator", "/progress", "/link",
         f"/lessons/{LESSON_ID}/anki", "/cohorts/mine", "/erase"]
CSS = Path(__file__).resolve().parents[2] / "quizsvc" / "web" / "static" / "site.css"


class PageShape(HTMLParser):
    """Collect what the accessibility and no-JS checks look at."""

    def __init__(self) -> None:
        super().__init__()
        self.html_lang: str | None = None
        self.h1 = 0
        self.label_for: set[str] = set()
        self.controls: list[dict[str, str | None]] = []
        self.in_label = 0
        self.forms: list[dict[str, Any]] = []
        self.assets: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"] or "")
        if tag == "html":
            self.html_lang = a.get("lang")
        elif tag == "h1":
            self.h1 += 1
        elif tag == "label":
            self.in_label += 1
            if a.get("for"):
                self.label_for.add(a["for"] or "")
        elif tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            self.controls.append({**a, "wrapped": "yes" if self.in_label else None})
            if tag == "input" and a.get("name") == "csrf_token":
                pass
        elif tag == "form":
            self.forms.append({"method": (a.get("method") or "get").lower(), "csrf": False})
        if tag == "input" and a.get("name") == "csrf_token" and self.forms:
            self.forms[-1]["csrf"] = bool(a.get("value"))
        if tag in ("script", "img") and a.get("src"):
            self.assets.append(a["src"] or "")
        if tag == "link" and a.get("href"):
            self.assets.append(a["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self.in_label -= 1


def shape(html: str) -> PageShape:
    parser = PageShape()
    parser.feed(html)
    return parser


class Learner(FormBrowser):
    """One browser on the test client, posting forms the way a page without JavaScript does."""

    def start(self, mode: str = "quiz", size: int = 5) -> str:
        response = self.post("/study", mode=mode, lesson=LESSON_ID, size=str(size))
        assert response.status_code == 303
        return response.headers["Location"]

    def question(self, session_url: str) -> tuple[str, dict[str, str]]:
        """Return the question page and its hidden fields."""
        page = self.get(session_url).get_data(as_text=True)
        hidden = dict(re.findall(r'name="(variant_id|idempotency_key)" value="([^"]+)"', page))
        return page, hidden


@pytest.fixture
def learner(app: Any) -> Learner:
    return Learner(app)


def right_answer(db: Any, bank: Any, variant_id: str) -> Any:
    served = db.get(ServedVariant, variant_id)
    return bank.variant(served.question_id, served.seed).answer


def vector_fields(values: list[int]) -> dict[str, str]:
    return {f"answer.{i}": str(v) for i, v in enumerate(values)}


# ---------------------------------------------------------------- every page


@pytest.mark.parametrize("url", PAGES)
def test_every_page_is_complete_html_without_javascript(learner: Learner, url: str) -> None:
    response = learner.get(url)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = shape(response.get_data(as_text=True))
    assert page.html_lang in ("zh-Hans", "en")
    assert page.h1 == 1
    assert len(page.ids) == len(set(page.ids)), "duplicate element ids"
    for control in page.controls:
        assert control.get("wrapped") or control.get("id") in page.label_for or control.get(
            "aria-label"), f"unlabelled control {control}"
    for form in page.forms:
        if form["method"] == "post":
            assert form["csrf"], "a POST form without its csrf_token field"
    assert page.assets and not any(a.startswith(("http:", "https:", "//")) for a in page.assets)


def test_every_asset_a_page_uses_is_served_by_the_app(learner: Learner) -> None:
    assets = {a for url in PAGES for a in shape(learner.get(url).get_data(as_text=True)).assets}
    for asset in assets:
        with learner.get(asset) as response:
            assert response.status_code == 200, asset


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(("fg", "bg", "least"), [
    ("--ink", "--paper", 4.5), ("--muted", "--paper", 4.5), ("--accent", "--paper", 4.5),
    ("--accent-ink", "--accent", 4.5), ("--good", "--good-bg", 4.5), ("--bad", "--bad-bg", 4.5),
    ("--ink", "--panel", 4.5), ("--muted", "--panel", 4.5), ("--ink", "--warn-bg", 4.5),
    ("--focus", "--paper", 3.0), ("--line", "--paper", 3.0), ("--seg-computed", "--paper", 3.0),
    ("--seg-scheduled", "--paper", 3.0), ("--seg-drafts", "--paper", 3.0),
    ("--seg-rolled", "--paper", 3.0),
])
def test_the_palette_meets_wcag_aa_contrast(fg: str, bg: str, least: float) -> None:
    colours = dict(re.findall(r"(--[a-z-]+):\s*(#[0-9a-fA-F]{6})", CSS.read_text()))
    assert contrast(colours[fg], colours[bg]) >= least


def test_the_stylesheet_keeps_focus_visible_and_fits_a_phone() -> None:
    css = CSS.read_text()
    assert re.search(r":focus-visible\s*\{[^}]*outline:\s*3px solid", css)
    assert "outline: none" not in css.replace("main:focus { outline: none; }", "")
    assert "overflow-x: auto" in css


def test_choosing_english_is_remembered(learner: Learner) -> None:
    response = learner.get("/progress?lang=en")
    assert shape(response.get_data(as_text=True)).html_lang == "en"
    assert shape(learner.get("/quiz").get_data(as_text=True)).html_lang == "en"


# ---------------------------------------------------------------- the closed-book quiz


def test_the_answer_is_not_in_the_page_before_grading(learner: Learner, db: Any,
                                                      bank: Any) -> None:
    page, hidden = learner.question(learner.start())
    variant = bank.variant(db.get(ServedVariant, hidden["variant_id"]).question_id,
                           db.get(ServedVariant, hidden["variant_id"]).seed)
    assert variant.solution.zh not in page and variant.solution.en not in page
    assert str(variant.answer) not in page and "correct_answer" not in page
    for misconception in variant.misconceptions:
        assert misconception.name.zh not in page and misconception.name.en not in page
    assert str(db.get(ServedVariant, hidden["variant_id"]).seed) not in page


def test_a_wrong_answer_must_be_explained_before_the_reveal(learner: Learner, db: Any,
                                                            bank: Any) -> None:
    session_url = learner.start()
    _, hidden = learner.question(session_url)
    right = right_answer(db, bank, hidden["variant_id"])
    wrong = [value + 1 for value in right]
    answered = learner.post(f"{session_url}/answer", **hidden, **vector_fields(wrong))
    assert answered.status_code == 303
    attempt_url = answered.headers["Location"]
    result = learner.get(attempt_url).get_data(as_text=True)
    assert "答错了" in result and 'name="explanation"' in result
    variant = bank.variant(db.get(ServedVariant, hidden["variant_id"]).question_id,
                           db.get(ServedVariant, hidden["variant_id"]).seed)
    assert variant.solution.zh not in result and 'id="reveal"' not in result
    assert 'id="next-link"' not in result
    empty = learner.explain(attempt_url, explanation="   ")
    assert empty.status_code == 422 and variant.solution.zh not in empty.get_data(as_text=True)
    explained = learner.explain(attempt_url, explanation="I split it evenly")
    assert explained.status_code == 303
    reveal = learner.get(attempt_url).get_data(as_text=True)
    assert variant.solution.zh in reveal
    assert " · ".join(f"{label} = {value}" for label, value in zip(
        variant.input.labels, right, strict=True)) in reveal
    assert "I split it evenly" in reveal
    assert f'href="{variant.lesson_link}"' in reveal
    assert 'name="rating"' not in reveal and 'id="next-link"' in reveal


def test_a_right_answer_is_rated_hard_good_or_easy(learner: Learner, db: Any) -> None:
    session_url = learner.start()
    _, first = learner.question(session_url)
    learner.post(f"{session_url}/answer", **first, **vector_fields([0, 0]))
    learner.explain(f"{session_url}/attempts/1")
    _, second = learner.question(session_url)
    answered = learner.post(f"{session_url}/answer", **second, answer="running")
    attempt_url = answered.headers["Location"]
    result = learner.get(attempt_url).get_data(as_text=True)
    assert "答对了" in result
    assert re.findall(r'name="rating" value="(\w+)"', result) == ["hard", "good", "easy"]
    rated = learner.post(f"{attempt_url}/rating", rating="hard")
    attempt_id = attempt_url.rsplit("/", 1)[1]
    # On to the next question, which offers to undo this rating.
    assert rated.status_code == 303
    assert rated.headers["Location"] == f"{session_url}?rated={attempt_id}"
    assert learner.get(f"/api/attempts/{attempt_id}").json["rating"] == "hard"


def test_an_unreadable_answer_reshows_the_form_and_costs_nothing(learner: Learner) -> None:
    session_url = learner.start()
    _, hidden = learner.question(session_url)
    response = learner.post(f"{session_url}/answer", **hidden, **{"answer.0": "x",
                                                                   "answer.1": "2"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'role="alert"' in page and 'value="x"' in page and 'aria-invalid="true"' in page
    _, again = learner.question(session_url)
    assert again["variant_id"] == hidden["variant_id"]


def test_posting_the_same_form_twice_grades_it_once(learner: Learner) -> None:
    session_url = learner.start()
    _, hidden = learner.question(session_url)
    first = learner.post(f"{session_url}/answer", **hidden, **vector_fields([0, 0]))
    second = learner.post(f"{session_url}/answer", **hidden, **vector_fields([0, 0]))
    assert first.headers["Location"] == second.headers["Location"]
    assert len(learner.get("/api/export").json["attempts"]) == 1


def test_opening_the_lesson_during_a_question_asks_first_then_makes_it_open_book(
        learner: Learner) -> None:
    session_url = learner.start()
    _, hidden = learner.question(session_url)
    asked = learner.get(f"/lessons/{LESSON_ID}").get_data(as_text=True)
    assert "先回答，还是翻开书？" in asked and session_url in asked
    assert "<article class=\"lesson\"" not in asked
    opened = learner.post(f"/lessons/{LESSON_ID}/open-book", then="lesson")
    assert opened.status_code == 303 and opened.headers["Location"].endswith(
        f"/lessons/{LESSON_ID}")
    answered = learner.post(f"{session_url}/answer", **hidden, **vector_fields([0, 0]))
    result = learner.get(answered.headers["Location"]).get_data(as_text=True)
    assert "开卷" in result


def test_flashcards_show_the_front_then_the_back_and_four_ratings(learner: Learner, db: Any,
                                                                  bank: Any) -> None:
    session_url = learner.start(mode="review", size=10)
    for _ in range(5):
        page, hidden = learner.question(session_url)
        kind = re.search(r'data-input-type="(\w+)"', page).group(1)
        if kind == "flashcard":
            break
        right = right_answer(db, bank, hidden["variant_id"])
        fields = vector_fields(right) if kind == "vector" else {"answer": right or "because"}
        learner.post(f"{session_url}/answer", **hidden, **fields)
    else:
        pytest.fail("no flashcard served")
    variant = bank.variant(db.get(ServedVariant, hidden["variant_id"]).question_id,
                           db.get(ServedVariant, hidden["variant_id"]).seed)
    assert variant.prompt.zh in page and variant.solution.zh not in page
    revealed = learner.post(f"{session_url}/answer", **hidden)
    back = learner.get(revealed.headers["Location"]).get_data(as_text=True)
    assert variant.solution.zh in back
    assert re.findall(r'name="rating" value="(\w+)"', back) == ["again", "hard", "good", "easy"]
    assert learner.post(f"{revealed.headers['Location']}/rating",
                        rating="again").status_code == 303


def test_a_finished_session_says_so(learner: Learner) -> None:
    session_url = learner.start(size=1)
    _, hidden = learner.question(session_url)
    learner.post(f"{session_url}/answer", **hidden, **vector_fields([0, 0]))
    learner.explain(f"{session_url}/attempts/1")
    assert "本轮完成" in learner.get(session_url).get_data(as_text=True)


def test_someone_elses_session_is_not_found(app: Any, learner: Learner) -> None:
    session_url = learner.start()
    stranger = Learner(app)
    response = stranger.get(session_url)
    assert response.status_code == 404 and response.mimetype == "text/html"


def test_a_form_post_without_the_csrf_field_is_refused(learner: Learner) -> None:
    response = learner.client.post("/study", data={"mode": "quiz", "lesson": LESSON_ID,
                                                   "size": "3"})
    assert response.status_code == 403 and response.mimetype == "text/html"


@pytest.mark.parametrize(("fields", "status"), [
    ({"mode": "quiz", "lesson": LESSON_ID, "size": "many"}, 422),
    ({"mode": "exam", "lesson": LESSON_ID, "size": "3"}, 422),
    ({"mode": "quiz", "lesson": "nope", "size": "3"}, 422),
])
def test_a_bad_start_form_is_a_4xx_page(learner: Learner, fields: dict, status: int) -> None:
    response = learner.post("/study", **fields)
    assert response.status_code == status and response.mimetype == "text/html"


# ---------------------------------------------------------------- self-assessment


def test_self_assessment_is_saved_per_section_and_leaves_mastery_alone(learner: Learner
                                                                      ) -> None:
    before = learner.get("/api/mastery").json
    saved = learner.post(f"/lessons/{LESSON_ID}/self-assessment", ref="budget", rating="4",
                         note="feels solid")
    assert saved.status_code == 303 and saved.headers["Location"].endswith("#sa-budget")
    page = learner.get(saved.headers["Location"]).get_data(as_text=True)
    assert re.search(r'value="4" aria-pressed="true"', page)
    assert "自评" in page and "不是掌握记录" in page
    assert learner.get("/api/self-assessments").json[0]["rating"] == 4
    assert learner.get("/api/mastery").json == before
    assert "已掌握" in learner.get("/progress").get_data(as_text=True)
    assert re.search(r'id="stat-mastered">0 ', learner.get("/progress").get_data(as_text=True))


@pytest.mark.parametrize(("fields", "status"), [
    ({"ref": "budget", "rating": "9"}, 422),
    ({"ref": "budget", "rating": "x"}, 422),
    ({"ref": "no-such-section", "rating": "2"}, 404),
])
def test_a_bad_self_assessment_is_refused(learner: Learner, fields: dict, status: int) -> None:
    assert learner.post(f"/lessons/{LESSON_ID}/self-assessment", **fields).status_code == status


def test_the_lesson_links_each_worked_example_to_the_simulator(learner: Learner) -> None:
    page = learner.get(f"/lessons/{LESSON_ID}").get_data(as_text=True)
    assert 'class="anchor" id="budget"' in page and "/simulator" in page


# ---------------------------------------------------------------- progress and linking


def test_progress_shows_a_30_day_forecast_as_a_chart_and_a_table(learner: Learner) -> None:
    page = learner.get("/progress").get_data(as_text=True)
    assert page.count('role="img"') == 3  # reviews per day, retention, the forecast
    # 30 days of reviews, 8 weeks, 30 days of forecast; and four calibration rows
    dated = r'<tr><th scope="row"><time datetime="(\d{4}-\d\d-\d\d)">\1</time></th>'
    assert len(re.findall(dated, page)) == 68
    assert page.count('<th scope="row">') >= 72


def test_progress_lists_questions_mastered_on_two_days(learner: Learner, clock: Any, db: Any,
                                                      bank: Any) -> None:
    for _ in range(2):
        session_url = learner.start(size=2)
        for _ in range(2):
            page, hidden = learner.question(session_url)
            right = right_answer(db, bank, hidden["variant_id"])
            vector = 'data-input-type="vector"' in page
            learner.post(f"{session_url}/answer", **hidden,
                         **(vector_fields(right) if vector else {"answer": right}))
        clock.advance(days=1)
    page = learner.get("/progress").get_data(as_text=True)
    assert re.search(r'id="stat-mastered">2 ', page)
    assert "<th scope=\"row\">题 running-first</th><td>已掌握</td>" in page


def test_a_code_shown_in_one_browser_links_another(app: Any, learner: Learner) -> None:
    shown = learner.post("/link/code").get_data(as_text=True)
    code = re.search(r'id="link-code">([^<]+)<', shown).group(1)
    other = Learner(app)
    assert other.get("/api/me").json["learner"] != learner.get("/api/me").json["learner"]
    linked = other.post("/link/redeem", code=code)
    assert linked.status_code == 200 and "已关联" in linked.get_data(as_text=True)
    assert other.get("/api/me").json["learner"] == learner.get("/api/me").json["learner"]
    again = Learner(app).post("/link/redeem", code=code)
    assert again.status_code == 410


def test_an_unknown_link_code_is_a_422_with_the_reason(learner: Learner) -> None:
    response = learner.post("/link/redeem", code="!!")
    assert response.status_code == 422
    assert 'aria-invalid="true"' in response.get_data(as_text=True)


# ---------------------------------------------------------------- simulator


def test_the_simulator_runs_without_javascript(learner: Learner) -> None:
    page = learner.get("/simulator?B.num_computed_tokens=5").get_data(as_text=True)
    target = page.split('class="step step-target"', 1)[1]
    assert re.search(r'class="alloc-list">A 1 · B 5 · C 2<', target)


def test_async_scheduling_runs_and_explains_why_c_differs(learner: Learner) -> None:
    page = learner.get("/simulator?scheduling=async").get_data(as_text=True)
    assert "N + ph − C = 1" in page and 'class="step step-target"' in page
    assert 'class="warning"' not in page


def test_a_bad_simulator_field_is_a_422_naming_it(learner: Learner) -> None:
    response = learner.get("/simulator?token_budget=0")
    assert response.status_code == 422
    assert 'href="#f-token_budget"' in response.get_data(as_text=True)


def test_the_plan_endpoint_returns_the_scenario_or_the_field(learner: Learner) -> None:
    plan = learner.get("/api/simulator/plan").json
    assert plan["target_step"] == 2 and plan["fillers"] == ["f1"]
    trace = learner.client.post("/api/simulate", json=plan["scenario"],
                                headers={"X-CSRF-Token": learner.csrf}).json
    step = next(s for s in trace["steps"] if s["step"] == 2)
    assert step["schedule"]["num_scheduled_tokens"] == {"A": 1, "B": 6, "C": 1}
    bad = learner.get("/api/simulator/plan?A.state=flying")
    assert bad.status_code == 422 and "A.state" in bad.json["errors"]["query"]


def test_the_simulator_asks_first_while_a_question_is_open(learner: Learner) -> None:
    session_url = learner.start()
    _, hidden = learner.question(session_url)
    asked = learner.get("/simulator?max_num_seqs=3").get_data(as_text=True)
    assert "先回答，还是翻开书？" in asked and "sim-form" not in asked
    opened = learner.post("/simulator/open-book", settings="max_num_seqs=3")
    assert opened.status_code == 303
    assert opened.headers["Location"].endswith("/simulator?max_num_seqs=3")
    assert "sim-form" in learner.get("/simulator?max_num_seqs=3").get_data(as_text=True)
    answered = learner.post(f"{session_url}/answer", **hidden, **vector_fields([0, 0]))
    assert "开卷" in learner.get(answered.headers["Location"]).get_data(as_text=True)


def test_the_simulator_names_steps_by_the_target_and_sums_it_up_in_one_line(
        learner: Learner) -> None:
    query = urlencode({**sim_plans.settings_query(sim_plans.PRESETS["mixed-161"]), "lang": "en"})
    page = learner.get(f"/simulator?{query}").get_data(as_text=True)
    assert "Target step T (engine step 2) — the step you set up" in page
    assert "Step T+1 (engine step 3)" in page and "Step T\u22122 (engine step 0)" in page
    summary = re.search(r'<p id="sim-summary" class="sim-summary">([^<]*)</p>', page)
    assert summary and summary.group(1) == (
        "Target step T: A 1 · B 6 · C 1 — total 8 / token_budget 8")


def test_async_drafts_in_flight_explain_a_negative_n_minus_c(learner: Learner) -> None:
    query = urlencode({**sim_plans.settings_query(sim_plans.PRESETS["spec-11-10-3"]),
                       "scheduling": "async", "lang": "en"})
    page = learner.get(f"/simulator?{query}").get_data(as_text=True)
    assert 'id="negative-gap-note"' in page and "so N − C = −K" in page
    chinese = learner.get(f"/simulator?{query.replace('lang=en', 'lang=zh')}")
    assert "所以 N − C = −K" in chinese.get_data(as_text=True)
