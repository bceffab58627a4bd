"""Browsers are kept apart on the pages too, and forms from another site are refused.

tests/api/test_isolation.py attacks every API endpoint; this attacks every page route the same
way: Alice studies through the pages, Mallory (another browser) uses each route with Alice's
session, attempt and variant ids, and Alice's data must be unchanged (her export and her
attempt page, byte for byte). ``test_every_page_route_has_an_attack`` fails when a route is
added without one. Then the CSRF defence: a form posted from another site carries Alice's
cookies but not her token, and every state-changing route, page or API, refuses it with 403
and changes nothing. Link codes work once and expire, through the pages as through the API.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from quizsvc.store import backup
from quizsvc.store.models import ServedVariant
from tests.support.browsers import FormBrowser, wrong_answer
from tests.support.history import comparable
from tests.support.reliability import form_for

LESSON = "vllm-v1-ledger"
SECTION_NOTE = "alice's own words"


class PageBrowser(FormBrowser):
    """One browser on the pages, with the export it can download."""

    def export(self) -> Any:
        """Return this learner's data as the API exports it (seals opened: each export seals
        withheld answers under a fresh nonce)."""
        return comparable(self.client.get("/api/export").json)


@dataclass
class Alice:
    """What Alice owns, by id, and how to look at it."""

    browser: PageBrowser
    session_url: str
    open_variant: str
    attempt_id: int
    code: str
    section: str


def hidden_fields(html: str) -> dict[str, str]:
    """Return a question page's hidden variant id and idempotency key."""
    return dict(re.findall(r'name="(variant_id|idempotency_key)" value="([^"]+)"', html))


@pytest.fixture
def alice(app: Any, db: Any, bank: Any) -> Alice:
    """Let Alice answer one question wrong, leave the next one open, self-assess, make a code."""
    browser = PageBrowser(app)
    started = browser.post("/study", mode="quiz", lesson=LESSON, size="3")
    session_url = started.headers["Location"]
    hidden = hidden_fields(browser.get(session_url).get_data(as_text=True))
    served = db.get(ServedVariant, hidden["variant_id"])
    variant = bank.variant(served.question_id, served.seed)
    wrong = wrong_answer(variant)
    assert wrong != variant.answer
    answered = browser.post(f"{session_url}/answer", **hidden, **form_fields(wrong, served, bank))
    assert answered.status_code == 303, answered.get_data(as_text=True)[:500]
    attempt_id = int(answered.headers["Location"].rstrip("/").split("/")[-1])
    open_variant = hidden_fields(browser.get(session_url).get_data(as_text=True))["variant_id"]
    section = next(iter(bank.lessons.values())).sections[0].id
    saved = browser.post(f"/lessons/{LESSON}/self-assessment", ref=section, rating="2",
                         note=SECTION_NOTE)
    assert saved.status_code == 303
    code = re.search(r'id="link-code">([^<]+)<', browser.post("/link/code").get_data(
        as_text=True)).group(1)
    return Alice(browser, session_url, open_variant, attempt_id, code, section)


def form_fields(value: Any, served: Any, bank: Any) -> dict[str, Any]:
    """Return the form fields a page posts for an answer ``value``."""
    return form_for(value, bank.variant(served.question_id, served.seed))


def snapshot(alice: Alice) -> tuple[Any, str]:
    """Return what must not change: Alice's export and her attempt page."""
    page = alice.browser.get(f"{alice.session_url}/attempts/{alice.attempt_id}")
    return alice.browser.export(), page.get_data(as_text=True)


ATTACKS: dict[tuple[str, str], Callable[[PageBrowser, Alice], None]] = {}


def attack(method: str, rule: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register the attack on one page route."""
    def register(fn: Callable[..., None]) -> Callable[..., None]:
        ATTACKS[(method, rule)] = fn
        return fn
    return register


def status(response: Any, expected: int) -> str:
    """Check a response's status; return its HTML."""
    html = response.get_data(as_text=True)
    assert response.status_code == expected, html[:300]
    return html


def own_session(mallory: PageBrowser) -> str:
    """Start a session of Mallory's own and return its URL."""
    return mallory.post("/study", mode="quiz", lesson=LESSON, size="2").headers["Location"]


@attack("GET", "/")
def home(mallory, a):
    assert SECTION_NOTE not in status(mallory.get("/"), 200)


@attack("GET", "/lessons")
def lessons(mallory, a):
    status(mallory.get("/lessons"), 200)


@attack("GET", "/lessons/<lesson_id>")
def read_the_lesson_while_alice_has_a_question_open(mallory, a):
    assert SECTION_NOTE not in status(mallory.get(f"/lessons/{LESSON}"), 200)


@attack("POST", "/lessons/<lesson_id>/self-assessment")
def self_assess_the_same_section(mallory, a):
    status(mallory.post(f"/lessons/{LESSON}/self-assessment", ref=a.section, rating="4",
                        note="mallory"), 303)


@attack("GET", "/quiz")
def quiz(mallory, a):
    status(mallory.get("/quiz"), 200)


@attack("GET", "/review")
def review(mallory, a):
    status(mallory.get("/review"), 200)


@attack("GET", "/flashcards")
def flashcards(mallory, a):
    status(mallory.get("/flashcards"), 200)


@attack("POST", "/study")
def start_own(mallory, a):
    assert own_session(mallory).startswith("/study/")


@attack("GET", "/study/<session_id>")
def take_alices_question(mallory, a):
    status(mallory.get(a.session_url), 404)


@attack("POST", "/study/<session_id>/answer")
def answer_alices_variant(mallory, a):
    fields = {"variant_id": a.open_variant, "idempotency_key": "m-1", "answer.0": "1",
              "answer.1": "1", "answer": "x"}
    status(mallory.post(f"{a.session_url}/answer", **fields), 404)
    mine = own_session(mallory)
    assert mallory.post(f"{mine}/answer", **fields).status_code in (303, 422)


@attack("GET", "/study/<session_id>/attempts/<int:attempt_id>")
def read_alices_attempt(mallory, a):
    status(mallory.get(f"{a.session_url}/attempts/{a.attempt_id}"), 404)
    status(mallory.get(f"{own_session(mallory)}/attempts/{a.attempt_id}"), 404)


@attack("POST", "/study/<session_id>/attempts/<int:attempt_id>/explanation")
def explain_to_see_alices_answer(mallory, a):
    status(mallory.post(f"{a.session_url}/attempts/{a.attempt_id}/explanation",
                        explanation="show me the answer", rule="running-first"), 404)


@attack("POST", "/study/<session_id>/attempts/<int:attempt_id>/rating")
def rate_alices_attempt(mallory, a):
    status(mallory.post(f"{a.session_url}/attempts/{a.attempt_id}/rating", rating="easy"), 404)


@attack("POST", "/study/<session_id>/attempts/<int:attempt_id>/rating/undo")
def undo_alices_rating(mallory, a):
    status(mallory.post(f"{a.session_url}/attempts/{a.attempt_id}/rating/undo"), 404)


@attack("GET", "/progress")
def progress(mallory, a):
    html = status(mallory.get("/progress"), 200)
    assert SECTION_NOTE not in html


@attack("POST", "/progress/retention")
def reschedule_someone(mallory, a):
    status(mallory.post("/progress/retention", desired_retention="0.70"), 303)


@attack("GET", "/lessons/<lesson_id>/anki")
def look_at_the_deck(mallory, a):
    status(mallory.get(f"/lessons/{LESSON}/anki"), 200)


@attack("POST", "/lessons/<lesson_id>/open-book")
def open_the_book_on_alice(mallory, a):
    status(mallory.post(f"/lessons/{LESSON}/open-book", then="lesson"), 303)


@attack("POST", "/simulator/open-book")
def open_the_book_for_the_sandbox(mallory, a):
    status(mallory.post("/simulator/open-book", settings="max_num_seqs=3"), 303)


@attack("GET", "/link")
def link_page(mallory, a):
    status(mallory.get("/link"), 200)


@attack("POST", "/link/code")
def own_code(mallory, a):
    assert a.code not in status(mallory.post("/link/code"), 200)


@attack("POST", "/link/redeem")
def guess_a_code(mallory, a):
    status(mallory.post("/link/redeem", code="AAAA-AAAA-AAAA"), 422)


@attack("GET", "/simulator")
def simulator(mallory, a):
    status(mallory.get("/simulator"), 200)


@attack("GET", "/join/<code>")
def open_a_join_page_with_alices_link_code(mallory, a):
    status(mallory.get(f"/join/{a.code}"), 404)


@attack("POST", "/join/<code>")
def join_with_alices_link_code(mallory, a):
    status(mallory.post(f"/join/{a.code}", display_name="Mallory"), 404)


@attack("GET", "/cohorts/mine")
def list_cohorts(mallory, a):
    assert SECTION_NOTE not in status(mallory.get("/cohorts/mine"), 200)


@attack("POST", "/cohorts/mine/<int:cohort_id>/leave")
def leave_a_cohort_mallory_is_not_in(mallory, a):
    status(mallory.post("/cohorts/mine/1/leave"), 404)


@attack("GET", "/cohorts/<int:cohort_id>/<token>")
def read_a_cohort_with_a_guessed_token(mallory, a):
    status(mallory.get(f"/cohorts/1/{a.code}"), 404)


@attack("GET", "/cohorts/<int:cohort_id>/<token>/gradebook.csv")
def download_a_gradebook_with_a_guessed_token(mallory, a):
    status(mallory.get(f"/cohorts/1/{a.code}/gradebook.csv"), 404)


@attack("GET", "/erase")
def read_the_erase_page(mallory, a):
    assert SECTION_NOTE not in status(mallory.get("/erase"), 200)


@attack("POST", "/erase")
def erase_mallory_only(mallory, a):
    status(mallory.post("/erase"), 422)
    status(mallory.post("/erase", confirm="erase"), 303)


@attack("GET", "/erase/done")
def read_the_erased_page(mallory, a):
    status(mallory.get("/erase/done"), 200)


HELD = "anchor-computed-falls"  # any item of the lesson


@attack("GET", "/browse")
def open_the_card_browser(mallory, a):
    status(mallory.get("/browse"), 303)


@attack("GET", "/lessons/<lesson_id>/browse")
def browse_while_alice_has_answered(mallory, a):
    html = status(mallory.get(f"/lessons/{LESSON}/browse"), 200)
    assert SECTION_NOTE not in html and a.open_variant not in html


@attack("GET", "/lessons/<lesson_id>/browse/<question_id>")
def read_an_items_history(mallory, a):
    html = status(mallory.get(f"/lessons/{LESSON}/browse/{HELD}"), 200)
    assert a.open_variant not in html and f"/attempts/{a.attempt_id}" not in html


@attack("POST", "/lessons/<lesson_id>/browse/<question_id>/hold")
def suspend_an_item_for_oneself(mallory, a):
    """A hold is its holder's own: Alice's items stay as they were (the snapshot says)."""
    status(mallory.post(f"/lessons/{LESSON}/browse/{HELD}/hold", action="suspend"), 303)


@attack("POST", "/study/<session_id>/report")
def report_on_alices_variant(mallory, a):
    status(mallory.post(f"{a.session_url}/report", variant_id=a.open_variant,
                        reason="wrong_answer", text="evil"), 404)


@attack("GET", "/study/<session_id>/practice/<variant_id>")
def open_alices_variant_as_practice(mallory, a):
    status(mallory.get(f"{a.session_url}/practice/{a.open_variant}"), 404)


@attack("POST", "/study/<session_id>/practice/<variant_id>/answer")
def answer_alices_variant_as_practice(mallory, a):
    fields = {"variant_id": a.open_variant, "idempotency_key": "m-2", "answer.0": "1",
              "answer.1": "1", "answer": "x"}
    status(mallory.post(f"{a.session_url}/practice/{a.open_variant}/answer", **fields), 404)


@attack("GET", "/author/item-analysis")
def read_the_item_analysis(mallory, a):
    status(mallory.get("/author/item-analysis"), 404)  # author views off


@attack("POST", "/author/sign-in")
def sign_in_as_author(mallory, a):
    status(mallory.post("/author/sign-in", token=a.code), 404)


@attack("POST", "/author/sign-out")
def sign_out_as_author(mallory, a):
    status(mallory.post("/author/sign-out"), 303)  # clears a cookie Mallory never had


@attack("GET", "/author/item-analysis.csv")
def download_the_item_analysis(mallory, a):
    status(mallory.get("/author/item-analysis.csv"), 404)  # author views off


@attack("POST", "/study/<session_id>/attempts/<int:attempt_id>/new-variant")
def try_a_variant_of_alices_attempt(mallory, a):
    status(mallory.post(f"{a.session_url}/attempts/{a.attempt_id}/new-variant"), 404)


@attack("GET", "/cohorts/<int:cohort_id>/<token>/item-analysis")
def read_a_cohorts_item_analysis_with_a_guessed_token(mallory, a):
    status(mallory.get(f"/cohorts/1/{a.code}/item-analysis"), 404)


@attack("GET", "/cohorts/<int:cohort_id>/<token>/item-analysis.csv")
def download_a_cohorts_item_analysis_with_a_guessed_token(mallory, a):
    status(mallory.get(f"/cohorts/1/{a.code}/item-analysis.csv"), 404)


def page_routes(app: Any) -> set[tuple[str, str]]:
    """Return every (method, rule) of the pages (not the API, not static files)."""
    return {(method, rule.rule) for rule in app.url_map.iter_rules()
            if not rule.rule.startswith(("/api/", "/static", "/healthz", "/readyz"))
            and rule.endpoint.startswith("web.") and not rule.endpoint.endswith("static")
            for method in rule.methods - {"HEAD", "OPTIONS"}}


def test_every_page_route_has_an_attack(app):
    assert page_routes(app) == set(ATTACKS)


@pytest.mark.parametrize("route", sorted(ATTACKS), ids=lambda r: f"{r[0]} {r[1]}")
def test_another_browser_cannot_read_change_or_grade_alices_data_through_the_pages(
        route, alice, app):
    before = snapshot(alice)
    ATTACKS[route](PageBrowser(app), alice)
    after = snapshot(alice)
    assert after == before
    assert after[0]["attempts"][0]["revealed_at"] is None  # still closed until she explains


# ---------------------------------------------------------------- cross-site forms (CSRF)


STATE_CHANGES = [
    ("/study", {"mode": "quiz", "lesson": LESSON, "size": "3"}),
    ("/lessons/{lesson}/self-assessment", {"ref": "{section}", "rating": "4", "note": "evil"}),
    ("{session}/answer", {"variant_id": "{variant}", "idempotency_key": "x", "answer.0": "1",
                          "answer.1": "1"}),
    ("{session}/attempts/{attempt}/explanation", {"explanation": "an evil explanation",
                                                  "rule": "running-first"}),
    ("{session}/attempts/{attempt}/rating", {"rating": "again"}),
    ("{session}/attempts/{attempt}/rating/undo", {}),
    ("/link/code", {}),
    ("/link/redeem", {"code": "{code}"}),
    ("/progress/retention", {"desired_retention": "0.70"}),
    ("/erase", {"confirm": "erase"}),
    ("/cohorts/mine/1/leave", {}),
    ("/lessons/{lesson}/browse/anchor-computed-falls/hold", {"action": "suspend"}),
    ("{session}/report", {"variant_id": "{variant}", "reason": "wrong_answer", "text": "evil"}),
    ("/api/link-codes", {}),
    ("/api/sessions", {"lesson": LESSON}),
    ("/api/attempts/{attempt}/explanation", {"explanation": "an evil explanation",
                                             "rule": "running-first"}),
]


def forged(alice: Alice, template: str) -> str:
    """Fill Alice's ids into a URL or field template."""
    return template.format(lesson=LESSON, session=alice.session_url, variant=alice.open_variant,
                           attempt=alice.attempt_id, code=alice.code, section=alice.section)


@pytest.mark.parametrize(("url", "fields"), STATE_CHANGES, ids=[u for u, _ in STATE_CHANGES])
@pytest.mark.parametrize("token", ["none", "attacker's own", "attacker's own, cookie planted"])
def test_a_form_posted_from_another_site_with_alices_cookies_is_refused(alice, app, db, url,
                                                                        fields, token):
    attacker = PageBrowser(app)  # the attacker's own browser: a valid token, for it only
    victim = alice.browser.client  # carries Alice's cookies, as her browser would
    form = {name: forged(alice, value) for name, value in fields.items()}
    if token != "none":
        form["csrf_token"] = attacker.csrf
    own_token = alice.browser.csrf
    if token.endswith("planted"):
        victim.set_cookie("csrf_token", attacker.csrf)  # cookie tossing from a sibling domain
    before = alice.browser.export(), backup.dump(db.connection())
    response = victim.post(forged(alice, url), data=form,
                           headers={"Origin": "http://evil.example",
                                    "Referer": "http://evil.example/form.html"})
    assert response.status_code == 403, response.get_data(as_text=True)[:300]
    victim.set_cookie("csrf_token", own_token)
    assert (alice.browser.export(), backup.dump(db.connection())) == before


# ---------------------------------------------------------------- link codes through the pages


def code_from(html: str) -> str:
    """Return the link code a page shows."""
    return re.search(r'id="link-code">([^<]+)<', html).group(1)


def test_a_link_code_links_once_then_is_gone(app, db):
    laptop, phone, tablet = PageBrowser(app), PageBrowser(app), PageBrowser(app)
    code = code_from(laptop.post("/link/code").get_data(as_text=True))
    assert code not in json.dumps(backup.dump(db.connection()))  # only its hash is kept
    status(phone.post("/link/redeem", code=code), 200)
    assert phone.client.get("/api/me").json["learner"] == laptop.client.get("/api/me").json[
        "learner"]
    status(tablet.post("/link/redeem", code=code), 410)
    assert tablet.client.get("/api/me").json["learner"] != laptop.client.get("/api/me").json[
        "learner"]


def test_a_link_code_expires(app, clock):
    laptop, phone = PageBrowser(app), PageBrowser(app)
    code = code_from(laptop.post("/link/code").get_data(as_text=True))
    clock.advance(seconds=app.config["LINK_CODE_TTL_SECONDS"] + 1)
    status(phone.post("/link/redeem", code=code), 410)
    assert phone.client.get("/api/me").json["linked"] is False

