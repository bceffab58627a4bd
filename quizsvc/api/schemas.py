"""Declare the API's request and response shapes, by hand and apart from the tables.

Request schemas raise on unknown keys (marshmallow's default, kept on purpose); server-set
fields are ``dump_only``. Validators raise ``ValidationError``, as marshmallow 4 requires.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

import marshmallow as ma
from marshmallow import fields

from quizsvc.bank.model import QuestionKind
from quizsvc.errors import N_
from quizsvc.http.arguments import RETENTION, REVIEW_RATING, SELF_RATING, StrictSchema
from quizsvc.http.schema import Schema
from quizsvc.http.validators import Length, OneOf, Range, Said
from quizsvc.study.limits import (
    MAX_EXPLANATION,
    MAX_IDEMPOTENCY_KEY,
    MAX_NOTE,
    MAX_REF,
    MAX_TEXT_ANSWER,
)
from quizsvc.study.portability import EXPORT_FORMAT, IMPORT_FORMATS, ORIGINS

MAX_SEALED = 600  # characters of a sealed seed, content key and misconception id
MAX_ANSWER_ITEMS = 64  # elements of a stored answer (a vector, a set or an order of options)
MAX_ANSWER_NUMBER = 10**18 - 1  # the graders read at most 18 digits

MAX_INT32 = 2**31 - 1  # the Integer columns' range on PostgreSQL
class StoredTime(fields.AwareDateTime):
    """A timezone-aware time the database can store: in UTC, years 1970 to 9998.

    ``9999-12-31T23:59:59-12:00`` is a valid ISO time that no column holds: in UTC it falls in
    the year 10000. Such a time is a 422 naming the field, not an overflow deep in a query.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        moment = super()._deserialize(value, attr, data, **kwargs)
        try:
            in_utc = moment.astimezone(UTC)
        except (OverflowError, ValueError):
            raise ma.ValidationError("not a time this service can store") from None
        if not 1970 <= in_utc.year <= 9998:
            raise ma.ValidationError("must lie between the years 1970 and 9998 (UTC)")
        return in_utc


STABILITY = Range(min=0, max=1e6)  # days; fsrs caps intervals at 36500
DIFFICULTY = Range(min=1, max=10)  # fsrs keeps difficulty in [1, 10]


class HealthSchema(Schema):
    """Liveness answer."""

    status = fields.String(dump_only=True)


class DependencySchema(Schema):
    """What one dependency answered the readiness probe."""

    status = fields.String(dump_only=True, metadata={
        "description": "ok, unreachable or behind (the database's schema)"})
    detail = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "why not ok: the error's class, or the revision to migrate to"})


class ReadySchema(Schema):
    """Readiness answer: ready when every dependency answers and the database is migrated."""

    status = fields.String(dump_only=True, metadata={"description": "ready or not_ready"})
    revision = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "the database's schema revision (null when unreachable)"})
    dependencies = fields.Dict(
        keys=fields.String(), values=fields.Nested(DependencySchema), dump_only=True,
        metadata={"description": "database, and redis / rate_limits where configured"})


class MeSchema(Schema):
    """Who this browser is, as far as the browser needs to know."""

    learner = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "opaque learner handle: equal for linked browsers; null until "
                       "this browser stores something"})
    linked = fields.Boolean(dump_only=True)
    csrf_token = fields.String(dump_only=True, metadata={
        "description": "the token to echo in X-CSRF-Token (same as the csrf_token cookie)"})


class LinkCodeSchema(Schema):
    """A one-time code, shown once, to type into another browser."""

    code = fields.String(dump_only=True)
    expires_at = fields.DateTime(dump_only=True)






class TextSchema(Schema):
    """A text in Chinese (the lesson's language) and English."""

    zh = fields.String(dump_only=True)
    en = fields.String(dump_only=True)


class SectionSchema(Schema):
    """One lesson section: the unit of per-section self-assessment."""

    id = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)


class LessonSummarySchema(Schema):
    """A lesson as listed."""

    id = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    sections = fields.List(fields.Nested(SectionSchema), dump_only=True)
    questions = fields.Integer(dump_only=True)
    kinds = fields.Dict(keys=fields.String(), values=fields.Integer(), dump_only=True)




class QuestionBriefSchema(Schema):
    """A question's identity, without any variant."""

    id = fields.String(dump_only=True)
    kind = fields.String(dump_only=True)
    section = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)


class LessonTextSchema(Schema):
    """A lesson's text (refused, 409 questions_open, while questions of it are open)."""

    id = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    lang = fields.String(dump_only=True)
    text = fields.String(dump_only=True)
    sections = fields.List(fields.Nested(SectionSchema), dump_only=True)
    questions = fields.List(fields.Nested(QuestionBriefSchema), dump_only=True)


class OpenedBookSchema(Schema):
    """How many open closed-book questions opening the book made open-book."""

    opened_book = fields.Integer(dump_only=True)




class SessionSchema(Schema):
    """A session and its progress."""

    id = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    mode = fields.String(dump_only=True)
    size = fields.Integer(dump_only=True)
    total = fields.Integer(dump_only=True, metadata={"description": "questions picked"})
    answered = fields.Integer(dump_only=True)
    due = fields.Integer(dump_only=True)
    new = fields.Integer(dump_only=True)
    practice = fields.Integer(dump_only=True)
    done = fields.Boolean(dump_only=True)
    created_at = fields.DateTime(dump_only=True)


class OptionSchema(Schema):
    """One selectable option."""

    id = fields.String(dump_only=True)
    text = fields.Nested(TextSchema, dump_only=True)


class AnswerInputSchema(Schema):
    """The shape of answer a variant expects."""

    type = fields.String(dump_only=True)
    length = fields.Integer(dump_only=True, allow_none=True)
    labels = fields.List(fields.String(), dump_only=True)
    options = fields.List(fields.Nested(OptionSchema), dump_only=True)


class ServedQuestionSchema(Schema):
    """A served variant: prompt and displayed parameters, never answer, seed or scenario."""

    variant_id = fields.String(dump_only=True)
    question_id = fields.String(dump_only=True)
    kind = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    section = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    prompt = fields.Nested(TextSchema, dump_only=True)
    params = fields.Dict(dump_only=True)
    input = fields.Nested(AnswerInputSchema, dump_only=True)
    served_at = fields.DateTime(dump_only=True)


class NextItemSchema(Schema):
    """The session's next question, or ``done`` with ``question: null``."""

    session = fields.Nested(SessionSchema, dump_only=True)
    position = fields.Integer(dump_only=True, allow_none=True)
    done = fields.Boolean(dump_only=True)
    question = fields.Nested(ServedQuestionSchema, dump_only=True, allow_none=True)


class SummaryItemSchema(Schema):
    """One question of a session and how it went."""

    position = fields.Integer(dump_only=True)
    question_id = fields.String(dump_only=True)
    kind = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    section = fields.String(dump_only=True)
    attempt_id = fields.Integer(dump_only=True, allow_none=True,
                                metadata={"description": "null: not answered"})
    graded = fields.Boolean(dump_only=True)
    correct = fields.Boolean(dump_only=True, allow_none=True)
    score = fields.Float(dump_only=True, allow_none=True)
    closed_book = fields.Boolean(dump_only=True)
    revealed = fields.Boolean(dump_only=True)
    rating = fields.String(dump_only=True, allow_none=True)
    due = fields.DateTime(dump_only=True, allow_none=True,
                          metadata={"description": "when the question's card is due next"})
    mastered = fields.Boolean(dump_only=True)
    mastered_in_session = fields.Boolean(dump_only=True)


class SessionSummarySchema(Schema):
    """A session's score, its items, the next due review and what it mastered."""

    session = fields.Nested(SessionSchema, dump_only=True)
    items = fields.List(fields.Nested(SummaryItemSchema), dump_only=True)
    right = fields.Integer(dump_only=True, metadata={"description": "graded answers right"})
    graded = fields.Integer(dump_only=True, metadata={"description": "graded answers given"})
    next_due = fields.DateTime(dump_only=True, allow_none=True)
    mastered_now = fields.List(fields.String(), dump_only=True)
    mistakes = fields.List(fields.String(), dump_only=True,
                           metadata={"description": "question ids answered wrong; start a "
                                     "session with retry_of to take them again"})


class MisconceptionSchema(Schema):
    """A named wrong model (its answer is not repeated)."""

    id = fields.String(dump_only=True)
    name = fields.Nested(TextSchema, dump_only=True)


class WrongModelSchema(Schema):
    """The named wrong model a wrong answer matched, and the rule of the lesson it breaks."""

    id = fields.String(dump_only=True)
    name = fields.Nested(TextSchema, dump_only=True)
    believes = fields.Nested(TextSchema, dump_only=True,
                             metadata={"description": "the wrong rule this model follows"})
    breaks = fields.String(dump_only=True, metadata={"description": "rules.yaml id"})
    breaks_title = fields.Nested(TextSchema, dump_only=True)
    taught_at = fields.String(dump_only=True,
                              metadata={"description": "where the lesson teaches that rule"})


class RuleOptionSchema(Schema):
    """A rule of the lesson a learner may name as the one a wrong answer broke."""

    id = fields.String(dump_only=True, metadata={"description": "rules.yaml id"})
    title = fields.Nested(TextSchema, dump_only=True)


class DiagnosisSchema(Schema):
    """The rule the learner named as broken, graded where a wrong model matched."""

    rule = fields.String(dump_only=True, metadata={"description": "rules.yaml id"})
    title = fields.Nested(TextSchema, dump_only=True, allow_none=True)
    taught_at = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "where the lesson teaches the named rule"})
    matched = fields.Boolean(dump_only=True, allow_none=True, metadata={
        "description": "whether it names the rule the matched wrong model breaks "
                       "(wrong_model.breaks); null when no wrong model matched. Never "
                       "mastery"})


class RevealSchema(Schema):
    """What a learner earns: at once when right, after an explanation when wrong."""

    correct_answer = fields.Raw(dump_only=True)
    solution = fields.Nested(TextSchema, dump_only=True)
    misconception = fields.Nested(MisconceptionSchema, dump_only=True, allow_none=True)
    wrong_model = fields.Nested(WrongModelSchema, dump_only=True, allow_none=True)
    lesson_link = fields.String(dump_only=True)
    explanation = fields.String(dump_only=True, allow_none=True)
    diagnosis = fields.Nested(DiagnosisSchema, dump_only=True, allow_none=True)


class AttemptSchema(Schema):
    """An attempt's result."""

    id = fields.Integer(dump_only=True)
    variant_id = fields.String(dump_only=True)
    question_id = fields.String(dump_only=True)
    kind = fields.String(dump_only=True)
    graded = fields.Boolean(dump_only=True)
    correct = fields.Boolean(dump_only=True, allow_none=True)
    score = fields.Float(dump_only=True, allow_none=True)
    per_element = fields.List(fields.Boolean(), dump_only=True)
    closed_book = fields.Boolean(dump_only=True)
    practice = fields.Boolean(dump_only=True, metadata={
        "description": "answered soon after this question's answer was revealed: graded, "
                       "but practice, never mastery evidence (closed_book is false)"})
    submitted_at = fields.DateTime(dump_only=True)
    duration_ms = fields.Integer(dump_only=True)
    explanation_required = fields.Boolean(dump_only=True)
    rating = fields.String(dump_only=True, allow_none=True)
    rating_choices = fields.List(fields.String(), dump_only=True)
    submitted_answer = fields.Raw(dump_only=True, allow_none=True, metadata={
        "description": "the learner's own answer, as sent"})
    reveal = fields.Nested(RevealSchema, dump_only=True, allow_none=True)
    diagnosis_options = fields.List(fields.Nested(RuleOptionSchema), dump_only=True, metadata={
        "description": "while explanation_required: the rules the explanation's rule may "
                       "name (the question's, those its wrong models break, their "
                       "sections'); empty otherwise"})










class DueCardSchema(Schema):
    """One card of the due queue."""

    question_id = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    due = fields.DateTime(dump_only=True)
    state = fields.Integer(dump_only=True)
    retrievability = fields.Float(dump_only=True, allow_none=True, metadata={
        "description": "fsrs's probability of recall now (null before the first review)"})


class ForecastDaySchema(Schema):
    """Cards falling due on one UTC day."""

    day = fields.Date(dump_only=True)
    count = fields.Integer(dump_only=True)


class DueReportSchema(Schema):
    """Due now, new, the queue's head and the 30-day forecast."""

    now = fields.DateTime(dump_only=True)
    lesson = fields.String(dump_only=True, allow_none=True)
    due_now = fields.Integer(dump_only=True)
    new = fields.Integer(dump_only=True)
    cards = fields.Integer(dump_only=True)
    next_due = fields.DateTime(dump_only=True, allow_none=True)
    items = fields.List(fields.Nested(DueCardSchema), dump_only=True)
    forecast = fields.List(fields.Nested(ForecastDaySchema), dump_only=True)


class MasteryRecordSchema(Schema):
    """A mastery record, written only by the mastery policy."""

    question_id = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    mastered = fields.Boolean(dump_only=True)
    mastered_at = fields.DateTime(dump_only=True, allow_none=True)
    evidence = fields.List(fields.Integer(), dump_only=True, metadata={
        "description": "ids of the attempts that earned it"})
    policy = fields.String(dump_only=True)
    evaluated_at = fields.DateTime(dump_only=True)


class AccuracySchema(Schema):
    """Graded attempts and right answers."""

    attempts = fields.Integer(dump_only=True)
    correct = fields.Integer(dump_only=True)
    rate = fields.Float(dump_only=True, allow_none=True)
    closed_book_attempts = fields.Integer(dump_only=True)
    closed_book_correct = fields.Integer(dump_only=True)


class ReliabilityRowSchema(Schema):
    """One self-assessment rating against observed accuracy."""

    rating = fields.Integer(dump_only=True)
    predicted = fields.Float(dump_only=True)
    attempts = fields.Integer(dump_only=True)
    observed = fields.Float(dump_only=True, allow_none=True)


class CalibrationSchema(Schema):
    """Self-assessments against graded accuracy (computed on read)."""

    pairs = fields.Integer(dump_only=True)
    brier = fields.Float(dump_only=True, allow_none=True)
    table = fields.List(fields.Nested(ReliabilityRowSchema), dump_only=True)


class DiagnosisWeekSchema(Schema):
    """One week (from Monday, UTC) of graded diagnoses."""

    week = fields.Date(dump_only=True)
    diagnoses = fields.Integer(dump_only=True, metadata={
        "description": "explained wrong answers that matched a named wrong model"})
    named = fields.Integer(dump_only=True, metadata={
        "description": "of those, the diagnoses that named the rule the model breaks"})
    rate = fields.Float(dump_only=True)


class ProgressSchema(Schema):
    """The dashboard: due, mastered, accuracy, calibration, diagnosis accuracy by week."""

    lesson = fields.String(dump_only=True, allow_none=True)
    questions = fields.Integer(dump_only=True)
    due_now = fields.Integer(dump_only=True)
    new = fields.Integer(dump_only=True)
    mastered = fields.Integer(dump_only=True)
    graded = fields.Integer(dump_only=True, metadata={
        "description": "the graded questions, of `questions`: only these can become mastery "
                       "(flashcards and written explanations are self-rated)"})
    accuracy = fields.Nested(AccuracySchema, dump_only=True)
    calibration = fields.Nested(CalibrationSchema, dump_only=True)
    diagnoses = fields.List(fields.Nested(DiagnosisWeekSchema), dump_only=True, metadata={
        "description": "the last 12 weeks with graded diagnoses, oldest first: how often the "
                       "rule named with a wrong answer's explanation was the one its matched "
                       "wrong model breaks. Never mastery"})



class SectionProgressSchema(Schema):
    """One lesson section: questions, mastered, closed-book accuracy."""

    lesson = fields.String(dump_only=True)
    section = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    questions = fields.Integer(dump_only=True)
    graded = fields.Integer(dump_only=True, metadata={
        "description": "the section's graded questions: only these can become mastery"})
    mastered = fields.Integer(dump_only=True)
    answers = fields.Integer(dump_only=True, metadata={"description": "closed-book, graded"})
    correct = fields.Integer(dump_only=True)
    accuracy = fields.Float(dump_only=True, allow_none=True)


class WeakItemSchema(Schema):
    """A question answered wrong most often, and where its rule is taught."""

    question_id = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    answers = fields.Integer(dump_only=True)
    correct = fields.Integer(dump_only=True)
    taught_at = fields.String(dump_only=True)


class DayAccuracySchema(Schema):
    """Closed-book answers on one UTC day."""

    day = fields.Date(dump_only=True)
    answers = fields.Integer(dump_only=True)
    correct = fields.Integer(dump_only=True)


class SectionReportSchema(Schema):
    """Mastery and accuracy per section, the weakest questions, the 30-day history."""

    sections = fields.List(fields.Nested(SectionProgressSchema), dump_only=True)
    weakest = fields.List(fields.Nested(WeakItemSchema), dump_only=True)
    history = fields.List(fields.Nested(DayAccuracySchema), dump_only=True)


class DayReviewsSchema(Schema):
    """Reviews on one UTC day (questions and flashcards)."""

    day = fields.Date(dump_only=True)
    reviews = fields.Integer(dump_only=True)


class WeekRetentionSchema(Schema):
    """Reviews of learned cards in one week, and how many were recalled (not Again)."""

    first_day = fields.Date(dump_only=True)
    last_day = fields.Date(dump_only=True)
    reviews = fields.Integer(dump_only=True)
    recalled = fields.Integer(dump_only=True)
    retention = fields.Float(dump_only=True, allow_none=True, metadata={
        "description": "recalled / reviews; null for a week without such reviews"})


class ReviewStatisticsSchema(Schema):
    """What the progress page's charts draw (the due forecast is ``/api/reviews/due``'s)."""

    today = fields.Date(dump_only=True)
    reviews_per_day = fields.List(fields.Nested(DayReviewsSchema), dump_only=True)
    retention = fields.List(fields.Nested(WeekRetentionSchema), dump_only=True)
    desired_retention = fields.Float(dump_only=True)


class SelfAssessmentSchema(Schema):
    """A stored self-assessment."""

    ref = fields.String(dump_only=True)
    ref_kind = fields.String(dump_only=True)
    rating = fields.Integer(dump_only=True)
    label = fields.String(dump_only=True)
    note = fields.String(dump_only=True, allow_none=True)
    updated_at = fields.DateTime(dump_only=True)


class DeletedSchema(Schema):
    """How many rows a clear removed."""

    deleted = fields.Integer(dump_only=True)




class ExportSelfAssessmentSchema(StrictSchema):
    """A self-assessment in an export document."""

    ref = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    ref_kind = fields.String(required=True, validate=OneOf(("question", "section")))
    rating = fields.Integer(required=True, strict=True, validate=SELF_RATING)
    note = fields.String(required=True, allow_none=True, validate=Length(max=MAX_NOTE))
    updated_at = StoredTime(required=True, format="iso")


def check_answer_value(value: Any) -> None:
    """Refuse an answer no grader stores: a number, a text, or a short list of them.

    An imported answer is stored as given and written back by every later export, so it
    must be a value the export can write: no 4,000-digit integer, no nesting.
    """
    if isinstance(value, list):
        if len(value) > MAX_ANSWER_ITEMS:
            raise ma.ValidationError(Said(N_("at most %(max)s elements"),
                                          {"max": MAX_ANSWER_ITEMS}))
        items = value
    else:
        items = [] if value is None else [value]
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | float | str):
            raise ma.ValidationError(Said(N_("expected a number, a text or a list of them"),
                                          {}))
        if isinstance(item, str) and len(item) > MAX_TEXT_ANSWER:
            raise ma.ValidationError(Said(N_("at most %(max)s characters"),
                                          {"max": MAX_TEXT_ANSWER}))
        if isinstance(item, int | float) and abs(item) > MAX_ANSWER_NUMBER:
            raise ma.ValidationError(Said(N_("too large: at most 18 digits"), {}))


class ExportAttemptSchema(StrictSchema):
    """An attempt in an export document; ``n`` numbers it for the review log's references.

    While its reveal is withheld, ``seed``, ``content_key`` and ``misconception_id`` are null
    and travel in ``sealed``, readable by this deployment only.
    """

    n = fields.Integer(required=True, strict=True, validate=Range(min=1, max=MAX_INT32))
    question_id = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    kind = fields.String(required=True, validate=OneOf([k.value for k in QuestionKind]))
    seed = fields.Integer(required=True, strict=True, allow_none=True,
                          validate=Range(min=0, max=2**63 - 1))
    bank_version = fields.String(required=True, validate=Length(min=1, max=64))
    answer = fields.Raw(required=True, allow_none=True, validate=check_answer_value)
    graded = fields.Boolean(required=True)
    correct = fields.Boolean(required=True, allow_none=True)
    score = fields.Float(required=True, allow_none=True, validate=Range(min=0, max=1))
    misconception_id = fields.String(required=True, allow_none=True,
                                     validate=Length(max=MAX_REF))
    served_at = StoredTime(required=True, format="iso")
    submitted_at = StoredTime(required=True, format="iso")
    duration_ms = fields.Integer(required=True, strict=True,
                                 validate=Range(min=0, max=MAX_INT32))
    closed_book = fields.Boolean(required=True)
    explanation = fields.String(required=True, allow_none=True,
                                validate=Length(max=MAX_EXPLANATION))
    diagnosed_rule = fields.String(load_default=None, allow_none=True,
                                   validate=Length(max=MAX_REF), metadata={
        "description": "the rule the learner named as broken (history: never mastery)"})
    diagnosis_matched = fields.Boolean(load_default=None, allow_none=True, metadata={
        "description": "whether it named the rule its matched wrong model breaks, as exported; "
                       "an import works it out again and ignores this"})
    explained_at = StoredTime(required=True, allow_none=True, format="iso")
    revealed_at = StoredTime(required=True, allow_none=True, format="iso")
    idempotency_key = fields.String(required=True,
                                    validate=Length(min=1, max=MAX_IDEMPOTENCY_KEY))
    request_digest = fields.String(required=True, validate=Length(equal=64))
    origin = fields.String(load_default="graded", validate=OneOf(ORIGINS), metadata={
        "description": "graded here, regraded at an import, or unverified (counts for "
                       "nothing)"})
    content_key = fields.String(load_default=None, allow_none=True,
                                validate=Length(max=32), metadata={
        "description": "what the variant asked: mastery wants two different ones"})
    practice = fields.Boolean(load_default=False, metadata={
        "description": "answered soon after its question's answer was revealed (practice)"})
    sealed = fields.String(load_default=None, allow_none=True,
                           validate=Length(max=MAX_SEALED))
    signature = fields.String(load_default=None, allow_none=True,
                              validate=Length(equal=64), metadata={
        "description": "quizsvc-export/2 signed each attempt; /3 signs the whole document, "
                       "and this field is ignored"})


class ExportCardSchema(StrictSchema):
    """An fsrs card in an export document."""

    question_id = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    state = fields.Integer(required=True, strict=True, validate=Range(min=1, max=3))
    step = fields.Integer(required=True, allow_none=True, strict=True,
                          validate=Range(min=0, max=100))
    stability = fields.Float(required=True, allow_none=True, validate=STABILITY)
    difficulty = fields.Float(required=True, allow_none=True, validate=DIFFICULTY)
    due = StoredTime(required=True, format="iso")
    last_review = StoredTime(required=True, allow_none=True, format="iso")
    created_at = StoredTime(required=True, format="iso")


class ExportReviewLogSchema(StrictSchema):
    """One fsrs review in an export document, with the card state before it."""

    question_id = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    attempt = fields.Integer(required=True, allow_none=True, strict=True,
                             validate=Range(min=1, max=MAX_INT32))
    rating = fields.Integer(required=True, strict=True, validate=REVIEW_RATING)
    reviewed_at = StoredTime(required=True, format="iso")
    duration_ms = fields.Integer(required=True, allow_none=True, strict=True,
                                 validate=Range(min=0, max=MAX_INT32))
    rated_by_learner = fields.Boolean(required=True)
    state_before = fields.Integer(required=True, strict=True,
                                  validate=Range(min=1, max=3))
    step_before = fields.Integer(required=True, allow_none=True, strict=True,
                                 validate=Range(min=0, max=100))
    stability_before = fields.Float(required=True, allow_none=True, validate=STABILITY)
    difficulty_before = fields.Float(required=True, allow_none=True, validate=DIFFICULTY)
    due_before = StoredTime(required=True, format="iso")
    last_review_before = StoredTime(required=True, allow_none=True, format="iso")


class ExportMasterySchema(StrictSchema):
    """A mastery record in an export (re-derived by the policy on import, never trusted)."""

    question_id = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    mastered = fields.Boolean(required=True)
    mastered_at = StoredTime(required=True, allow_none=True, format="iso")
    evidence = fields.List(fields.Integer(strict=True, validate=Range(
        min=1, max=MAX_INT32)), required=True)
    policy = fields.String(required=True, validate=Length(min=1, max=32))
    evaluated_at = StoredTime(required=True, format="iso")


class ExportSchema(StrictSchema):
    """A learner's own data: ``GET /api/export`` writes it, ``POST /api/import`` reads it.

    ``signature`` is this deployment's HMAC over the whole document, which names the
    deployment and the learner it came from: only that learner, importing it unaltered on this
    deployment, gets it back as evidence; anyone else keeps it as history that counts for
    nothing.
    """

    format = fields.String(required=True, validate=OneOf(IMPORT_FORMATS), metadata={
        "description": f"{EXPORT_FORMAT} (older documents import as history only)"})
    exported_at = StoredTime(required=True, format="iso")
    deployment = fields.String(load_default=None, allow_none=True, validate=Length(max=64),
                               metadata={"description": "the deployment that wrote it"})
    learner = fields.String(load_default=None, allow_none=True, validate=Length(max=64),
                            metadata={"description": "the learner it came from (opaque)"})
    signature = fields.String(load_default=None, allow_none=True, validate=Length(equal=64))
    self_assessments = fields.List(fields.Nested(ExportSelfAssessmentSchema), required=True)
    attempts = fields.List(fields.Nested(ExportAttemptSchema), required=True)
    cards = fields.List(fields.Nested(ExportCardSchema), required=True)
    review_log = fields.List(fields.Nested(ExportReviewLogSchema), required=True)
    mastery = fields.List(fields.Nested(ExportMasterySchema), required=True)
    desired_retention = fields.Float(load_default=None, allow_none=True, allow_nan=False,
                                     validate=RETENTION, metadata={
        "description": "the learner's desired retention (older documents have none: 0.90)"})


class ImportResultSchema(Schema):
    """Rows imported, and whether they came back as evidence or as history only."""

    attempts = fields.Integer(dump_only=True)
    cards = fields.Integer(dump_only=True)
    review_log = fields.Integer(dump_only=True)
    self_assessments = fields.Integer(dump_only=True)
    mastery = fields.Integer(dump_only=True)
    vouched = fields.Boolean(dump_only=True, metadata={
        "description": "restored as evidence: signed here, for this learner, unaltered"})
    reason = fields.String(dump_only=True, metadata={
        "description": "own_signed_export, another_learner, another_deployment or "
                       "not_signed_here"})


class ScenarioSchema(Schema):
    """A ledger scenario (FORMAT.md); the ledger core validates it field by field."""

    class Meta:
        unknown = ma.INCLUDE

    name = fields.String()
    description = fields.String()
    config = fields.Dict()
    requests = fields.List(fields.Dict(), required=True)
    default_outcome = fields.Dict()
    outcomes = fields.Dict()
    aborts = fields.Dict()
    expect = fields.List(fields.Dict())


class TraceSchema(Schema):
    """A ledger trace (FORMAT.md), passed through as the ledger core returns it."""

    class Meta:
        unknown = ma.INCLUDE

    format = fields.String(dump_only=True)
    scenario = fields.String(dump_only=True)
    effective_config = fields.Dict(dump_only=True)
    steps = fields.List(fields.Dict(), dump_only=True)
    final = fields.Dict(dump_only=True)




class ScenarioPlanSchema(Schema):
    """A simulator plan: the scenario, its target step and what to check there."""

    scenario = fields.Dict(dump_only=True, metadata={"description": "a FORMAT.md scenario"})
    target_step = fields.Integer(dump_only=True)
    fillers = fields.List(fields.String(), dump_only=True, metadata={
        "description": "ids of the warm-up-only requests"})
    expected = fields.Dict(dump_only=True, metadata={
        "description": "the state asked for at the target step, by request id"})
    check_reached = fields.Boolean(dump_only=True, metadata={
        "description": "whether the target state can be checked exactly (sync scheduling)"})




class FitRecordSchema(Schema):
    """A stored FSRS fit: when, on how many reviews, with what log loss."""

    fitted_at = fields.DateTime(dump_only=True)
    review_count = fields.Integer(dump_only=True)
    log_loss = fields.Float(dump_only=True)
    default_log_loss = fields.Float(dump_only=True, metadata={
        "description": "the log loss fsrs's defaults score on the same reviews"})


class LessonParametersSchema(Schema):
    """Which FSRS parameters schedule this learner's cards of one lesson."""

    lesson = fields.String(dump_only=True)
    source = fields.String(dump_only=True, metadata={
        "description": "own (fitted to this learner's reviews), everyone (to all learners'), "
                       "or default (fsrs's defaults)"})
    fit = fields.Nested(FitRecordSchema, dump_only=True, allow_none=True)


class SchedulingSchema(Schema):
    """What schedules this learner's reviews; the retention is theirs to choose."""

    desired_retention = fields.Float(dump_only=True)
    min_retention = fields.Float(dump_only=True)
    max_retention = fields.Float(dump_only=True)
    lessons = fields.List(fields.Nested(LessonParametersSchema), dump_only=True)
    rescheduled_cards = fields.Integer(dump_only=True, allow_none=True, metadata={
        "description": "after a change: how many cards it moved"})


class IssuedCohortSchema(Schema):
    """A new cohort with its join code and instructor token: shown only now."""

    id = fields.Integer(dump_only=True)
    lesson = fields.String(dump_only=True)
    name = fields.String(dump_only=True)
    join_code = fields.String(dump_only=True)
    join_url = fields.String(dump_only=True, metadata={"description": "the page learners join on"})
    instructor_token = fields.String(dump_only=True, metadata={
        "description": "send as Authorization: Bearer to GET /api/cohorts/{id}/report"})
    instructor_url = fields.String(dump_only=True, metadata={
        "description": "the instructor's page; keep it secret"})
    created_at = fields.DateTime(dump_only=True)


class InstructorTokenSchema(Schema):
    """A cohort's new instructor token (the old one no longer works)."""

    id = fields.Integer(dump_only=True)
    instructor_token = fields.String(dump_only=True)
    instructor_url = fields.String(dump_only=True)


class MembershipSchema(Schema):
    """A cohort this learner is in."""

    cohort_id = fields.Integer(dump_only=True)
    cohort_name = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    display_name = fields.String(dump_only=True)
    share_explanations = fields.Boolean(dump_only=True)
    joined_at = fields.DateTime(dump_only=True)


class SharedExplanationSchema(Schema):
    """An explanation a learner chose to share with the instructor."""

    question_id = fields.String(dump_only=True)
    question_title = fields.Nested(TextSchema, dump_only=True, allow_none=True)
    written_at = fields.DateTime(dump_only=True)
    text = fields.String(dump_only=True)


class CohortSectionSchema(Schema):
    """One section of a learner's row: mastered of its questions, closed-book accuracy."""

    section = fields.String(dump_only=True)
    questions = fields.Integer(dump_only=True)
    mastered = fields.Integer(dump_only=True)
    answers = fields.Integer(dump_only=True, metadata={"description": "closed-book, graded"})
    correct = fields.Integer(dump_only=True)
    accuracy = fields.Float(dump_only=True, allow_none=True)


class CohortLearnerSchema(Schema):
    """One learner of the cohort: display name and graded records only."""

    display_name = fields.String(dump_only=True)
    questions = fields.Integer(dump_only=True)
    mastered = fields.Integer(dump_only=True)
    answers = fields.Integer(dump_only=True)
    correct = fields.Integer(dump_only=True)
    accuracy = fields.Float(dump_only=True, allow_none=True)
    due_now = fields.Integer(dump_only=True)
    due_soon = fields.Integer(dump_only=True, metadata={"description": "due within 7 days"})
    last_activity = fields.DateTime(dump_only=True, allow_none=True)
    sections = fields.List(fields.Nested(CohortSectionSchema), dump_only=True)
    explanations = fields.List(fields.Nested(SharedExplanationSchema), dump_only=True,
                               allow_none=True, metadata={
                                   "description": "null unless the learner agreed, when "
                                                  "joining, to share them verbatim"})


class SectionSelfRatingSchema(Schema):
    """The cohort's self-ratings of one section (self-reported, aggregated)."""

    section = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    learners = fields.Integer(dump_only=True)
    counts = fields.List(fields.Integer(), dump_only=True, allow_none=True, metadata={
        "description": "learners per rating 1..4; null under min_learners"})


class SelfReportedSchema(Schema):
    """Self-assessments, only over the cohort: never one learner's."""

    self_reported = fields.Constant(True, dump_only=True, metadata={
        "description": "always true: these figures are the learners' own opinions"})
    min_learners = fields.Integer(dump_only=True)
    calibration_learners = fields.Integer(dump_only=True)
    calibration = fields.Nested(CalibrationSchema, dump_only=True, allow_none=True)
    sections = fields.List(fields.Nested(SectionSelfRatingSchema), dump_only=True)


class CohortOutlineSchema(Schema):
    """A section of the cohort's lesson."""

    section = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)


class CohortReportSchema(Schema):
    """What the instructor of one cohort reads."""

    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    now = fields.DateTime(dump_only=True)
    sections = fields.List(fields.Nested(CohortOutlineSchema), dump_only=True, metadata={
        "description": "the lesson's sections, in teaching order"})
    learners = fields.List(fields.Nested(CohortLearnerSchema), dump_only=True)
    self_reported = fields.Nested(SelfReportedSchema, dump_only=True)


class ErasedSchema(Schema):
    """What erasing removed, by table."""

    erased = fields.Dict(keys=fields.String(), values=fields.Integer(), dump_only=True)
class HoldSchema(Schema):
    """A learner's hold on an item: suspended, or buried until a day starts."""

    question_id = fields.String(dump_only=True)
    suspended = fields.Boolean(dump_only=True, metadata={
        "description": "never served, counted in no due figure, until unsuspended"})
    buried_until = fields.AwareDateTime(dump_only=True, allow_none=True, metadata={
        "description": "not served until then (the next day's start, UTC); null: not buried"})


class ItemAnswerSchema(Schema):
    """One attempt at an item: its date, result and rating (never the answer)."""

    attempt_id = fields.Integer(dump_only=True)
    session_id = fields.String(dump_only=True, allow_none=True)
    submitted_at = fields.AwareDateTime(dump_only=True)
    graded = fields.Boolean(dump_only=True)
    correct = fields.Boolean(dump_only=True, allow_none=True)
    score = fields.Float(dump_only=True, allow_none=True)
    closed_book = fields.Boolean(dump_only=True)
    practice = fields.Boolean(dump_only=True)
    counts = fields.Boolean(dump_only=True, metadata={
        "description": "false for imported history no one can vouch for"})
    revealed = fields.Boolean(dump_only=True)
    rating = fields.String(dump_only=True, allow_none=True)


class ItemStateSchema(Schema):
    """One flashcard or question of a lesson and where this learner stands with it."""

    question_id = fields.String(dump_only=True)
    kind = fields.String(dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    section = fields.String(dump_only=True)
    section_title = fields.Nested(TextSchema, dump_only=True, allow_none=True)
    tags = fields.List(fields.String(), dump_only=True)
    rules = fields.List(fields.String(), dump_only=True)
    status = fields.String(dump_only=True, metadata={
        "description": "new, due, scheduled, suspended or buried"})
    due = fields.AwareDateTime(dump_only=True, allow_none=True)
    interval_days = fields.Float(dump_only=True, allow_none=True, metadata={
        "description": "the interval the card's last review gave it"})
    graded = fields.Boolean(dump_only=True)
    mastered = fields.Boolean(dump_only=True, allow_none=True, metadata={
        "description": "graded questions only; null for flashcards and free text"})
    hold = fields.Nested(HoldSchema, dump_only=True)
    last_answers = fields.List(fields.Nested(ItemAnswerSchema), dump_only=True)


class ItemPageSchema(Schema):
    """One page of a lesson's items matching a search."""

    lesson = fields.String(dump_only=True)
    query = fields.String(dump_only=True)
    page = fields.Integer(dump_only=True)
    pages = fields.Integer(dump_only=True)
    total = fields.Integer(dump_only=True)
    size = fields.Integer(dump_only=True)
    items = fields.List(fields.Nested(ItemStateSchema), dump_only=True)


class ItemHistorySchema(Schema):
    """One item with this learner's every attempt at it, newest first."""

    lesson = fields.String(dump_only=True)
    item = fields.Nested(ItemStateSchema, dump_only=True)
    attempts = fields.List(fields.Nested(ItemAnswerSchema), dump_only=True)


class ReportReceiptSchema(Schema):
    """A stored report of a problem with a question."""

    id = fields.Integer(dump_only=True)
    question_id = fields.String(dump_only=True)
    reason = fields.String(dump_only=True)
    created_at = fields.AwareDateTime(dump_only=True)


class ReportSchema(Schema):
    """A report as the author reads it, with the variant it was seen on."""

    id = fields.Integer(dump_only=True)
    question_id = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    seed = fields.Integer(dump_only=True)
    bank_version = fields.String(dump_only=True)
    reason = fields.String(dump_only=True)
    text = fields.String(dump_only=True)
    created_at = fields.AwareDateTime(dump_only=True)
    learner_id = fields.Integer(dump_only=True)


class DiscriminationSchema(Schema):
    """Moodle's discrimination index: the correlation of the question's score with the rest
    score (share right on the other questions in scope), and the learners it rests on."""

    learners = fields.Integer(dump_only=True)
    index = fields.Float(dump_only=True, allow_none=True, metadata={
        "description": "null under min_learners learners, or when scores do not vary"})


class SpreadSchema(Schema):
    """The hardest and easiest variant with at least min_variant_answers answers."""

    compared = fields.Integer(dump_only=True)
    lowest = fields.Float(dump_only=True)
    highest = fields.Float(dump_only=True)
    gap = fields.Float(dump_only=True)


class VariantFacilitySchema(Schema):
    """One variant (what it asked) of a question: its first answers and its facility."""

    variant = fields.String(dump_only=True, metadata={"description": "content key"})
    seed = fields.Integer(dump_only=True, metadata={
        "description": "a seed that drew it: GET /api/author/variants/{id}?seed="})
    answers = fields.Integer(dump_only=True)
    right = fields.Integer(dump_only=True)
    facility = fields.Float(dump_only=True)


class MisconceptionCountSchema(Schema):
    """A misconception matched by wrong first answers, with the rule it breaks."""

    id = fields.String(attribute="stats.misconception_id", dump_only=True)
    name = fields.Nested(TextSchema, dump_only=True, allow_none=True)
    breaks = fields.String(attribute="stats.breaks", dump_only=True, allow_none=True,
                           metadata={"description": "rules.yaml id"})
    breaks_title = fields.Nested(TextSchema, dump_only=True, allow_none=True)
    taught_at = fields.String(dump_only=True, allow_none=True,
                              metadata={"description": "/lessons/{id}#rule-{rule}"})
    count = fields.Integer(attribute="stats.count", dump_only=True)
    share_of_wrong = fields.Float(attribute="stats.share_of_wrong", dump_only=True)
    explained = fields.Integer(attribute="stats.explained", dump_only=True)
    diagnosed_share = fields.Float(attribute="stats.diagnosed_share", dump_only=True,
                                   allow_none=True, metadata={
                                       "description": "of the explained answers, the share "
                                       "whose diagnosis named the rule it breaks"})


class ItemStatsSchema(Schema):
    """One question over the first closed-book answers in scope."""

    question_id = fields.String(attribute="stats.question_id", dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    kind = fields.String(dump_only=True)
    lesson = fields.String(dump_only=True)
    rules = fields.List(fields.String(), dump_only=True, metadata={
        "description": "the rules it tests (rules.yaml ids)"})
    answers = fields.Integer(attribute="stats.answers", dump_only=True)
    learners = fields.Integer(attribute="stats.learners", dump_only=True)
    right = fields.Integer(attribute="stats.right", dump_only=True)
    facility = fields.Float(attribute="stats.facility", dump_only=True, allow_none=True)
    median_ms = fields.Integer(attribute="stats.median_ms", dump_only=True, allow_none=True,
                               metadata={"description": "from serving to the answer"})
    spread = fields.Nested(SpreadSchema, attribute="stats.spread", dump_only=True,
                           allow_none=True)
    variants = fields.List(fields.Nested(VariantFacilitySchema), attribute="stats.variants",
                           dump_only=True, metadata={"description": "hardest first"})
    discrimination = fields.Nested(DiscriminationSchema, attribute="stats.discrimination",
                                   dump_only=True)
    misconceptions = fields.List(fields.Nested(MisconceptionCountSchema), dump_only=True)


class RuleStatsSchema(Schema):
    """One rule: accuracy over every first answer to a question that tests it."""

    rule_id = fields.String(attribute="stats.rule_id", dump_only=True)
    title = fields.Nested(TextSchema, dump_only=True)
    taught_at = fields.String(dump_only=True)
    questions = fields.List(fields.String(), attribute="stats.questions", dump_only=True)
    answers = fields.Integer(attribute="stats.answers", dump_only=True)
    right = fields.Integer(attribute="stats.right", dump_only=True)
    accuracy = fields.Float(attribute="stats.accuracy", dump_only=True, allow_none=True)
    misconception_answers = fields.Integer(attribute="stats.misconception_answers",
                                           dump_only=True)


class ItemAnalysisSchema(Schema):
    """Item analysis over first closed-book answers (one per learner and variant)."""

    lesson = fields.String(dump_only=True, allow_none=True)
    scope = fields.String(dump_only=True, metadata={"description": "everyone | group"})
    learners = fields.Integer(dump_only=True)
    answers = fields.Integer(dump_only=True)
    min_learners = fields.Integer(dump_only=True, metadata={
        "description": "no discrimination is given over fewer learners"})
    min_variant_answers = fields.Integer(dump_only=True)
    items = fields.List(fields.Nested(ItemStatsSchema), dump_only=True)
    rules = fields.List(fields.Nested(RuleStatsSchema), dump_only=True)
