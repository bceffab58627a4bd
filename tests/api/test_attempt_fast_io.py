"""``POST /api/attempts`` reads and writes by hand, and nobody can tell.

The route skips webargs and marshmallow for speed (``quizsvc.api.attempt_io``). These tests
send the same requests to it and to a reference copy of the route as it was (``REFERENCE``:
``@blp.arguments`` / ``@blp.response``), both on a stub ``submit_attempt``, and require the
same status, headers, body bytes and service call; they check ``attempt_json`` against
``AttemptSchema().dump`` over generated views; and they pin the operation's OpenAPI entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import marshmallow as ma
import pytest
from flask.views import MethodView
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizsvc.api.attempt_io import attempt_json
from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.identity import current_context
from quizsvc.api.schemas import AttemptCreateSchema, AttemptSchema, IdempotencyHeaderSchema
from quizsvc.api.services import study
from quizsvc.api.services.study import AttemptView, Reveal
from quizsvc.bank.model import Misconception, QuestionKind, Text
from tests.api.support import ApiBrowser

# ---------------------------------------------------------------- the route as it was

REFERENCE = ApiBlueprint("attempts_reference", __name__, url_prefix="/api/reference/attempts")


@REFERENCE.route("")
class ReferenceAttempts(MethodView):
    """The graded-answer view before it was hand-parsed, kept to compare against."""

    @REFERENCE.arguments(IdempotencyHeaderSchema, location="headers")
    @REFERENCE.arguments(AttemptCreateSchema)
    @REFERENCE.response(201, AttemptSchema)
    def post(self, headers: dict[str, Any], body: dict[str, Any]) -> Any:
        """Grade an answer through webargs and marshmallow."""
        result = study.submit_attempt(current_context(), body["variant_id"], body["answer"],
                                      headers["idempotency_key"])
        status_headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return result, 201, status_headers


# ---------------------------------------------------------------- views to answer with

WHEN = datetime(2026, 11, 2, 9, 0, 0, 123456, tzinfo=UTC)
SOLUTION = Text(zh="解答", en="solution")
WRONG_MODEL = Misconception(id="m-budget", name=Text(zh="预算", en="budget"), answer=[1, 2])
RIGHT = AttemptView(
    id=7, variant_id="v-1", question_id="q-1", kind="numeric", graded=True, correct=True,
    score=1.0, per_element=(True, True), closed_book=True, submitted_at=WHEN, duration_ms=1500,
    explanation_required=False, rating=None, rating_choices=("hard", "good", "easy"),
    reveal=Reveal(correct_answer=[3, 4], solution=SOLUTION, misconception=None,
                  lesson_link="/lessons/l#s", explanation=None))
WRONG = replace(RIGHT, id=8, correct=False, score=0, per_element=(False, True),
                explanation_required=True, rating="again", rating_choices=(), reveal=None)
EXPLAINED = replace(WRONG, reveal=Reveal(correct_answer={"a": None}, solution=SOLUTION,
                                         misconception=WRONG_MODEL, lesson_link="/l",
                                         explanation="I mixed up the budget"))
CARD = replace(RIGHT, id=9, kind=QuestionKind.FLASHCARD, graded=False, correct=None,
               score=None, per_element=(), submitted_at=datetime(2026, 1, 1, 0, 0),
               replayed=True)
VIEWS = (RIGHT, WRONG, EXPLAINED, CARD, replace(WRONG, replayed=True))


@dataclass
class StubService:
    """Stand in for ``study.submit_attempt``: record each call, answer with a canned view."""

    calls: list[str] = field(default_factory=list)

    def __call__(self, ctx: Any, variant_id: str, answer: Any, idempotency_key: str
                 ) -> AttemptView:
        """Record the call (``repr`` tells 1 from 1.0 from True) and pick a view by key."""
        self.calls.append(repr((variant_id, answer, idempotency_key)))
        return VIEWS[len(idempotency_key) % len(VIEWS)]


def key_for(view: AttemptView) -> str:
    """Return an Idempotency-Key the stub answers with ``view``."""
    return "k" * (VIEWS.index(view) or len(VIEWS))


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> StubService:
    """Replace the answer use case by a stub for both routes."""
    stub = StubService()
    monkeypatch.setattr(study, "submit_attempt", stub)
    return stub


@pytest.fixture
def browser(app: Any) -> ApiBrowser:
    """Return a browser on an app that also serves ``REFERENCE`` (registered before use)."""
    app.register_blueprint(REFERENCE)
    return ApiBrowser(app)


@dataclass(frozen=True)
class Sent:
    """One raw request: body bytes, Content-Type (None: no header) and Idempotency-Key."""

    data: bytes
    content_type: str | None = "application/json"
    key: str | None = "key-1"


def send(browser: ApiBrowser, url: str, sent: Sent) -> Any:
    """POST ``sent`` to ``url`` with the browser's CSRF header."""
    headers = {} if sent.key is None else {"Idempotency-Key": sent.key}
    kwargs: dict[str, Any] = {"data": sent.data}
    if sent.content_type is not None:
        kwargs["content_type"] = sent.content_type
    return browser.send("POST", url, headers=headers, **kwargs)


def assert_same_answer(browser: ApiBrowser, service: StubService, sent: Sent) -> Any:
    """Send ``sent`` to both routes; require identical responses and service calls."""
    before = len(service.calls)
    old = send(browser, "/api/reference/attempts", sent)
    middle = len(service.calls)
    new = send(browser, "/api/attempts", sent)
    old_calls, new_calls = service.calls[before:middle], service.calls[middle:]
    assert (new.status_code, new.get_data()) == (old.status_code, old.get_data()), sent
    assert new.headers.to_wsgi_list() == old.headers.to_wsgi_list(), sent
    assert new_calls == old_calls, sent
    return new


def body(value: Any) -> bytes:
    """Encode ``value`` as JSON bytes."""
    return json.dumps(value).encode()


def nested(depth: int) -> Any:
    """Return a list nested ``depth`` levels deep."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


JSON_VALUES = [None, True, False, 0, -1, 1.5, 1e300, 10**30, "", "text", "é中🙂", [], [1, 2],
               {}, {"a": [1, {"b": None}]}, nested(5)]
BODIES: list[tuple[str, Sent]] = [
    *[(f"answer {value!r:.30}", Sent(body({"variant_id": "v-1", "answer": value})))
      for value in JSON_VALUES],
    ("no answer", Sent(body({"variant_id": "v-1"}))),
    ("keys in the other order", Sent(body({"answer": 3, "variant_id": "v-1"}))),
    ("variant_id of 64", Sent(body({"variant_id": "x" * 64, "answer": 1}))),
    ("variant_id of 64 non-ASCII", Sent(body({"variant_id": "é" * 64, "answer": 1}))),
    ("duplicate key, last wins", Sent(b'{"variant_id": "a", "variant_id": "b", "answer": 1}')),
    ("charset parameter", Sent(body({"variant_id": "v"}), "application/json; charset=utf-8")),
    ("+json type", Sent(body({"variant_id": "v", "answer": 1}), "application/vnd.api+json")),
    ("no variant_id", Sent(body({"answer": 1}))),
    ("empty object", Sent(b"{}")),
    ("empty variant_id", Sent(body({"variant_id": "", "answer": 1}))),
    ("variant_id of 65", Sent(body({"variant_id": "x" * 65, "answer": 1}))),
    *[(f"variant_id {value!r:.20}", Sent(body({"variant_id": value, "answer": 1})))
      for value in [None, 1, 1.0, True, [], ["v"], {}]],
    ("an unknown key", Sent(body({"variant_id": "v", "answer": 1, "extra": 2}))),
    ("only unknown keys", Sent(body({"extra": 2}))),
    ("a key in another case", Sent(body({"Variant_id": "v", "answer": 1}))),
    ("unknown key and bad variant", Sent(body({"variant_id": 5, "x": 1}))),
    *[(f"body {value!r:.20}", Sent(body(value))) for value in [[], [1], "v", 1, None, True]],
    ("empty body", Sent(b"")),
    ("blank body", Sent(b"  ")),
    ("truncated JSON", Sent(b'{"variant_id": "v"')),
    ("single quotes", Sent(b"{'variant_id': 'v'}")),
    ("trailing comma", Sent(b'{"variant_id": "v",}')),
    ("not UTF-8", Sent(b'{"variant_id": "\xff"}')),
    ("NaN", Sent(b'{"variant_id": "v", "answer": NaN}')),
    ("Infinity", Sent(b"Infinity")),
    ("a number of 5000 digits", Sent(b'{"variant_id": "v", "answer": ' + b"1" * 5000 + b"}")),
    ("NUL in variant_id", Sent(body({"variant_id": "a\x00b", "answer": 1}))),
    ("NUL in the answer", Sent(body({"variant_id": "v", "answer": ["\x00"]}))),
    ("NUL in a key", Sent(body({"variant_id": "v", "answer": {"k\x00": 1}}))),
    ("NUL in an unknown key", Sent(body({"variant_id": "v", "x\x00": 1}))),
    ("lone surrogate", Sent(b'{"variant_id": "v", "answer": "\\ud800"}')),
    ("answer 31 levels deep", Sent(body({"variant_id": "v", "answer": nested(30)}))),
    ("answer 33 levels deep", Sent(body({"variant_id": "v", "answer": nested(32)}))),
    ("answer 100000 levels deep", Sent(b'{"variant_id": "v", "answer": '
                                       + b"[" * 100_000 + b"]" * 100_000 + b"}")),
    ("text/plain body", Sent(body({"variant_id": "v", "answer": 1}), "text/plain")),
    ("form body", Sent(b"variant_id=v&answer=1", "application/x-www-form-urlencoded")),
    ("no Content-Type", Sent(body({"variant_id": "v", "answer": 1}), None)),
    ("text/plain, no body", Sent(b"", "text/plain")),
    ("no Content-Type, no body", Sent(b"", None)),
]
KEYS: list[tuple[str, str | None]] = [
    ("a key", "key-1"), ("no key", None), ("an empty key", ""), ("a blank key", " "),
    ("a key with NUL", "k\x00y"), ("a key of 1", "k"), ("a key of 200", "k" * 200),
    ("a key of 201", "k" * 201),
]


@pytest.mark.parametrize(("what", "sent"), BODIES, ids=[what for what, _ in BODIES])
def test_the_hand_parsed_route_answers_every_request_as_webargs_did(browser, service, what,
                                                                    sent):
    for _, key in KEYS:  # a bad key is reported before any problem in the body
        assert_same_answer(browser, service, replace(sent, key=key))


def test_a_plainly_valid_answer_is_read_and_written_without_marshmallow(
        browser, service, monkeypatch):
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("marshmallow was used")

    monkeypatch.setattr(ma.Schema, "load", refuse)
    monkeypatch.setattr(ma.Schema, "dump", refuse)
    response = send(browser, "/api/attempts",
                    Sent(body({"variant_id": "v-1", "answer": [1, 2]}), key=key_for(EXPLAINED)))
    assert response.status_code == 201
    assert response.json["reveal"]["misconception"]["id"] == WRONG_MODEL.id


def test_a_replayed_answer_says_so_in_a_header(browser, service):
    assert CARD.replayed and not RIGHT.replayed
    replayed = assert_same_answer(browser, service,
                                  Sent(body({"variant_id": "v"}), key=key_for(CARD)))
    assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"
    first = assert_same_answer(browser, service,
                               Sent(body({"variant_id": "v"}), key=key_for(RIGHT)))
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)
HEADER_TEXT = st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f")


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.dictionaries(st.sampled_from(["variant_id", "answer", "extra"]),
                                JSON | st.text(max_size=70), max_size=3) | JSON,
       key=st.none() | st.text(HEADER_TEXT, max_size=3) | st.just("k" * 201))
def test_generated_bodies_get_the_same_answer_from_both_routes(browser, service, document,
                                                               key):
    assert_same_answer(browser, service, Sent(body(document), key=key))


# ---------------------------------------------------------------- attempt_json == dump

def same_dump(view: AttemptView) -> None:
    """Require ``attempt_json`` to equal ``AttemptSchema().dump`` in keys, order and types."""
    fast, slow = attempt_json(view), AttemptSchema().dump(view)
    assert repr(fast) == repr(slow)  # repr tells 1 from 1.0 and sees key order and NaN


@pytest.mark.parametrize("view", [
    *VIEWS,
    replace(RIGHT, score=float("nan"), per_element=()),
    replace(RIGHT, submitted_at=datetime(2026, 11, 2, 9, 0, tzinfo=UTC)),
    replace(RIGHT, submitted_at=datetime(2026, 11, 2, 9, 0, 0, 1,
                                         tzinfo=timezone(timedelta(hours=5, minutes=30)))),
    replace(RIGHT, submitted_at=datetime(2026, 11, 2, 9, 0,
                                         tzinfo=timezone(-timedelta(seconds=3601)))),
    replace(RIGHT, rating="good", reveal=replace(EXPLAINED.reveal, correct_answer=None)),
], ids=lambda view: f"view-{view.id}-{view.submitted_at.isoformat()}")
def test_attempt_json_equals_the_schema_dump_on_hand_picked_views(view):
    same_dump(view)


TEXTS = st.builds(Text, zh=st.text(), en=st.text())
OFFSETS = st.timedeltas(min_value=timedelta(hours=-23, minutes=-59),
                        max_value=timedelta(hours=23, minutes=59)).map(timezone)
REVEALS = st.builds(
    Reveal, correct_answer=JSON, solution=TEXTS, lesson_link=st.text(),
    misconception=st.none() | st.builds(Misconception, id=st.text(), name=TEXTS, answer=JSON),
    explanation=st.none() | st.text())
ATTEMPT_VIEWS = st.builds(
    AttemptView, id=st.integers(), variant_id=st.text(), question_id=st.text(),
    kind=st.text() | st.sampled_from(QuestionKind), graded=st.booleans(),
    correct=st.none() | st.booleans(), score=st.none() | st.floats(),
    per_element=st.lists(st.booleans()).map(tuple), closed_book=st.booleans(),
    submitted_at=st.datetimes(timezones=st.none() | st.just(UTC) | OFFSETS),
    duration_ms=st.integers(min_value=0), explanation_required=st.booleans(),
    rating=st.none() | st.text(), rating_choices=st.lists(st.text()).map(tuple),
    reveal=st.none() | REVEALS, replayed=st.booleans())


@settings(max_examples=500)
@given(view=ATTEMPT_VIEWS)
def test_attempt_json_equals_the_schema_dump_on_generated_views(view):
    same_dump(view)


# ---------------------------------------------------------------- the OpenAPI entry

# GET /api/openapi.json's entry for this operation while it still used @blp.arguments.
OPERATION_BEFORE = {
    "summary": "Grade an answer; a retry with the same Idempotency-Key returns the first result.",
    "description": "After a wrong answer, ``reveal`` is null until an explanation is posted.",
    "tags": ["attempts"],
    "parameters": [{"in": "header", "name": "Idempotency-Key", "required": True,
                    "schema": {"type": "string", "minLength": 1, "maxLength": 200}}],
    "requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/AttemptCreate"}}}},
    "responses": {
        "201": {"description": "Created", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Attempt"}}}},
        "422": {"$ref": "#/components/responses/UNPROCESSABLE_ENTITY"},
        "default": {"$ref": "#/components/responses/DEFAULT_ERROR"},
    },
}
ATTEMPT_CREATE_BEFORE = {
    "type": "object",
    "properties": {"variant_id": {"type": "string", "minLength": 1, "maxLength": 64},
                   "answer": {"nullable": True, "default": None}},
    "required": ["variant_id"],
    "additionalProperties": False,
}


def test_the_openapi_document_describes_the_answer_as_before(client):
    document = client.get("/api/openapi.json").json
    assert document["paths"]["/api/attempts"] == {"post": OPERATION_BEFORE}
    assert document["components"]["schemas"]["AttemptCreate"] == ATTEMPT_CREATE_BEFORE
