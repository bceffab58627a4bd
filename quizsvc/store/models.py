"""Declare the tables: identity, self-assessments, study sessions, attempts, fsrs state, mastery.

The records the lesson keeps apart live in separate tables on purpose: ``self_assessment``
(per browser, the learner's own opinion) never shares a row or a foreign key with ``mastery``
(per learner, written only by ``quizsvc.review.mastery``). fsrs state is stored in real columns
(``review_card``) with its log (``review_log``), so due queues are plain indexed queries.

Models hold no queries and never commit: the repositories in ``quizsvc.store`` hold the SQL
and the use cases in ``quizsvc.study`` commit.
``migrations/`` is the schema: ``alembic check`` keeps these declarations and it in step.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID_LENGTH = 32  # opaque ids: secrets.token_urlsafe(16) is 22 characters (128 bits)
REF_LENGTH = 200  # question ids and lesson section ids
HASH_LENGTH = 64  # sha256 hex
CONTENT_KEY_LENGTH = 32  # quizsvc.bank.content keys


class UTCDateTime(TypeDecorator[datetime]):
    """Store timezone-aware datetimes and always read them back as UTC.

    SQLite drops tzinfo; PostgreSQL returns the session's zone. Naive values are refused on
    write so that no local clock sneaks in.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive datetimes and convert aware ones to UTC."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime; pass a timezone-aware UTC datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect
                             ) -> datetime | None:
        """Attach UTC to what SQLite returns naive; convert PostgreSQL's aware values to UTC."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """Share one metadata with the constraint naming convention Alembic relies on."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime()}


class Learner(Base):
    """One person: owns attempts, review cards and mastery records across linked browsers.

    ``review_seq`` is bumped by every transaction that changes the learner's attempts, cards,
    review log or mastery (``study.lock_learner``), so the lock-free answer path can tell
    whether what it read is still current.

    ``import_staged_at``: an import is written in short steps into a learner of its own that
    no browser reaches, then handed to the importing browser at once
    (``study.portability``); until then this says when that began. One left set belongs to an
    import that never finished, which ``quizsvc db prune`` deletes.

    ``exported_as``: the learner id this learner's exports name, when not its own: a learner
    an import was handed to goes on naming the learner the browser had before, so an export
    signed before the import still comes back whole after another loss.
    """

    __tablename__ = "learner"
    # SQLite would give a new learner an erased one's id, which old identity cookies name. 0013.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime]
    review_seq: Mapped[int] = mapped_column(Integer, server_default="0")
    import_staged_at: Mapped[datetime | None]
    exported_as: Mapped[int | None]


class Browser(Base):
    """One browser, known by the sha256 of its opaque cookie id; belongs to one learner."""

    __tablename__ = "browser"
    # Ids never given twice, as the learner's. 0013.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    created_at: Mapped[datetime]
    linked_at: Mapped[datetime | None]


class LinkCode(Base):
    """A one-time, expiring code that links another browser to a learner (hashed at rest)."""

    __tablename__ = "link_code"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    used_by_browser_id: Mapped[int | None] = mapped_column(
        ForeignKey("browser.id", ondelete="SET NULL"))


class SelfAssessment(Base):
    """A browser's own rating (1 "not yet" .. 4 "solid") of a question or lesson section.

    Kept per browser and read only by the self-assessment endpoints and calibration; the
    mastery policy never sees this table.
    """

    __tablename__ = "self_assessment"
    __table_args__ = (
        UniqueConstraint("browser_id", "ref"),
        CheckConstraint("rating BETWEEN 1 AND 4", name="rating_range"),
        CheckConstraint("ref_kind IN ('question', 'section')", name="ref_kind_known"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    browser_id: Mapped[int] = mapped_column(
        ForeignKey("browser.id", ondelete="CASCADE"), index=True)
    ref: Mapped[str] = mapped_column(String(REF_LENGTH))
    ref_kind: Mapped[str] = mapped_column(String(16))
    rating: Mapped[int] = mapped_column(SmallInteger)
    note: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime]


class StudySession(Base):
    """A closed-book session: an ordered list of questions picked when it started."""

    __tablename__ = "study_session"
    __table_args__ = (
        CheckConstraint("mode IN ('review', 'quiz', 'flashcards')", name="mode_known"),)

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    mode: Mapped[str] = mapped_column(String(16))
    size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]


class SessionItem(Base):
    """One slot of a study session: which question, and the variant served for it."""

    __tablename__ = "session_item"
    __table_args__ = (UniqueConstraint("session_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(
        ForeignKey("study_session.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    reason: Mapped[str] = mapped_column(String(16))  # "due" | "new" | "practice"
    variant_id: Mapped[str | None] = mapped_column(
        ForeignKey("served_variant.id", ondelete="SET NULL"))


class ServedVariant(Base):
    """A variant handed to a learner: ``(question_id, seed, bank_version)`` behind an opaque id.

    The seed never leaves the server. ``open_book`` turns true if the learner reads the
    lesson while this variant is open (served, not yet answered). ``answer_key`` is what
    grading needs, computed once when served; older rows have none and are graded by
    rebuilding the variant.
    """

    __tablename__ = "served_variant"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    kind: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    bank_version: Mapped[str] = mapped_column(String(64))
    served_at: Mapped[datetime]
    answered: Mapped[bool] = mapped_column(Boolean, default=False)
    open_book: Mapped[bool] = mapped_column(Boolean, default=False)
    # The sealed answer key computed when served (``quizsvc.bank.AnswerKey`` JSON); never sent.
    answer_key: Mapped[str | None] = mapped_column(Text)
    # What the variant asks (``quizsvc.bank.content``): mastery wants different content.
    content_key: Mapped[str | None] = mapped_column(String(CONTENT_KEY_LENGTH))
    # A fresh variant asked for after the question's reveal ("try a new variant"): its answer
    # is practice, never mastery evidence (``study.answering.practice_of``). 0009.
    practice: Mapped[bool] = mapped_column(Boolean, server_default=false())


class Attempt(Base):
    """One answer to one variant: the grade, the timing, closed-book or not, the explanation
    and the rule the learner diagnosed.

    ``graded`` is false for flashcards and free-text questions (self-rated, never graded), and
    for an imported attempt no one can vouch for (``origin`` "unverified").
    ``revealed_at`` is when the correct answer and solution were shown: at once for a right
    answer or an ungraded card, only after ``explanation`` for a wrong one.
    """

    __tablename__ = "attempt"
    __table_args__ = (
        UniqueConstraint("learner_id", "idempotency_key"),
        Index("ix_attempt_learner_id_question_id", "learner_id", "question_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id", ondelete="CASCADE"))
    variant_id: Mapped[str] = mapped_column(
        ForeignKey("served_variant.id", ondelete="CASCADE"), unique=True)
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    kind: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    bank_version: Mapped[str] = mapped_column(String(64))
    answer: Mapped[Any] = mapped_column(JSON, nullable=True)
    graded: Mapped[bool] = mapped_column(Boolean)
    correct: Mapped[bool | None] = mapped_column(Boolean)
    score: Mapped[float | None] = mapped_column(Float)
    misconception_id: Mapped[str | None] = mapped_column(String(REF_LENGTH))
    served_at: Mapped[datetime]
    submitted_at: Mapped[datetime]
    duration_ms: Mapped[int] = mapped_column(Integer)
    closed_book: Mapped[bool] = mapped_column(Boolean)
    explanation: Mapped[str | None] = mapped_column(Text)
    explained_at: Mapped[datetime | None]
    revealed_at: Mapped[datetime | None]
    idempotency_key: Mapped[str] = mapped_column(String(REF_LENGTH))
    request_digest: Mapped[str] = mapped_column(String(HASH_LENGTH))
    # Who stands behind the grade: "graded" here (or restored from this learner's signed
    # export), "regraded" at an import before 0006, or "unverified" (history that counts for
    # nothing). 0005.
    origin: Mapped[str] = mapped_column(String(16), server_default="graded")
    content_key: Mapped[str | None] = mapped_column(String(CONTENT_KEY_LENGTH))
    # Answered soon after a wrong answer to the same question was revealed: graded, but
    # practice, not closed-book evidence (``review.mastery.practice_after_reveal``). 0006.
    practice: Mapped[bool] = mapped_column(Boolean, server_default=false())
    # The rule (``rules.yaml`` id) the learner named as the one they broke, with the
    # explanation of a wrong answer: a diagnosis, graded against the matched wrong model's
    # ``breaks`` on read. Never mastery evidence. 0011.
    diagnosed_rule: Mapped[str | None] = mapped_column(String(REF_LENGTH))


class ReviewCard(Base):
    """One fsrs card per learner and question, its state in real columns.

    Mirrors ``fsrs.Card``: ``state`` (1 Learning, 2 Review, 3 Relearning), ``step``,
    ``stability``, ``difficulty``, ``due``, ``last_review``.
    """

    __tablename__ = "review_card"
    __table_args__ = (
        UniqueConstraint("learner_id", "question_id"),
        Index("ix_review_card_learner_id_due", "learner_id", "due"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    state: Mapped[int] = mapped_column(SmallInteger)
    step: Mapped[int | None] = mapped_column(SmallInteger)
    stability: Mapped[float | None] = mapped_column(Float)
    difficulty: Mapped[float | None] = mapped_column(Float)
    due: Mapped[datetime]
    last_review: Mapped[datetime | None]
    created_at: Mapped[datetime]


class ReviewLog(Base):
    """One fsrs review of a card, with the card's state before it (so a rating can be redone).

    A right answer is logged as Good at once; if the learner then picks Hard or Easy the same
    row is re-rated from the ``*_before`` snapshot.
    """

    __tablename__ = "review_log"
    __table_args__ = (
        CheckConstraint("rating BETWEEN 1 AND 4", name="rating_range"),
        # A learner's reviews in a window of time (the statistics): a range of one index. 0009.
        Index("ix_review_log_learner_id_reviewed_at", "learner_id", "reviewed_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    card_id: Mapped[int] = mapped_column(
        ForeignKey("review_card.id", ondelete="CASCADE"), index=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id", ondelete="CASCADE"))
    attempt_id: Mapped[int | None] = mapped_column(
        ForeignKey("attempt.id", ondelete="SET NULL"), unique=True)
    rating: Mapped[int] = mapped_column(SmallInteger)
    reviewed_at: Mapped[datetime]
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    rated_by_learner: Mapped[bool] = mapped_column(Boolean)
    state_before: Mapped[int] = mapped_column(SmallInteger)
    step_before: Mapped[int | None] = mapped_column(SmallInteger)
    stability_before: Mapped[float | None] = mapped_column(Float)
    difficulty_before: Mapped[float | None] = mapped_column(Float)
    due_before: Mapped[datetime]
    last_review_before: Mapped[datetime | None]
    # Recorded by this server (or restored from the learner's own signed export): only such
    # reviews teach the pooled FSRS fit that schedules everyone. 0006.
    vouched: Mapped[bool] = mapped_column(Boolean, server_default=true())


class Mastery(Base):
    """Per learner and question: the mastery policy's verdict and the attempts behind it.

    Written only by ``quizsvc.review.mastery`` through the attempt use cases; no endpoint
    writes it directly and nothing derived from self-assessments or flashcards reaches it.
    """

    __tablename__ = "mastery"
    __table_args__ = (UniqueConstraint("learner_id", "question_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    mastered: Mapped[bool] = mapped_column(Boolean)
    mastered_at: Mapped[datetime | None]
    evidence: Mapped[list[int]] = mapped_column(JSON)
    policy: Mapped[str] = mapped_column(String(32))
    evaluated_at: Mapped[datetime]


class FsrsParameters(Base):
    """FSRS parameters fitted to review logs by ``quizsvc fsrs optimize``, with their record.

    A row fits everyone's pooled log (``learner_id`` NULL) or one learner's own, over one
    lesson's cards or every lesson's (``lesson`` NULL). Rows are only added, never changed:
    a card is scheduled by the newest row of the most specific scope that applies to it
    (``quizsvc.store.scheduler_settings``), and older rows are the history of the fits.
    ``log_loss`` and ``default_log_loss`` are what the fitted and the default parameters
    score on the ``review_count`` reviews they were fitted to.
    """

    __tablename__ = "fsrs_parameters"
    __table_args__ = (
        Index("ix_fsrs_parameters_learner_id_lesson", "learner_id", "lesson"),
        CheckConstraint("review_count > 0", name="review_count_positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int | None] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"))
    lesson: Mapped[str | None] = mapped_column(String(REF_LENGTH))
    parameters: Mapped[list[float]] = mapped_column(JSON)
    fitted_at: Mapped[datetime]
    review_count: Mapped[int] = mapped_column(Integer)
    log_loss: Mapped[float] = mapped_column(Float)
    default_log_loss: Mapped[float] = mapped_column(Float)


class LearnerSetting(Base):
    """A learner's own settings: the retention their reviews are scheduled for.

    Only scheduling reads it; no setting a learner chooses reaches the mastery record. A
    learner without a row has the default (0.90).
    """

    __tablename__ = "learner_setting"
    __table_args__ = (
        CheckConstraint("desired_retention BETWEEN 0.7 AND 0.97",
                        name="desired_retention_range"),)

    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), primary_key=True)
    desired_retention: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime]


NAME_LENGTH = 200  # a cohort's name
DISPLAY_NAME_LENGTH = 60  # the name a learner shows an instructor


class Cohort(Base):
    """A class that studies one lesson together, made by an author.

    Neither secret is kept: ``join_code_hash`` is the sha256 of the code learners join with,
    ``instructor_token_hash`` the sha256 of the instructor's token (rotated by replacing it).
    The cohort holds no learner's data; its members are ``cohort_member`` rows. 0007.
    """

    __tablename__ = "cohort"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    join_code_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    instructor_token_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    created_at: Mapped[datetime]
    instructor_rotated_at: Mapped[datetime | None]


class CohortMember(Base):
    """A learner in a cohort under a display name they chose, and what they let it read.

    Joining writes only this row (nothing of the learner's own records changes); leaving
    deletes it, so the cohort's views drop the learner from then on. ``share_explanations``
    is the learner's consent, given when joining, to let the instructor read their
    explanations verbatim. 0007.
    """

    __tablename__ = "cohort_member"
    __table_args__ = (UniqueConstraint("cohort_id", "learner_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    cohort_id: Mapped[int] = mapped_column(ForeignKey("cohort.id", ondelete="CASCADE"))
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    display_name: Mapped[str] = mapped_column(String(DISPLAY_NAME_LENGTH))
    share_explanations: Mapped[bool] = mapped_column(Boolean, server_default=false())
    joined_at: Mapped[datetime]
class ItemHold(Base):
    """A learner's hold on one question or flashcard: suspended, or buried until a day starts.

    Set from the card browser (Anki's suspend and bury). While a hold is in force the item is
    never served and counts in no due figure (``quizsvc.store.holds.held``); it touches
    neither the card's schedule nor its mastery record. A row with neither is no hold.
    """

    __tablename__ = "item_hold"
    __table_args__ = (
        UniqueConstraint("learner_id", "question_id"),
        Index("ix_item_hold_learner_id_lesson", "learner_id", "lesson"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    suspended: Mapped[bool] = mapped_column(Boolean)
    buried_until: Mapped[datetime | None]
    updated_at: Mapped[datetime]


class QuestionReport(Base):
    """A learner's report of a problem with a question, kept with the variant it was seen on.

    ``(question_id, seed, bank_version)`` name the variant exactly, so an author can rebuild
    what the learner saw; only the author views list reports (never another learner).
    """

    __tablename__ = "question_report"
    __table_args__ = (
        Index("ix_question_report_created_at", "created_at"),
        CheckConstraint("reason IN ('wrong_answer', 'unclear', 'typo', 'broken', 'other')",
                        name="reason_known"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        ForeignKey("learner.id", ondelete="CASCADE"), index=True)
    variant_id: Mapped[str | None] = mapped_column(
        ForeignKey("served_variant.id", ondelete="SET NULL"))
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    lesson: Mapped[str] = mapped_column(String(REF_LENGTH))
    seed: Mapped[int] = mapped_column(BigInteger)
    bank_version: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class ExportedVariant(Base):
    """A variant that left the server with its answer: written into an LMS export
    (``quizsvc export moodle|qti``), so a class holds its answer.

    Serving never hands out a content recorded here (``study.serving.draw_variant``), whatever
    the bank's publication partition says today: a later bank may class that content as
    servable, but the class still has the answer. 0010.
    """

    __tablename__ = "exported_variant"
    __table_args__ = (
        UniqueConstraint("question_id", "content_key", "seed"),
        CheckConstraint("export_format IN ('moodle', 'qti')", name="export_format_known"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[str] = mapped_column(String(REF_LENGTH))
    content_key: Mapped[str] = mapped_column(String(CONTENT_KEY_LENGTH))
    seed: Mapped[int] = mapped_column(BigInteger)
    bank_version: Mapped[str] = mapped_column(String(64))
    export_format: Mapped[str] = mapped_column(String(16))
    exported_at: Mapped[datetime]


def table(model: type[Base]) -> Table:
    """Return a model's ``Table`` (what the repositories' Core statements run on)."""
    found = model.__table__
    assert isinstance(found, Table)
    return found
