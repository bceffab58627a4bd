"""Report what is due, what is mastered, how accurate the learner is, and how calibrated.

All read-only: nothing here writes a record. Calibration reads this browser's
self-assessments and the learner's graded attempts and writes neither. A browser that has
stored nothing yet has an empty history: every count is zero and every new question is new.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import Text
from quizsvc.review import calibration, diagnosis, scheduling
from quizsvc.store import progress as store
from quizsvc.store.progress import DueCard
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context

DUE_LIST_LIMIT = 100


@dataclass(frozen=True)
class DueReport:
    """Counts, the head of the due queue, and a 30-day forecast."""

    now: datetime
    lesson: str | None
    due_now: int
    new: int
    cards: int
    next_due: datetime | None
    items: list[DueItem]
    forecast: list[scheduling.ForecastDay]


@dataclass(frozen=True)
class DueItem:
    """One due card as the learner sees it: when it fell due and how likely it is recalled.

    ``retrievability`` is fsrs's probability of recall now, under the parameters and desired
    retention that schedule the card; ``None`` for a card not yet reviewed.
    """

    question_id: str
    lesson: str
    due: datetime
    state: int
    retrievability: float | None


def recall_now(ctx: Context, learner_id: int, cards: list[DueCard]) -> list[DueItem]:
    """Say how likely each due card is recalled now (one settings read per lesson)."""
    settings: dict[str, scheduling.SchedulerSettings] = {}
    items = []
    for card in cards:
        chance = None
        if card.stability is not None and card.last_review is not None:
            if card.lesson not in settings:
                settings[card.lesson] = ctx.uow.settings.read_settings(learner_id, card.lesson)
            memory = scheduling.CardState(card.state, card.step, card.stability,
                                          card.difficulty, card.due, card.last_review)
            chance = scheduling.retrievability(memory, ctx.now, settings[card.lesson])
        items.append(DueItem(card.question_id, card.lesson, card.due, card.state, chance))
    return items


def lesson_filter(ctx: Context, lesson: str | None) -> None:
    """Validate an optional lesson filter (unknown lessons are 404)."""
    if lesson is not None:
        ctx.index.lesson(lesson)


def due_queue(ctx: Context, limit: int = 20, lesson: str | None = None) -> list[DueCard]:
    """Return the cards due now, most overdue first (the query a session start runs)."""
    if ctx.identity is None:
        return []
    with ctx.uow.read():
        return ctx.uow.progress.due_queue(ctx.identity.learner_id, ctx.now, limit, lesson)


def bank_questions(ctx: Context, lesson: str | None) -> list[str]:
    """Return the ids of the bank's questions (of one lesson, or all), sorted."""
    lessons = [lesson] if lesson is not None else list(ctx.index.lessons)
    return sorted({q.id for lesson_id in lessons for q in ctx.index.by_lesson.get(lesson_id, ())})


def due_reviews(ctx: Context, lesson: str | None = None, limit: int = 20) -> DueReport:
    """Report due and new counts, the due queue's head, and the next 30 days' load.

    Counted in SQL, so a learner with tens of thousands of cards costs index scans, not a
    transfer of every due date. The forecast equals ``scheduling.forecast`` over the same
    cards: overdue cards count today.
    """
    lesson_filter(ctx, lesson)
    with ctx.uow.read():
        return due_report(ctx, lesson, limit)


@dataclass(frozen=True)
class CardTally:
    """What only a change to the learner's reviews, or a new day, changes: the cards by the
    day they fall due, and which of the bank's questions have a card."""

    days: store.DayCounts
    with_cards: frozenset[str]


def card_tally(ctx: Context, learner_id: int, lesson: str | None, day_start: datetime,
               in_bank: list[str]) -> CardTally:
    """Return the learner's tally, kept while their ``review_seq`` and the day stand still.

    Counting a large deck by day walks every index entry of its cards (tens of thousands for
    a heavy learner), yet it changes only when a review changes the cards, which bumps
    ``review_seq``, or when a new day shifts the window. Reading the counter is one primary
    key look-up, so the tally is counted again only after such a change. Tallies are kept in
    the app's memo (``Context.memo``), none without one.
    """
    key = ("card-tally", learner_id, ctx.uow.answers.review_version(learner_id), lesson,
           day_start, str(ctx.bank.version))
    found: CardTally | None = ctx.memo.get(key) if ctx.memo is not None else None
    if found is None:
        found = CardTally(
            ctx.uow.progress.day_counts(learner_id, lesson, day_start,
                                        scheduling.FORECAST_DAYS),
            frozenset(ctx.uow.progress.questions_with_cards(learner_id, in_bank)))
        if ctx.memo is not None:
            ctx.memo.put(key, found)
    return found


def due_report(ctx: Context, lesson: str | None, limit: int) -> DueReport:
    """``due_reviews`` in the open transaction: the tally, kept while nothing changes, and
    the cards due since today's start (a short range of the index), counted afresh."""
    today = ctx.now.astimezone(UTC).date()
    start = datetime.combine(today, time(), UTC)
    in_bank = bank_questions(ctx, lesson)
    days = store.DayCounts(0, (0,) * scheduling.FORECAST_DAYS, 0, None)
    with_cards: frozenset[str] = frozenset()
    due_now = 0
    items: list[DueItem] = []
    if ctx.identity is not None:
        learner_id = ctx.identity.learner_id
        tally = card_tally(ctx, learner_id, lesson, start, in_bank)
        days, with_cards = tally.days, tally.with_cards
        due_now = days.overdue + ctx.uow.progress.due_since(learner_id, lesson, start, ctx.now)
        items = recall_now(ctx, learner_id, ctx.uow.progress.due_queue(
            learner_id, ctx.now, min(limit, DUE_LIST_LIMIT), lesson)) if limit else []
    counts = list(days.by_day)
    counts[0] += days.overdue
    return DueReport(
        now=ctx.now, lesson=lesson, due_now=due_now, new=len(in_bank) - len(with_cards),
        cards=days.cards, next_due=days.next_due, items=items,
        forecast=[scheduling.ForecastDay(today + timedelta(days=i), n)
                  for i, n in enumerate(counts)])


@dataclass(frozen=True)
class MasteryRecord:
    """One mastery record as listed."""

    question_id: str
    lesson: str
    mastered: bool
    mastered_at: datetime | None
    evidence: list[int]
    policy: str
    evaluated_at: datetime


def list_mastery(ctx: Context, lesson: str | None = None) -> list[MasteryRecord]:
    """List this learner's mastery records (written only by the mastery policy)."""
    lesson_filter(ctx, lesson)
    if ctx.identity is None:
        return []
    with ctx.uow.read():
        rows = ctx.uow.progress.mastery_records(ctx.identity.learner_id, lesson)
    return [MasteryRecord(m.question_id, m.lesson, m.mastered, m.mastered_at, list(m.evidence),
                          m.policy, m.evaluated_at) for m in rows]


@dataclass(frozen=True)
class Accuracy:
    """Graded attempts and how many were right, overall and closed-book."""

    attempts: int
    correct: int
    rate: float | None
    closed_book_attempts: int
    closed_book_correct: int


@dataclass(frozen=True)
class Progress:
    """The learner's dashboard numbers."""

    lesson: str | None
    questions: int
    due_now: int
    new: int
    mastered: int
    accuracy: Accuracy
    calibration: calibration.Calibration
    diagnoses: tuple[diagnosis.DiagnosisWeek, ...] = ()
    graded: int = 0  # the graded questions: only they can become mastery (of ``questions``)


def accuracy(ctx: Context, lesson: str | None = None) -> Accuracy:
    """Count graded attempts and right answers (in the open transaction)."""
    attempts = correct = closed = closed_correct = 0
    rows = [] if ctx.identity is None else ctx.uow.progress.graded_counts(
        ctx.identity.learner_id, lesson)
    for is_correct, closed_book, count in rows:
        attempts += count
        correct += count if is_correct else 0
        closed += count if closed_book else 0
        closed_correct += count if (closed_book and is_correct) else 0
    return Accuracy(attempts, correct, (correct / attempts) if attempts else None, closed,
                    closed_correct)


def calibration_pairs(ctx: Context, lesson: str | None = None) -> list[tuple[int, bool]]:
    """Pair each graded attempt on a self-assessed question with the rating claimed for it
    (in the open transaction).

    A rating of the question itself wins over a rating of its lesson section.
    """
    if ctx.identity is None:
        return []
    claimed = claimed_ratings(ctx.index, ctx.uow.self_assessments.ratings(
        ctx.identity.browser_id), lesson)
    if not claimed:
        return []
    return [(claimed[question_id], correct) for question_id, correct
            in ctx.uow.progress.graded_answers(ctx.identity.learner_id, sorted(claimed))]


def claimed_ratings(index: BankIndex, ratings: Mapping[str, int], lesson: str | None
                    ) -> dict[str, int]:
    """Return the rating each question is claimed at by ``ratings`` (by ref): the
    question's own, else its lesson section's."""
    claimed: dict[str, int] = {}
    for question in index.questions.values():
        if lesson is not None and question.lesson != lesson:
            continue
        rating = ratings.get(question.id, ratings.get(question.section))
        if rating is not None:
            claimed[question.id] = rating
    return claimed


DIAGNOSIS_WEEKS = 12  # weeks of diagnosis accuracy the dashboard shows


def diagnosis_weeks(ctx: Context, lesson: str | None = None
                    ) -> tuple[diagnosis.DiagnosisWeek, ...]:
    """Count, week by week over the last ``DIAGNOSIS_WEEKS``, the diagnoses that named the
    rule their matched wrong model breaks (in the open transaction). Never mastery: it reads
    explanations, which the mastery policy never sees."""
    if ctx.identity is None:
        return ()
    since = datetime.combine(diagnosis.week_of(ctx.now) - timedelta(weeks=DIAGNOSIS_WEEKS - 1),
                             time(), UTC)
    graded = []
    for when, lesson_id, misconception_id, rule in ctx.uow.progress.diagnoses_since(
            ctx.identity.learner_id, since, lesson):
        info = ctx.bank.misconception_info(lesson_id, misconception_id)
        if info is not None:  # a wrong model the bank has dropped grades nothing
            graded.append((when, bool(diagnosis.diagnosis_matched(rule, info.breaks))))
    return diagnosis.accuracy_by_week(graded)


def progress_report(ctx: Context, lesson: str | None = None) -> Progress:
    """Return due, mastered, accuracy, calibration (self-assessments against graded
    accuracy, computed on read) and diagnosis accuracy by week for the dashboard, in one
    read."""
    lesson_filter(ctx, lesson)
    questions = (len(ctx.index.by_lesson.get(lesson, ())) if lesson is not None
                 else len(ctx.index.questions))
    with ctx.uow.read():
        due = due_report(ctx, lesson, limit=0)
        mastered = (0 if ctx.identity is None
                    else ctx.uow.progress.mastered_count(ctx.identity.learner_id, lesson))
        return Progress(lesson, questions, due.due_now, due.new, mastered,
                        accuracy(ctx, lesson),
                        calibration.calibrate(calibration_pairs(ctx, lesson)),
                        diagnosis_weeks(ctx, lesson),
                        graded=len(ctx.index.graded_ids(lesson)))


HISTORY_DAYS = 30
WEAKEST_LIMIT = 5


@dataclass(frozen=True)
class SectionProgress:
    """One lesson section: its questions, how many are mastered, closed-book accuracy."""

    lesson: str
    section: str
    title: Text
    questions: int
    mastered: int
    answers: int
    correct: int
    graded: int = 0  # of ``questions``, those that can become mastery

    @property
    def accuracy(self) -> float | None:
        """Return the share of closed-book answers that were right (None: none yet)."""
        return self.correct / self.answers if self.answers else None


@dataclass(frozen=True)
class WeakItem:
    """A question the learner gets wrong most, and where the lesson teaches its rule."""

    question_id: str
    title: Text
    answers: int
    correct: int
    taught_at: str


@dataclass(frozen=True)
class DayAccuracy:
    """Closed-book answers on one UTC day and how many were right."""

    day: date
    answers: int
    correct: int


@dataclass(frozen=True)
class SectionReport:
    """Mastery and accuracy per section, the weakest questions, and the accuracy history."""

    sections: tuple[SectionProgress, ...]
    weakest: tuple[WeakItem, ...]
    history: tuple[DayAccuracy, ...]


def section_report(ctx: Context, lesson: str | None = None) -> SectionReport:
    """Report mastery and closed-book accuracy per lesson section, the questions answered
    wrong most often (ties: fewer right answers first), and accuracy day by day over the last
    ``HISTORY_DAYS`` days. Three reads: counts by question, mastery records, recent answers.
    """
    counts: dict[str, list[int]] = {}
    mastered: set[str] = set()
    recent: list[tuple[datetime, bool]] = []
    if ctx.identity is not None:
        learner_id = ctx.identity.learner_id
        since = datetime.combine(ctx.now.date() - timedelta(days=HISTORY_DAYS - 1), time(),
                                 tzinfo=UTC)
        with ctx.uow.read():
            for question_id, correct, n in ctx.uow.progress.question_counts(learner_id,
                                                                            lesson):
                counts.setdefault(question_id, [0, 0])[0 if correct else 1] += n
            mastered = {m.question_id
                        for m in ctx.uow.progress.mastery_records(learner_id, lesson)
                        if m.mastered}
            recent = ctx.uow.progress.closed_book_answers_since(learner_id, since, lesson)
    sections = sections_of(ctx.index, lesson, counts, mastered)
    weak = sorted((qid for qid, (right, wrong) in counts.items()
                   if wrong and qid in ctx.index.questions),
                  key=lambda qid: (-counts[qid][1], counts[qid][0], qid))
    weakest = tuple(WeakItem(qid, ctx.index.questions[qid].title, sum(counts[qid]),
                             counts[qid][0], ctx.index.questions[qid].lesson_link)
                    for qid in weak[:WEAKEST_LIMIT])
    by_day: dict[date, list[int]] = {}
    for submitted_at, correct in recent:
        day = by_day.setdefault(submitted_at.astimezone(UTC).date(), [0, 0])
        day[0] += 1
        day[1] += int(correct)
    history = tuple(DayAccuracy(day, n, right) for day, (n, right) in sorted(by_day.items()))
    return SectionReport(sections, weakest, history)


def sections_of(index: BankIndex, lesson: str | None, counts: Mapping[str, list[int]],
                mastered: Collection[str]) -> tuple[SectionProgress, ...]:
    """Fold one learner's closed-book counts by question (``[right, wrong]``) and mastered
    questions into the lesson's sections (of one lesson, or all), in the lesson's order."""
    sections = []
    for lesson_id, lesson_entry in index.lessons.items():
        if lesson is not None and lesson_id != lesson:
            continue
        questions = index.by_lesson.get(lesson_id, ())
        for section in lesson_entry.sections:
            ids = [q.id for q in questions if q.section == section.id]
            if not ids:
                continue
            graded = sum(1 for q in questions if q.section == section.id and q.kind in GRADED)
            right = sum(counts.get(qid, [0, 0])[0] for qid in ids)
            wrong = sum(counts.get(qid, [0, 0])[1] for qid in ids)
            sections.append(SectionProgress(lesson_id, section.id, section.title, len(ids),
                                            sum(1 for qid in ids if qid in mastered),
                                            right + wrong, right, graded))
    return tuple(sections)
