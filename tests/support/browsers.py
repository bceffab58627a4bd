"""Drive the API and the pages like a browser in tests: cookies kept, CSRF echoed, answers
looked up."""

from __future__ import annotations

import re
from typing import Any

# A wrong answer's explanation long enough to count as a sentence (``review.diagnosis``).
SENTENCE = "I gave the budget to the wrong request."
RULE_RADIO = re.compile(r'name="rule" value="([^"]+)"')


def diagnosis(attempt: dict, rule: str | None = None, explanation: str = SENTENCE) -> dict:
    """Return an explanation's body for an attempt's JSON: ``rule`` (default: the first rule
    the attempt offers) and a sentence."""
    if rule is None:
        rule = attempt["diagnosis_options"][0]["id"] if attempt["diagnosis_options"] else None
    return {"rule": rule, "explanation": explanation}


class ApiBrowser:
    """Drive the API like one browser: cookies kept, CSRF header sent on state changes.

    A browser is stored from its first state change on; ``stored`` makes that happen at once
    (by clearing its self-assessments, which it has none of), so that tests can find its
    learner.
    """

    def __init__(self, app: Any, stored: bool = True) -> None:
        self.client = app.test_client()
        self.client.get("/api/me")
        if stored:
            assert self.delete("/api/self-assessments").status_code == 200

    @property
    def csrf(self) -> str:
        """Return the csrf_token cookie's value."""
        cookie = self.client.get_cookie("csrf_token")
        return cookie.value if cookie else ""

    def get(self, url: str, **kwargs: Any) -> Any:
        """GET ``url``."""
        return self.client.get(url, **kwargs)

    def send(self, method: str, url: str, json: Any = None, headers: dict | None = None,
             **kwargs: Any) -> Any:
        """Send a state-changing request with the CSRF header."""
        headers = {"X-CSRF-Token": self.csrf, **(headers or {})}
        return self.client.open(url, method=method, json=json, headers=headers, **kwargs)

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        """POST JSON with the CSRF header."""
        return self.send("POST", url, json, **kwargs)

    def put(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        """PUT JSON with the CSRF header."""
        return self.send("PUT", url, json, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Any:
        """DELETE with the CSRF header."""
        return self.send("DELETE", url, **kwargs)

    def explain(self, attempt: dict | int, rule: str | None = None,
                explanation: str = SENTENCE) -> Any:
        """Explain a wrong attempt (its JSON, or its id: read first) with a rule it offers
        (the first, unless given) and a sentence; return the response."""
        if isinstance(attempt, int):
            attempt = self.get(f"/api/attempts/{attempt}").json
        return self.post(f"/api/attempts/{attempt['id']}/explanation",
                         json=diagnosis(attempt, rule, explanation))


class FormBrowser:
    """One browser on the pages: cookies kept, forms posted with the hidden CSRF field, the
    way a page without JavaScript posts them."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.client.get("/")

    @property
    def csrf(self) -> str:
        """Return this browser's csrf_token cookie."""
        return self.client.get_cookie("csrf_token").value

    def get(self, url: str) -> Any:
        """GET a page."""
        return self.client.get(url)

    def post(self, url: str, **fields: Any) -> Any:
        """Post a form as the page would (with the hidden CSRF field)."""
        return self.client.post(url, data={"csrf_token": self.csrf, **fields})

    def explain(self, attempt_url: str, rule: str | None = None,
                explanation: str = SENTENCE) -> Any:
        """Post the attempt page's explanation form: ``rule`` (default: the first the page
        offers) and a sentence; return the response."""
        if rule is None:
            found = RULE_RADIO.search(self.get(attempt_url).get_data(as_text=True))
            rule = found.group(1) if found else ""
        return self.post(f"{attempt_url}/explanation", explanation=explanation, rule=rule)


class Study:
    """Walk the closed-book flow for one browser, looking answers up server-side."""

    def __init__(self, browser: ApiBrowser, db: Any, bank: Any) -> None:
        self.browser = browser
        self.db = db
        self.bank = bank
        self.keys = 0

    def start(self, lesson: str, mode: str = "review", size: int = 10) -> dict:
        """Start a session and return its JSON."""
        response = self.browser.post("/api/sessions",
                                     json={"lesson": lesson, "mode": mode, "size": size})
        assert response.status_code == 201, response.json
        return response.json

    def next(self, session_id: str) -> dict:
        """Return the next item's JSON."""
        response = self.browser.get(f"/api/sessions/{session_id}/next")
        assert response.status_code == 200, response.json
        return response.json

    def variant(self, variant_id: str) -> Any:
        """Rebuild the served variant from the stored seed (the client never sees it)."""
        from quizsvc.store.models import ServedVariant

        served = self.db.get(ServedVariant, variant_id)
        return self.bank.variant(served.question_id, served.seed)

    def right_answer(self, variant_id: str) -> Any:
        """Return the correct answer of a served variant."""
        return self.variant(variant_id).answer

    def wrong_answer(self, variant_id: str) -> Any:
        """Return a parseable wrong answer of a served variant."""
        return wrong_answer(self.variant(variant_id))

    def answer(self, variant_id: str, answer: Any, key: str | None = None) -> Any:
        """POST an attempt with a fresh (or given) idempotency key; return the response."""
        self.keys += 1
        return self.browser.post("/api/attempts", json={"variant_id": variant_id,
                                                        "answer": answer},
                                 headers={"Idempotency-Key": key or f"key-{self.keys}"})


def wrong_answer(variant: Any) -> Any:
    """Return a parseable wrong answer of a variant: a named misconception's when it has one."""
    right = variant.answer
    for misconception in variant.misconceptions:
        if misconception.answer != right and misconception.answer is not None:
            return misconception.answer
    if isinstance(right, int):
        return right + 1
    if isinstance(right, list) and all(isinstance(x, int) for x in right):
        return [x + 1 for x in right]
    if variant.input.type == "order":
        return list(reversed(right))
    options = [o.id for o in (variant.input.options or ())]
    if not options:  # a flashcard or an explanation: the learner rates, nothing is wrong
        raise AssertionError(f"{variant.question_id} ({variant.input.type}) has no "
                             "graded wrong answer")
    if isinstance(right, list):  # multi: leave one right option out, or pick a wrong one
        others = [o for o in options if o not in right]
        return right[:-1] if len(right) > 1 else others[:1]
    return next(o for o in options if o != right)
