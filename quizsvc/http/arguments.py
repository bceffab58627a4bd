"""Declare the arguments a request may carry, for the API's views and the pages' forms alike.

The JSON API parses them with ``@blp.arguments``; the pages parse their forms with the same
schemas (``quizsvc.http.parsing.form_parser``, ``location="form"``). Request schemas raise on
unknown keys (marshmallow's default, kept on purpose); validators raise ``ValidationError``, as
marshmallow 4 requires. Every bound comes from ``quizsvc.study.limits``.
"""

from __future__ import annotations

import math
from typing import Any

import marshmallow as ma
from marshmallow import fields

from quizsvc.bank.anki import LANG_MODES
from quizsvc.bank.catalog import MAX_SEED
from quizsvc.bank.kinds.form import normalized
from quizsvc.errors import N_
from quizsvc.http.schema import Schema
from quizsvc.http.validators import Length, OneOf, Range, Said
from quizsvc.review.ratings import REVIEW_WORDS, ReviewRating, SelfRating
from quizsvc.review.scheduling import MAX_RETENTION, MIN_RETENTION
from quizsvc.study.cohorts import MAX_COHORT_NAME, MAX_DISPLAY_NAME, MAX_JOIN_CODE
from quizsvc.study.lessons import LANGUAGES
from quizsvc.study.limits import (
    MAX_BROWSE_PAGE,
    MAX_EXPLANATION,
    MAX_IDEMPOTENCY_KEY,
    MAX_LINK_CODE,
    MAX_NOTE,
    MAX_REF,
    MAX_REPORT_TEXT,
    MAX_REPORTS_LISTED,
    MAX_SEARCH,
    MAX_VARIANT_ID,
)
from quizsvc.study.reports import REASONS
from quizsvc.study.sessions import MODES

# Each bound once, for the JSON schemas and the form schemas that take the same field as text.
SESSION_SIZE = Range(min=1)  # the top is the deployment's MAX_SESSION_SIZE
SELF_RATING = Range(min=int(min(SelfRating)), max=int(max(SelfRating)))
REVIEW_RATING = Range(min=int(min(ReviewRating)), max=int(max(ReviewRating)))  # as stored
VARIANT_ID = Length(min=1, max=MAX_VARIANT_ID)
IDEMPOTENCY_KEY = Length(min=1, max=MAX_IDEMPOTENCY_KEY)
NOTE = Length(max=MAX_NOTE)
RETENTION = Range(min=MIN_RETENTION, max=MAX_RETENTION)
ITEM_ANALYSIS_FORMATS = ("json", "csv", "rules-csv")
MAX_AUTHOR_TOKEN = 512  # characters of a posted author token (longer ones are not it)


class StrictSchema(Schema):
    """Refuse unknown keys (marshmallow's default, stated so nobody relaxes it by accident)."""

    class Meta:
        unknown = ma.RAISE


class LanguageQuerySchema(StrictSchema):
    """Choose the lesson text's language (Chinese is the original)."""

    lang = fields.String(load_default="zh", validate=OneOf(LANGUAGES))


class SessionCreateSchema(StrictSchema):
    """Start a closed-book session."""

    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    mode = fields.String(load_default="review", validate=OneOf(MODES))
    size = fields.Integer(load_default=10, strict=True, validate=SESSION_SIZE,
                          metadata={"description": "questions to pick, at most the "
                                    "deployment's MAX_SESSION_SIZE (50 unless configured)"})
    retry_of = fields.String(load_default=None, validate=Length(min=1, max=MAX_REF),
                             metadata={"description": "an earlier session of this learner: "
                                       "serve its mistakes again"})


class AttemptCreateSchema(StrictSchema):
    """Answer a served variant (``answer`` is null for a flashcard)."""

    variant_id = fields.String(required=True, validate=VARIANT_ID)
    answer = fields.Raw(load_default=None, allow_none=True, metadata={
        "description": "an integer, a list of integers, an option id, a list of option ids, "
                       "text, or null for a flashcard (the variant's input says which)"})


class IdempotencyHeaderSchema(Schema):
    """The key that makes a retried answer return the first result."""

    idempotency_key = fields.String(required=True, data_key="Idempotency-Key",
                                    validate=IDEMPOTENCY_KEY)


class ExplanationSchema(StrictSchema):
    """Why the answer was wrong: the rule the learner thinks they broke, and a sentence."""

    explanation = fields.String(required=True,
                                validate=Length(min=1, max=MAX_EXPLANATION), metadata={
        "description": "a sentence in the learner's words: at least 3 words, or 6 Chinese "
                       "characters (a mix counts two characters as a word)"})
    rule = fields.String(required=True, allow_none=True, validate=Length(min=1, max=MAX_REF),
                         metadata={"description": "the id of the rule the learner thinks they "
                                   "broke: one of the attempt's diagnosis_options (null only "
                                   "when it offers none)"})


class RatingSchema(StrictSchema):
    """An fsrs rating: Hard/Good/Easy after a right answer, any of four for a card."""

    rating = fields.String(required=True, validate=OneOf(REVIEW_WORDS))

    @ma.post_load
    def as_rating(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """Hand the use case the rating itself, not its word."""
        return {**data, "rating": ReviewRating.from_word(data["rating"])}


class DueQuerySchema(StrictSchema):
    """Filter the due report by lesson; cap the listed items."""

    lesson = fields.String(validate=Length(min=1, max=MAX_REF))
    limit = fields.Integer(load_default=20, validate=Range(min=0, max=100))


class LessonQuerySchema(StrictSchema):
    """Filter by lesson."""

    lesson = fields.String(validate=Length(min=1, max=MAX_REF))


class ItemAnalysisQuerySchema(StrictSchema):
    """Choose the lesson of an item analysis (all lessons without one) and its form: JSON, or
    CSV of the questions or of the rules."""

    lesson = fields.String(load_default=None, validate=Length(min=1, max=MAX_REF))
    format = fields.String(load_default="json", validate=OneOf(ITEM_ANALYSIS_FORMATS))


class LmsExportSchema(StrictSchema):
    """Which randomized exercises an LMS export holds: a lesson's graded questions (or the
    named ones), ``variants`` each, drawn from ``seeds_from`` (drawn at random when left out)."""

    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    questions = fields.List(fields.String(validate=Length(min=1, max=MAX_REF)),
                            load_default=None, validate=Length(min=1, max=500))
    variants = fields.Integer(load_default=5, strict=True, validate=Range(min=1, max=50))
    lang = fields.String(load_default="zh", validate=OneOf(LANG_MODES))
    seeds_from = fields.Integer(load_default=None, strict=True, allow_none=True,
                                validate=Range(min=0, max=MAX_SEED))


class CohortItemAnalysisQuerySchema(StrictSchema):
    """Choose the form of a cohort's item analysis (its lesson is the cohort's)."""

    format = fields.String(load_default="json", validate=OneOf(ITEM_ANALYSIS_FORMATS))


class AuthorSignInFormSchema(StrictSchema):
    """The author pages' sign-in form: the author token, posted once."""

    token = fields.String(required=True, validate=Length(min=1, max=MAX_AUTHOR_TOKEN))


class SelfAssessmentPutSchema(StrictSchema):
    """This browser's own rating of a question or section: 1 "not yet" .. 4 "solid"."""

    rating = fields.Integer(required=True, strict=True, validate=SELF_RATING)
    note = fields.String(load_default=None, allow_none=True, validate=NOTE)


class ExportQuerySchema(StrictSchema):
    """Choose the export format: the JSON document or the fsrs-optimizer review-log CSV."""

    format = fields.String(load_default="json", validate=OneOf(("json", "fsrs-csv")))


class PreviewQuerySchema(StrictSchema):
    """Which variant an author wants to see."""

    seed = fields.Integer(required=True, validate=Range(min=0, max=MAX_SEED))


class LinkRequestSchema(StrictSchema):
    """Link this browser to the learner who issued ``code``."""

    code = fields.String(required=True, validate=Length(min=1, max=MAX_LINK_CODE))
    leave_progress = fields.Boolean(load_default=False, metadata={
        "description": "link even though this browser's own answers would be left behind "
                       "(otherwise such a link is 409 would_leave_progress)"})


class SessionFormSchema(SessionCreateSchema):
    """The start form of a quiz, review or flashcard session (``size`` arrives as text)."""

    size = fields.Integer(load_default=10, validate=SESSION_SIZE,
                          error_messages={"invalid": N_("must be a whole number")})


class SelfAssessmentFormSchema(StrictSchema):
    """The lesson page's self-assessment form: which section, the rating, a note."""

    ref = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    rating = fields.Integer(required=True, validate=SELF_RATING,
                            error_messages={"invalid": N_("must be 1 (not yet) .. 4 (solid)")})
    note = fields.String(load_default=None, allow_none=True, validate=NOTE)


class OpenBookFormSchema(StrictSchema):
    """Open the book on a lesson from the page that asked, then go on to ``then``."""

    then = fields.String(load_default="lesson", validate=OneOf(
        ("lesson", "anki", "reference", "glossary")))


class SimulatorOpenBookFormSchema(StrictSchema):
    """Open the book for the sandbox, then run the simulator on these query settings."""

    settings = fields.String(load_default="", validate=Length(max=4000))


class AnswerFormSchema(StrictSchema):
    """What a question form posts besides the answer's own fields (``quizsvc.web.forms``)."""

    variant_id = fields.String(required=True, validate=VARIANT_ID)
    idempotency_key = fields.String(required=True, validate=IDEMPOTENCY_KEY)


class DesiredRetentionSchema(StrictSchema):
    """The chance of recall to aim for when a card falls due (0.70-0.97)."""

    desired_retention = fields.Float(required=True, allow_nan=False, validate=RETENTION)


class RetentionText(fields.Field[float]):
    """A desired retention typed into a form as text ("0.85", or "０.８５" from a Chinese input
    method): loaded as a number, and refused with the reason the progress page shows."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        text = normalized(value)
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        bounds = {"min": MIN_RETENTION, "max": MAX_RETENTION}
        if not math.isfinite(number):
            raise ma.ValidationError(Said(
                N_("desired retention must be a number, got %(value)s"),
                {**bounds, "value": repr(text)}))
        if not MIN_RETENTION <= number <= MAX_RETENTION:
            raise ma.ValidationError(Said(
                N_("desired retention must be between %(min).2f and %(max).2f, got %(value)s"),
                {**bounds, "value": repr(number)}))
        return number


class DesiredRetentionFormSchema(DesiredRetentionSchema):
    """The progress page's retention form: the value arrives as text."""

    desired_retention = RetentionText(required=True)  # type: ignore[assignment]


class SimulateQuerySchema(StrictSchema):
    """How much of a replayed trace to send back."""

    detail = fields.String(load_default="summary", validate=OneOf(("summary", "full")),
                           metadata={"description": "summary: what each step scheduled; full: "
                                     "also every request's counters at every phase"})


class AnkiQuerySchema(StrictSchema):
    """What the cards of an Anki package show: zh, en or both (every note holds both)."""

    lang = fields.String(load_default="zh", validate=OneOf(LANG_MODES))


class CohortCreateSchema(StrictSchema):
    """A new cohort: the lesson it studies and the name its learners will see."""

    lesson = fields.String(required=True, validate=Length(min=1, max=MAX_REF))
    name = fields.String(required=True, validate=Length(min=1, max=MAX_COHORT_NAME))


class CohortJoinSchema(StrictSchema):
    """Join a cohort with its code, under a display name the learner chooses."""

    code = fields.String(required=True, validate=Length(min=1, max=MAX_JOIN_CODE))
    display_name = fields.String(required=True, validate=Length(min=1, max=MAX_DISPLAY_NAME),
                                 metadata={"description": "the name the instructor sees; "
                                           "no email or real name needed"})
    share_explanations = fields.Boolean(load_default=False, metadata={
        "description": "let the instructor read this learner's explanations verbatim"})


class CohortJoinFormSchema(StrictSchema):
    """The join page's form: the code is in the page's address."""

    display_name = fields.String(required=True, validate=Length(min=1, max=MAX_DISPLAY_NAME))
    share_explanations = fields.Boolean(load_default=False)


ERASE_WORD = "erase"


class EraseQuerySchema(StrictSchema):
    """The confirmation that erasing everything is meant (``confirm=erase``)."""

    confirm = fields.String(load_default=None, validate=OneOf((ERASE_WORD,)), metadata={
        "description": "must be 'erase'; export first (GET /api/export) to keep a copy"})


class EraseFormSchema(StrictSchema):
    """The erase page's confirmation: the learner types or ticks ``erase``."""

    confirm = fields.String(load_default=None, validate=OneOf((ERASE_WORD,)))
class BrowseQuerySchema(StrictSchema):
    """Search a lesson's items (every word must match; ``is:due`` and the like filter by
    state) and choose the page (a GET form, so the page works without scripts)."""

    q = fields.String(load_default="", validate=Length(max=MAX_SEARCH), metadata={
        "description": "words to find in the id, zh and en title, tags, rules, section and "
                       "kind; is:new, is:due, is:scheduled, is:suspended, is:buried filter"})
    page = fields.Integer(load_default=1, validate=Range(min=1, max=MAX_BROWSE_PAGE),
                          error_messages={"invalid": N_("must be a whole number")})


class BrowsePageQuerySchema(BrowseQuerySchema):
    """The card browser page's query: the search, the page and the page's language."""

    lang = fields.String(load_default=None, validate=OneOf(LANGUAGES))
    done = fields.String(load_default=None, validate=Length(max=16))


class SuspensionSchema(StrictSchema):
    """Suspend an item (never served until unsuspended), or lift the suspension."""

    suspended = fields.Boolean(required=True)


class BurialSchema(StrictSchema):
    """Bury an item until the next day starts (UTC), or unbury it now."""

    buried = fields.Boolean(required=True)


class ReportCreateSchema(StrictSchema):
    """Report a problem with the question of a served variant."""

    variant_id = fields.String(required=True, validate=VARIANT_ID)
    reason = fields.String(required=True, validate=OneOf(REASONS))
    text = fields.String(load_default="", validate=Length(max=MAX_REPORT_TEXT))


class ReportFormSchema(ReportCreateSchema):
    """The report form of a question or attempt page: where to go back to, too."""

    attempt_id = fields.Integer(load_default=None, allow_none=True,
                                validate=Range(min=1, max=2**31 - 1))


class ReportListQuerySchema(StrictSchema):
    """Which reports an author lists: the newest, of one question or all."""

    question_id = fields.String(validate=Length(min=1, max=MAX_REF))
    limit = fields.Integer(load_default=100, validate=Range(min=1, max=MAX_REPORTS_LISTED))


class HoldFormSchema(StrictSchema):
    """The card browser's suspend and bury buttons, with the search to go back to."""

    action = fields.String(required=True, validate=OneOf(
        ("suspend", "unsuspend", "bury", "unbury")))
    back = fields.String(load_default="list", validate=OneOf(("list", "item")))
    q = fields.String(load_default="", validate=Length(max=MAX_SEARCH))
    page = fields.Integer(load_default=1, validate=Range(min=1, max=MAX_BROWSE_PAGE))
