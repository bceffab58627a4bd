"""Teach a class: cohorts that learners join under a display name, and their instructor's view.

An author makes a cohort of one lesson (``create_cohort``); it has a join code for learners and
a token for its instructor, each shown once and stored only as its sha256. A learner joins
under a display name they choose (no email, no real name) and may let the instructor read
their explanations verbatim; joining writes one member row and nothing else, leaving deletes
it. The instructor, holding the token, reads only their cohort (``cohort_report``): per
learner, mastery and closed-book accuracy per section, due load and last activity; the
learners' self-assessments only as cohort aggregates over at least ``MIN_AGGREGATE`` learners,
marked self-reported. Mastery and accuracy are the records the learner's own progress page
reads (``quizsvc.study.progress``), so nothing here weakens the closed-book promise.
"""

from __future__ import annotations

import csv
import hmac
import io
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from quizsvc.bank.model import Text
from quizsvc.errors import N_, Invalid, NotFound
from quizsvc.pool import job_runtime
from quizsvc.review import calibration
from quizsvc.review.ratings import SelfRating
from quizsvc.store.cohorts import Membership, StoredCohort
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.answering import MAX_ROW_ID
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context
from quizsvc.study.linking import digest
from quizsvc.study.progress import SectionProgress, claimed_ratings, sections_of

JOIN_CODE_BYTES = 16  # 128 bits: a code guessed by trying would take longer than any class
INSTRUCTOR_TOKEN_BYTES = 32  # 256 bits, like a browser id
MAX_COHORT_NAME = 200
MAX_DISPLAY_NAME = 60
MAX_JOIN_CODE = 64  # characters a join code may take as typed (it is 22)
MAX_INSTRUCTOR_TOKEN = 100  # characters an instructor token may take (it is 43)
MIN_AGGREGATE = 3  # self-reported figures only over at least this many learners
DUE_SOON = timedelta(days=7)  # the due load counts cards due within a week too
EXPLANATIONS_SHOWN = 20  # newest explanations per consenting learner
REPORT_WAIT_SECONDS = 15.0


@dataclass(frozen=True)
class IssuedCohort:
    """A new cohort with its two secrets, shown only now (the server keeps their hashes)."""

    id: int
    lesson: str
    name: str
    join_code: str
    instructor_token: str
    created_at: datetime


@dataclass(frozen=True)
class IssuedInstructorToken:
    """A cohort's new instructor token, shown only now; the old one no longer works."""

    id: int
    instructor_token: str


@dataclass(frozen=True)
class CohortIntro:
    """What a learner sees of a cohort before joining: its name and lesson."""

    id: int
    name: str
    lesson: str


def join_path(join_code: str) -> str:
    """Return the path of the page learners join a cohort on."""
    return f"/join/{join_code}"


def instructor_path(cohort_id: int, token: str) -> str:
    """Return the path of a cohort's instructor page (its token in it: keep it secret)."""
    return f"/cohorts/{cohort_id}/{token}"


def cleaned(field: str, value: str, longest: int) -> str:
    """Return ``value`` stripped, refusing an empty one or one with control characters."""
    text = value.strip()
    if not text:
        raise Invalid(field, N_("must not be empty"), reason="empty")
    if len(text) > longest:
        raise Invalid(field, N_("must be at most %(max)s characters"), reason="too_long",
                      params={"max": longest})
    if any(not ch.isprintable() for ch in text):
        raise Invalid(field, N_("must be one line of printable text"), reason="unprintable")
    return text


def create_cohort(uow: UnitOfWork, index: BankIndex, lesson: str, name: str, now: datetime
                  ) -> IssuedCohort:
    """Make a cohort of ``lesson``: store it with the digests of a new join code and a new
    instructor token, and return both secrets (the only time they are shown)."""
    if lesson not in index.lessons:
        raise Invalid("lesson", N_("no lesson %(lesson)s in the question bank"),
                      reason="unknown_lesson", params={"lesson": repr(lesson[:80])})
    name = cleaned("name", name, MAX_COHORT_NAME)
    join_code = secrets.token_urlsafe(JOIN_CODE_BYTES)
    token = secrets.token_urlsafe(INSTRUCTOR_TOKEN_BYTES)
    with uow.write():
        cohort_id = uow.cohorts.add(lesson, name, digest(join_code), digest(token), now)
    return IssuedCohort(cohort_id, lesson, name, join_code, token, now)


def rotate_instructor_token(uow: UnitOfWork, cohort_id: int, now: datetime
                            ) -> IssuedInstructorToken:
    """Give a cohort a new instructor token: links made with the old one stop working."""
    token = secrets.token_urlsafe(INSTRUCTOR_TOKEN_BYTES)
    if not 0 < cohort_id <= MAX_ROW_ID:
        raise unknown_cohort(cohort_id)
    with uow.write():
        if not uow.cohorts.rotate_instructor_token(cohort_id, digest(token), now):
            raise unknown_cohort(cohort_id)
    return IssuedInstructorToken(cohort_id, token)


def unknown_cohort(cohort_id: int) -> NotFound:
    """Return the refusal for a cohort that does not exist, or not for this token (the two
    look alike, so a token never tells whether another cohort exists)."""
    return NotFound(N_("No cohort %(cohort)s for this instructor token."),
                    reason="unknown_cohort", params={"cohort": cohort_id})


def instructor_cohort(uow: UnitOfWork, cohort_id: int, token: str) -> StoredCohort:
    """Return the cohort ``token`` is the instructor token of, or raise ``NotFound``."""
    if not 0 < cohort_id <= MAX_ROW_ID:  # a larger path id cannot exist (nor be bound)
        raise unknown_cohort(cohort_id)
    with uow.read():
        cohort = uow.cohorts.by_id(cohort_id)
    if cohort is None or not hmac.compare_digest(
            cohort.instructor_token_hash, digest(token[:MAX_INSTRUCTOR_TOKEN])):
        raise unknown_cohort(cohort_id)
    return cohort


def member_learner_ids(uow: UnitOfWork, cohort_id: int) -> frozenset[int]:
    """Return the ids of a cohort's learners now (those who left or erased are not).

    For other views scoped to a cohort (item analysis): in the caller's open shape, or in a
    read of its own.
    """
    if uow.in_transaction:
        return uow.cohorts.member_ids(cohort_id)
    with uow.read():
        return uow.cohorts.member_ids(cohort_id)


def cohort_to_join(ctx: Context, code: str) -> StoredCohort:
    """Return the cohort a join code opens, or refuse the code (422 on ``code``)."""
    code = code.strip()
    if not code or len(code) > MAX_JOIN_CODE:
        raise Invalid("code", N_("not a join code"), reason="not_a_join_code")
    with ctx.uow.read():
        cohort = ctx.uow.cohorts.by_join_code_hash(digest(code))
    if cohort is None:
        raise Invalid("code", N_("unknown join code"), reason="unknown_join_code")
    return cohort


def introduce(ctx: Context, code: str) -> CohortIntro:
    """Return the name and lesson of the cohort a join code opens (for the join page)."""
    cohort = cohort_to_join(ctx, code)
    return CohortIntro(cohort.id, cohort.name, cohort.lesson)


def join_cohort(ctx: Context, code: str, display_name: str, share_explanations: bool
                ) -> Membership:
    """Put this learner in the cohort ``code`` opens, under ``display_name``.

    Only the member row is written: the learner's attempts, cards and mastery are theirs and
    stay as they are. Joining twice keeps the first membership (its name and consent).
    """
    name = cleaned("display_name", display_name, MAX_DISPLAY_NAME)
    if "@" in name:
        raise Invalid("display_name", N_("choose a display name, not an email address"),
                      reason="looks_like_email")
    cohort = cohort_to_join(ctx, code)
    with ctx.uow.write():
        ctx.uow.cohorts.add_member(cohort.id, ctx.learner_id, name, share_explanations,
                                   ctx.now)
        found = [m for m in ctx.uow.cohorts.memberships(ctx.learner_id)
                 if m.cohort_id == cohort.id]
    return found[0]


def my_cohorts(ctx: Context) -> Sequence[Membership]:
    """List the cohorts this learner is in."""
    if ctx.identity is None:
        return []
    with ctx.uow.read():
        return ctx.uow.cohorts.memberships(ctx.identity.learner_id)


def leave_cohort(ctx: Context, cohort_id: int) -> None:
    """Take this learner out of a cohort: its views no longer show them from now on."""
    with ctx.uow.write():
        if not (0 < cohort_id <= MAX_ROW_ID
                and ctx.uow.cohorts.remove_member(cohort_id, ctx.learner_id)):
            raise NotFound(N_("You are not in cohort %(cohort)s."), reason="not_a_member",
                           params={"cohort": cohort_id})


@dataclass(frozen=True)
class SharedExplanation:
    """An explanation a learner wrote after a wrong answer, shared with their consent."""

    question_id: str
    question_title: Text | None
    written_at: datetime
    text: str


@dataclass(frozen=True)
class LearnerRow:
    """One member as their instructor sees them: no id, no self-assessment, and their
    explanations only with their consent (None without it)."""

    display_name: str
    sections: tuple[SectionProgress, ...]
    questions: int
    mastered: int
    answers: int
    correct: int
    due_now: int
    due_soon: int
    last_activity: datetime | None
    explanations: tuple[SharedExplanation, ...] | None

    @property
    def accuracy(self) -> float | None:
        """Return the share of closed-book answers that were right (None: none yet)."""
        return self.correct / self.answers if self.answers else None


@dataclass(frozen=True)
class SectionSelfRating:
    """How the cohort rates itself on one section: how many rated it, and how many chose
    each rating (None when fewer than ``MIN_AGGREGATE`` learners rated it)."""

    section: str
    title: Text
    learners: int
    counts: tuple[int, ...] | None  # learners per rating 1..4


@dataclass(frozen=True)
class SelfReported:
    """The cohort's self-assessments, only in aggregate: never one learner's."""

    min_learners: int
    calibration_learners: int
    calibration: calibration.Calibration | None  # None under min_learners
    sections: tuple[SectionSelfRating, ...]


@dataclass(frozen=True)
class SectionTitle:
    """A section of the cohort's lesson, in teaching order."""

    section: str
    title: Text


@dataclass(frozen=True)
class CohortReport:
    """What an instructor reads of their cohort."""

    id: int
    name: str
    lesson: str
    now: datetime
    sections: tuple[SectionTitle, ...]
    learners: tuple[LearnerRow, ...]
    self_reported: SelfReported


def cohort_report(ctx: Context, cohort_id: int, token: str) -> CohortReport:
    """Return the report of the cohort ``token`` opens, built on the costly-work pool (it
    reads every member's records)."""
    cohort = instructor_cohort(ctx.uow, cohort_id, token)
    return ctx.costly(REPORT_WAIT_SECONDS, report_job, cohort.id, cohort.name, cohort.lesson,
                      ctx.now)


def report_job(cohort_id: int, name: str, lesson: str, now: datetime) -> CohortReport:
    """Build a cohort's report (a job for the costly-work pool)."""
    runtime = job_runtime()
    with runtime.unit_of_work() as uow, uow.read():
        return build_report(uow, runtime.index, cohort_id, name, lesson, now)


def build_report(uow: UnitOfWork, index: BankIndex, cohort_id: int, name: str, lesson: str,
                 now: datetime) -> CohortReport:
    """Read the members' records in one query per figure, over the whole member set, and
    fold them per learner (in the open read)."""
    members = uow.cohorts.members(cohort_id)
    ids = [m.learner_id for m in members]
    counts: dict[int, dict[str, list[int]]] = {}
    mastered: dict[int, set[str]] = {}
    due: dict[int, tuple[int, int]] = {}
    last: dict[int, datetime] = {}
    shared: dict[int, list[SharedExplanation]] = {}
    ratings: dict[int, dict[str, int]] = {}
    claims: dict[int, dict[str, int]] = {}
    answers: list[tuple[int, str, bool]] = []
    if ids:
        group = uow.group_progress
        for learner, question_id, correct, n in group.question_counts(ids, lesson):
            counts.setdefault(learner, {}).setdefault(question_id, [0, 0])[
                0 if correct else 1] += n
        for learner, question_id in group.mastered(ids, lesson):
            mastered.setdefault(learner, set()).add(question_id)
        due = group.due_load(ids, lesson, now, now + DUE_SOON)
        last = group.last_activity(ids, lesson)
        consenting = [m.learner_id for m in members if m.share_explanations]
        if consenting:
            for learner, question_id, at, text in group.explanations(consenting, lesson):
                kept = shared.setdefault(learner, [])
                if len(kept) < EXPLANATIONS_SHOWN:
                    question = index.questions.get(question_id)
                    kept.append(SharedExplanation(
                        question_id, question.title if question else None, at, text))
        for learner, ref, rating in uow.self_assessments.ratings_of_learners(ids):
            ratings.setdefault(learner, {})[ref] = rating
        claims = claims_of(index, ratings, lesson)
        claimed_questions = {qid for own in claims.values() for qid in own}
        if claimed_questions:
            answers = group.graded_answers(list(claims), claimed_questions)
    rows = []
    for member in members:
        learner = member.learner_id
        sections = sections_of(index, lesson, counts.get(learner, {}),
                               mastered.get(learner, set()))
        due_now, due_soon = due.get(learner, (0, 0))
        rows.append(LearnerRow(
            member.display_name, sections, sum(s.questions for s in sections),
            sum(s.mastered for s in sections), sum(s.answers for s in sections),
            sum(s.correct for s in sections), due_now, due_soon, last.get(learner),
            tuple(shared.get(learner, ())) if member.share_explanations else None))
    outline = tuple(SectionTitle(s.section, s.title)
                    for s in sections_of(index, lesson, {}, set()))
    return CohortReport(cohort_id, name, lesson, now, outline, tuple(rows),
                        self_reported(outline, ratings, claims, answers))


def claims_of(index: BankIndex, ratings: dict[int, dict[str, int]], lesson: str
              ) -> dict[int, dict[str, int]]:
    """Return each learner's claimed rating by question (``progress.claimed_ratings``)."""
    return {learner: claimed_ratings(index, own, lesson) for learner, own in ratings.items()}


def self_reported(outline: Iterable[SectionTitle], ratings: dict[int, dict[str, int]],
                  claims: dict[int, dict[str, int]], answers: Iterable[tuple[int, str, bool]]
                  ) -> SelfReported:
    """Pool the members' self-assessments: calibration over every member's (claim, result)
    pairs, and per section how many learners chose each rating; each withheld when fewer
    than ``MIN_AGGREGATE`` learners stand behind it, so no one learner's rating shows."""
    pairs = [(claims[learner][qid], correct) for learner, qid, correct in answers
             if qid in claims.get(learner, {})]
    behind = len({learner for learner, qid, _ in answers if qid in claims.get(learner, {})})
    pooled = calibration.calibrate(pairs) if behind >= MIN_AGGREGATE else None
    sections = []
    for entry in outline:
        chosen = [own[entry.section] for own in ratings.values() if entry.section in own]
        counts = (tuple(chosen.count(int(r)) for r in SelfRating)
                  if len(chosen) >= MIN_AGGREGATE else None)
        sections.append(SectionSelfRating(entry.section, entry.title, len(chosen), counts))
    return SelfReported(MIN_AGGREGATE, behind, pooled, tuple(sections))


GRADEBOOK_FIXED = ("display_name", "mastered", "questions", "closed_book_answers",
                   "closed_book_correct", "due_now", "due_within_7_days", "last_activity")


def gradebook_csv(report: CohortReport) -> str:
    """Write the cohort's gradebook: one row per learner, one column per section (mastered
    of its questions, then closed-book right of answers), with the stdlib csv writer."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    section_ids = [entry.section for entry in report.sections]
    writer.writerow([*GRADEBOOK_FIXED,
                     *(f"{s}:mastered" for s in section_ids),
                     *(f"{s}:accuracy" for s in section_ids)])
    for row in report.learners:
        by_id = {s.section: s for s in row.sections}
        writer.writerow([
            spreadsheet_safe(row.display_name), row.mastered, row.questions, row.answers,
            row.correct, row.due_now, row.due_soon,
            row.last_activity.isoformat() if row.last_activity else "",
            *(f"{by_id[s].mastered}/{by_id[s].questions}" for s in section_ids),
            *(f"{by_id[s].accuracy:.3f}" if by_id[s].accuracy is not None else ""
              for s in section_ids)])
    return out.getvalue()


def spreadsheet_safe(text: str) -> str:
    """Keep a learner's chosen name from running as a formula in the instructor's
    spreadsheet (a leading ``= + - @`` is quoted with an apostrophe)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
