"""In-memory repositories with the real ones' public methods, for the fake unit of work.

Each class mirrors one of ``quizsvc.store``'s repositories, method for method, for the
methods the use cases that ``tests/study`` drives call: the same arguments, the same
dataclasses back, the same ``Stale`` and ``IntegrityError``. They read and write the fake's
``Tables`` (``tests.support.fake_tables``), which keep the real tables' columns and unique
keys. The mastery rule's conditions come from ``review.mastery`` (``holds``), as the real
queries' do. ``tests/store/test_fake_contract.py`` runs the same scenarios on these and on
the real repositories (SQLite and PostgreSQL), so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any

from quizsvc.review import mastery
from quizsvc.review.mastery import GradedAttempt
from quizsvc.review.optimizer import Fit
from quizsvc.review.outcome import MasteryChange, MasteryRecord, Review
from quizsvc.review.scheduling import DEFAULT_RETENTION, CardState, SchedulerSettings
from quizsvc.store.answer_rows import (
    CARD_STATE,
    LOG_STATE,
    AnswerWrite,
    card_values,
    log_values,
    mastery_values,
    new_card_values,
)
from quizsvc.store.answers import (
    AnswerSnapshot,
    KeyedAttempt,
    LoggedReview,
    StoredAttempt,
    StoredCard,
    VariantState,
)
from quizsvc.store.exports import Exported
from quizsvc.store.holds import Hold
from quizsvc.store.learners import BrowserRow
from quizsvc.store.repository import Stale
from quizsvc.store.scheduler_settings import settings_of
from quizsvc.store.sessions import (
    RECENTLY_REVEALED,
    ContentsToAvoid,
    ItemOutcome,
    ItemState,
    PracticeVariant,
    SessionState,
    StoredSession,
)
from tests.support.fake_tables import Row, Tables


class FakeRepository:
    """A repository of the fake unit of work: its rows exist only inside a shape."""

    def __init__(self, uow: Any) -> None:
        self.uow = uow

    @property
    def tables(self) -> Tables:
        """Return the fake database (``NoTransaction`` outside a shape, as the real one)."""
        tables: Tables = self.uow.connection
        return tables


def card_state(row: Row, names: Sequence[str] = CARD_STATE) -> CardState:
    """Return the fsrs state held in a card's (or a log row's ``*_before``) columns."""
    return CardState(*(row[name] for name in names))


def graded_attempt(row: Row) -> GradedAttempt:
    """Return what the mastery policy reads of an attempt row."""
    return mastery.graded_attempt(row["id"], row["content_key"], row["seed"],
                                  row["bank_version"], row["submitted_at"], row["correct"],
                                  row["closed_book"])


def of_question(learner_id: int, question_id: str) -> Any:
    """Return the condition "a row of this learner's, about this question"."""
    return lambda row: row["learner_id"] == learner_id and row["question_id"] == question_id


class FakeAnswers(FakeRepository):
    """``quizsvc.store.answers.AnswerRepository`` in memory."""

    def read_snapshot(self, variant_id: str) -> AnswerSnapshot | None:
        """Read what answering ``variant_id`` needs (None: no such variant)."""
        t = self.tables
        served = t.get("served_variant", variant_id)
        if served is None:
            return None
        learner_id, question_id = served["learner_id"], served["question_id"]
        learner = t.get("learner", learner_id)
        assert learner is not None  # a foreign key
        mine = of_question(learner_id, question_id)
        cards = t.select("review_card", mine)
        records = t.select("mastery", mine)
        attempts = t.select("attempt", mine)
        rights = [a["submitted_at"] for a in attempts
                  if mastery.holds(mastery.READ + mastery.EVIDENCE, a)]
        reveals = [a["revealed_at"] for a in attempts if a["revealed_at"] is not None
                   and mastery.holds(mastery.READ + mastery.ENDS_RUN, a)]
        card = StoredCard(cards[0]["id"], card_state(cards[0])) if cards else None
        record = (MasteryRecord(records[0]["id"], bool(records[0]["mastered"])) if records
                  else MasteryRecord(None, False))
        return AnswerSnapshot(
            variant_id=variant_id, learner_id=learner_id, question_id=question_id,
            lesson=served["lesson"], kind=served["kind"], seed=served["seed"],
            served_at=served["served_at"], answered=served["answered"],
            bank_version=served["bank_version"], open_book=served["open_book"],
            answer_key=served["answer_key"], content_key=served["content_key"],
            review_seq=learner["review_seq"], card=card, mastery=record,
            right_closed_book_span=(min(rights), max(rights)) if rights else None,
            last_wrong_reveal=max(reveals) if reveals else None,
            settings=self.uow.settings.read_settings(learner_id, served["lesson"]),
            practice=bool(served["practice"]))

    def read_run(self, learner_id: int, question_id: str) -> list[GradedAttempt]:
        """Read the question's current run: its graded attempts from the latest wrong one on."""
        graded = [a for a in self.tables.select("attempt", of_question(learner_id, question_id))
                  if mastery.holds(mastery.READ, a)]
        wrong = [a["submitted_at"] for a in graded if mastery.holds(mastery.ENDS_RUN, a)]
        start = max(wrong) if wrong else None
        in_order = sorted(graded, key=lambda a: (a["submitted_at"], a["id"]))
        return [graded_attempt(a) for a in in_order if start is None or a["submitted_at"] >= start]

    def write_answer(self, write: AnswerWrite) -> int:
        """Record one answer and return the attempt's id; raise ``Stale`` if its snapshot was
        (writing nothing), ``IntegrityError`` for a reused idempotency key."""
        t = self.tables
        attempt = write.attempt
        learner = t.get("learner", write.learner_id)
        served = t.get("served_variant", attempt.variant_id)
        if (learner is None or learner["review_seq"] != write.review_seq or served is None
                or served["answered"] or served["open_book"] != write.open_book):
            raise Stale(attempt.variant_id)
        t.update("learner", lambda row: row["id"] == write.learner_id,
                 review_seq=write.review_seq + 1)
        t.update("served_variant", lambda row: row["id"] == attempt.variant_id, answered=True)
        attempt_id: int = t.insert("attempt", attempt.columns())
        entry = write.review
        if entry is not None:
            card_id = write.card_id
            if card_id is None:
                card_id = t.insert("review_card", new_card_values(
                    write.learner_id, attempt.question_id, attempt.lesson, entry,
                    attempt.submitted_at))
            else:
                t.update("review_card", lambda row: row["id"] == card_id,
                         **card_values(entry.after))
            t.insert("review_log", {"card_id": card_id, "attempt_id": attempt_id,
                                    **log_values(write.learner_id, entry, attempt.duration_ms,
                                                 False)})
        if write.mastery is not None:
            self.write_mastery(write.learner_id, attempt.question_id, attempt.lesson,
                               write.mastery, attempt_id)
        return attempt_id

    def write_mastery(self, learner_id: int, question_id: str, lesson: str,
                      change: MasteryChange, attempt_id: int) -> None:
        """Apply one mastery change (the mastery policy's decision) to its row."""
        values = mastery_values(change, attempt_id)
        if change.action == "insert":
            self.tables.insert("mastery", {"learner_id": learner_id, "question_id": question_id,
                                           "lesson": lesson, **values})
        elif change.action == "update":
            self.tables.update("mastery", lambda row: row["id"] == change.record_id, **values)
        else:
            mine = of_question(learner_id, question_id)
            self.tables.update("mastery", lambda row: mine(row) and row["mastered"], **values)

    def review_version(self, learner_id: int) -> tuple[int, datetime | None]:
        """Return the learner's review counter and when the learner was made."""
        row = self.tables.get("learner", learner_id)
        return (0, None) if row is None else (row["review_seq"], row["created_at"])

    def lock_learner(self, learner_id: int) -> None:
        """Take the learner's lock: bump ``review_seq`` (a lock-free answer's read goes stale)."""
        learner = self.tables.get("learner", learner_id)
        if learner is not None:
            self.tables.update("learner", lambda row: row["id"] == learner_id,
                               review_seq=learner["review_seq"] + 1)

    def variant_state(self, variant_id: str) -> VariantState | None:
        """Return a served variant's owner and answered flag (None: no such variant)."""
        row = self.tables.get("served_variant", variant_id)
        return None if row is None else VariantState(row["learner_id"], row["answered"])

    def find_by_key(self, learner_id: int, idempotency_key: str) -> KeyedAttempt | None:
        """Return this learner's attempt under ``idempotency_key``, if any."""
        found = self.tables.select("attempt", lambda row: row["learner_id"] == learner_id
                                   and row["idempotency_key"] == idempotency_key)
        return KeyedAttempt(found[0]["id"], found[0]["request_digest"]) if found else None

    def attempt(self, learner_id: int, attempt_id: int) -> StoredAttempt | None:
        """Return one of this learner's attempts (None: unknown, or another learner's)."""
        row = self.tables.get("attempt", attempt_id)
        if row is None or row["learner_id"] != learner_id:
            return None
        return StoredAttempt(**{name: row[name] for name in StoredAttempt.__dataclass_fields__})

    def rating_of(self, attempt_id: int) -> int | None:
        """Return the fsrs rating of an attempt's review (None: not reviewed)."""
        found = self.tables.select("review_log", lambda row: row["attempt_id"] == attempt_id)
        return found[0]["rating"] if found else None

    def record_explanation(self, attempt_id: int, explanation: str, rule: str | None,
                           now: datetime) -> None:
        """Store why a wrong answer was wrong and the rule the learner names as broken; that
        reveals its answer and solution."""
        self.tables.update("attempt", lambda row: row["id"] == attempt_id,
                           explanation=explanation, diagnosed_rule=rule, explained_at=now,
                           revealed_at=now)

    def review_of_attempt(self, attempt_id: int) -> LoggedReview | None:
        """Return the review logged for an attempt (None: it was not reviewed yet)."""
        t = self.tables
        found = t.select("review_log", lambda row: row["attempt_id"] == attempt_id)
        if not found:
            return None
        row = found[0]
        ids = [log["id"] for log in t.select("review_log",
                                             lambda log: log["card_id"] == row["card_id"])]
        return LoggedReview(row["id"], row["card_id"], row["rating"], row["reviewed_at"],
                            card_state(row, LOG_STATE), max(ids) == row["id"],
                            bool(row["rated_by_learner"]), min(ids) == row["id"])

    def card_of(self, learner_id: int, question_id: str) -> StoredCard | None:
        """Return the learner's card for a question (None: never reviewed)."""
        found = self.tables.select("review_card", of_question(learner_id, question_id))
        return StoredCard(found[0]["id"], card_state(found[0])) if found else None

    def record_review(self, learner_id: int, answered: StoredAttempt, card: StoredCard | None,
                      entry: Review, by_learner: bool) -> None:
        """Write a first review of an attempt: the card (created if new) and its log entry."""
        t = self.tables
        if card is None:
            card_id = t.insert("review_card", new_card_values(
                learner_id, answered.question_id, answered.lesson, entry, entry.reviewed_at))
        else:
            card_id = card.id
            t.update("review_card", lambda row: row["id"] == card_id, **card_values(entry.after))
        t.insert("review_log", {"card_id": card_id, "attempt_id": answered.id, **log_values(
            learner_id, entry, answered.duration_ms, by_learner)})

    def rerate_review(self, logged: LoggedReview, entry: Review) -> None:
        """Redo a logged review with another rating: the card's new state, the log's rating."""
        t = self.tables
        t.update("review_card", lambda row: row["id"] == logged.card_id,
                 **card_values(entry.after))
        t.update("review_log", lambda row: row["id"] == logged.id, rating=int(entry.rating),
                 rated_by_learner=True)

    def undo_review(self, logged: LoggedReview, kept: Review | None) -> None:
        """Take a learner's rating back (see ``AnswerRepository.undo_review``)."""
        t = self.tables
        if kept is not None:
            t.update("review_card", lambda row: row["id"] == logged.card_id,
                     **card_values(kept.after))
            t.update("review_log", lambda row: row["id"] == logged.id,
                     rating=int(kept.rating), rated_by_learner=False)
            return
        t.delete("review_log", lambda row: row["id"] == logged.id)
        if logged.first:
            t.delete("review_card", lambda row: row["id"] == logged.card_id)
        else:
            t.update("review_card", lambda row: row["id"] == logged.card_id,
                     **card_values(logged.before))


def unfinished(t: Tables, session_id: str) -> bool:
    """Tell whether one of a session's items has no answered variant."""
    for item in t.select("session_item", lambda row: row["session_id"] == session_id):
        served = t.get("served_variant", item["variant_id"])
        if served is None or not served["answered"]:
            return True
    return False


class FakeSessions(FakeRepository):
    """``quizsvc.store.sessions.SessionRepository`` in memory."""

    def create_session(self, session: StoredSession,
                       picked: Sequence[tuple[str, str]]) -> None:
        """Store a new session and its items (``picked``: question id and reason, in order)."""
        t = self.tables
        t.insert("study_session", {"id": session.id, "learner_id": session.learner_id,
                                   "lesson": session.lesson, "mode": session.mode,
                                   "size": session.size, "created_at": session.created_at})
        for position, (question_id, reason) in enumerate(picked, start=1):
            t.insert("session_item", {"session_id": session.id, "position": position,
                                      "question_id": question_id, "reason": reason})

    def stored(self, row: Row) -> StoredSession:
        """Return a session row as the repository returns it."""
        return StoredSession(row["id"], row["learner_id"], row["lesson"], row["mode"],
                             row["size"], row["created_at"])

    def session_of(self, learner_id: int, session_id: str) -> StoredSession | None:
        """Return one of this learner's sessions (None: unknown, or another learner's)."""
        row = self.tables.get("study_session", session_id)
        return None if row is None or row["learner_id"] != learner_id else self.stored(row)

    def session_state(self, learner_id: int, session_id: str) -> SessionState | None:
        """Read one of this learner's sessions with its items (None: unknown, or another's)."""
        session = self.session_of(learner_id, session_id)
        if session is None:
            return None
        t = self.tables
        items = []
        for item in t.select("session_item", lambda row: row["session_id"] == session_id,
                             order=lambda row: row["position"]):
            served = t.get("served_variant", item["variant_id"]) or {}
            items.append(ItemState(item["id"], item["position"], item["question_id"],
                                   item["reason"], served.get("id"), served.get("seed"),
                                   served.get("served_at"), bool(served.get("answered"))))
        return SessionState(session, tuple(items))

    def contents_to_avoid(self, learner_id: int, question_id: str) -> ContentsToAvoid:
        """Return a learner's revealed mistakes and the exported contents of a question."""
        return ContentsToAvoid(
            self._revealed_mistakes(learner_id, question_id),
            frozenset(row["content_key"] for row in self.tables.select(
                "exported_variant", lambda row: row["question_id"] == question_id)))

    def _revealed_mistakes(self, learner_id: int, question_id: str) -> tuple[str, ...]:
        """Return the contents of the learner's latest revealed wrong answers to a question."""
        found = self.tables.select(
            "attempt", lambda row: of_question(learner_id, question_id)(row)
            and row["correct"] is False and row["revealed_at"] is not None
            and row["content_key"] is not None,
            order=lambda row: (row["revealed_at"], row["id"]), reverse=True)
        return tuple(dict.fromkeys(row["content_key"] for row in found[:RECENTLY_REVEALED]))

    def serve_practice(self, variant: dict[str, Any]) -> None:
        """Store a variant served as practice, outside any session, in place of the
        learner's practice variant still open."""
        self.tables.delete("served_variant", lambda row: row["learner_id"]
                           == variant["learner_id"] and row["practice"] and not row["answered"])
        self.tables.insert("served_variant", variant | {"practice": True})

    def practice_variant(self, learner_id: int, variant_id: str) -> PracticeVariant | None:
        """Return one of this learner's practice variants with its attempt, if answered."""
        t = self.tables
        served = t.get("served_variant", variant_id)
        if served is None or served["learner_id"] != learner_id or not served["practice"]:
            return None
        attempts = t.select("attempt", lambda row: row["variant_id"] == variant_id)
        return PracticeVariant(served["id"], served["question_id"], served["seed"],
                               served["bank_version"], served["served_at"],
                               attempts[0]["id"] if attempts else None)

    def serve_item(self, item_id: int, variant: dict[str, Any]) -> None:
        """Store a served variant and point the item at it; raise ``Stale`` (writing
        nothing) when another request served the item first."""
        t = self.tables
        item = t.get("session_item", item_id)
        if item is None or item["variant_id"] is not None:
            raise Stale(item_id)
        t.insert("served_variant", variant)
        t.update("session_item", lambda row: row["id"] == item_id, variant_id=variant["id"])

    def session_outcomes(self, learner_id: int, session_id: str) -> list[ItemOutcome]:
        """List a learner's session items in order with their outcomes."""
        t = self.tables
        if self.session_of(learner_id, session_id) is None:
            return []
        outcomes = []
        for item in t.select("session_item", lambda row: row["session_id"] == session_id,
                             order=lambda row: row["position"]):
            variant = item["variant_id"]
            attempts = t.select("attempt", lambda row, v=variant: row["variant_id"] == v)
            attempt = attempts[0] if attempts else None
            logs = (t.select("review_log", lambda row, a=attempt["id"]: row["attempt_id"] == a)
                    if attempt else [])
            mine = of_question(learner_id, item["question_id"])
            cards, records = t.select("review_card", mine), t.select("mastery", mine)
            outcomes.append(ItemOutcome(
                item["position"], item["question_id"], item["reason"], variant is not None,
                attempt["id"] if attempt else None, attempt["graded"] if attempt else None,
                attempt["correct"] if attempt else None, attempt["score"] if attempt else None,
                attempt["closed_book"] if attempt else None,
                bool(attempt and attempt["revealed_at"] is not None),
                logs[0]["rating"] if logs else None, cards[0]["due"] if cards else None,
                records[0]["mastered"] if records else None,
                records[0]["mastered_at"] if records else None))
        return outcomes

    def open_condition(self, learner_id: int, lesson: str | None,
                       kinds: Collection[str] | None = None) -> Any:
        """Return "this learner's open closed-book variant (of ``lesson``, or any; of
        ``kinds``, or any)"; a variant served as practice is not closed-book."""
        return lambda row: (row["learner_id"] == learner_id and not row["answered"]
                            and not row["open_book"] and not row["practice"]
                            and (lesson is None or row["lesson"] == lesson)
                            and (kinds is None or row["kind"] in kinds))

    def mark_open_book(self, learner_id: int, lesson: str | None = None) -> int:
        """Mark this learner's open variants (of ``lesson``, or all) open-book; return how many."""
        return self.tables.update("served_variant", lambda row: (
            row["learner_id"] == learner_id and not row["answered"] and not row["open_book"]
            and (lesson is None or row["lesson"] == lesson)), open_book=True)

    def open_variants(self, learner_id: int, lesson: str | None = None,
                      kinds: Collection[str] | None = None) -> int:
        """Count this learner's open closed-book variants (of ``lesson``, or all; of
        ``kinds``, or any)."""
        return len(self.tables.select("served_variant",
                                      self.open_condition(learner_id, lesson, kinds)))

    def session_of_open_variant(self, learner_id: int, lesson: str | None = None,
                                kinds: Collection[str] | None = None) -> str | None:
        """Return the session of this learner's latest open closed-book variant."""
        t = self.tables
        latest = t.select("served_variant", self.open_condition(learner_id, lesson, kinds),
                          order=lambda row: row["served_at"], reverse=True)
        for served in latest:
            items = t.select("session_item", lambda row, v=served["id"]: row["variant_id"] == v)
            if items:
                session: str = items[0]["session_id"]
                return session
        return None

    def drop_unserved(self, learner_id: int, question_id: str) -> int:
        """Delete a question's items not served yet from this learner's sessions."""
        mine = {row["id"] for row in self.tables.select(
            "study_session", lambda row: row["learner_id"] == learner_id)}
        return self.tables.delete("session_item", lambda row: row["session_id"] in mine
                                  and row["question_id"] == question_id
                                  and row["variant_id"] is None)

    def drop_oldest_unfinished(self, learner_id: int, keep: int) -> int:
        """Delete this learner's oldest unfinished sessions beyond ``keep``, with their
        variants never answered; return how many."""
        t = self.tables
        sessions = t.select("study_session", lambda row: row["learner_id"] == learner_id
                            and unfinished(t, row["id"]),
                            order=lambda row: (row["created_at"], row["id"]), reverse=True)
        doomed = {row["id"] for row in sessions[keep:]}
        if not doomed:
            return 0
        variants = {row["variant_id"] for row in t.select(
            "session_item", lambda row: row["session_id"] in doomed)} - {None}
        t.delete("session_item", lambda row: row["session_id"] in doomed)
        t.delete("study_session", lambda row: row["id"] in doomed)
        t.delete("served_variant", lambda row: row["id"] in variants and not row["answered"])
        return len(doomed)


def held_at(tables: Tables, learner_id: int, now: datetime) -> set[str]:
    """Return the questions a hold keeps out of this learner's serving and dues at ``now``."""
    return {row["question_id"] for row in tables.select(
        "item_hold", lambda row: row["learner_id"] == learner_id and (
            row["suspended"] or (row["buried_until"] is not None
                                 and row["buried_until"] > now)))}


class FakeProgress(FakeRepository):
    """The part of ``quizsvc.store.progress.ProgressRepository`` that starting sessions reads."""

    def card_dues(self, learner_id: int, lesson: str, now: datetime
                  ) -> list[tuple[str, datetime | None]]:
        """Return (question id, due) of a learner's cards of one lesson, soonest due first,
        then (question id, None) for each item a hold keeps out at ``now``, by question id."""
        held = held_at(self.tables, learner_id, now)
        cards = [(row["question_id"], row["due"]) for row in self.tables.select(
            "review_card", lambda row: row["learner_id"] == learner_id
            and row["lesson"] == lesson and row["question_id"] not in held,
            order=lambda row: (row["due"], row["id"]))]
        holds = self.tables.select(
            "item_hold", lambda row: row["learner_id"] == learner_id and row["lesson"] == lesson
            and row["question_id"] in held, order=lambda row: row["question_id"])
        return [*cards, *((row["question_id"], None) for row in holds)]

    def card_counts(self, learner_id: int, question_ids: Sequence[str], now: datetime
                    ) -> tuple[int, int, int]:
        """Count a learner's cards among ``question_ids``, how many of them are due and no
        hold keeps out, and the held items among them that have no card yet."""
        held = held_at(self.tables, learner_id, now)
        cards = self.tables.select("review_card", lambda row: row["learner_id"] == learner_id
                                   and row["question_id"] in question_ids)
        with_cards = {row["question_id"] for row in cards}
        return (len(cards),
                sum(row["due"] <= now and row["question_id"] not in held for row in cards),
                len({qid for qid in held if qid in question_ids and qid not in with_cards}))


class FakeHolds(FakeRepository):
    """``quizsvc.store.holds.HoldRepository`` in memory."""

    def holds_in(self, learner_id: int, lesson: str) -> dict[str, Hold]:
        """Return a learner's holds on one lesson's items, by question."""
        return {row["question_id"]: Hold(row["question_id"], bool(row["suspended"]),
                                         row["buried_until"])
                for row in self.tables.select("item_hold", lambda row: row["learner_id"] ==
                                              learner_id and row["lesson"] == lesson)}

    def hold_of(self, learner_id: int, question_id: str) -> Hold:
        """Return a learner's hold on one item (none: not suspended, not buried)."""
        found = self.tables.select("item_hold", of_question(learner_id, question_id))
        if not found:
            return Hold(question_id, False, None)
        return Hold(question_id, bool(found[0]["suspended"]), found[0]["buried_until"])

    def put(self, learner_id: int, lesson: str, hold: Hold, now: datetime) -> None:
        """Store a learner's hold on an item."""
        values = {"suspended": hold.suspended, "buried_until": hold.buried_until,
                  "updated_at": now}
        if not self.tables.update("item_hold", of_question(learner_id, hold.question_id),
                                  **values):
            self.tables.insert("item_hold", {"learner_id": learner_id,
                                             "question_id": hold.question_id,
                                             "lesson": lesson, **values})


class FakeSettings(FakeRepository):
    """The part of ``quizsvc.store.scheduler_settings.SettingsRepository`` that reviewing
    reads: the chosen fit (the most specific scope, then the newest) and the retention."""

    def read_settings(self, learner_id: int, lesson: str) -> SchedulerSettings:
        """Return the settings that schedule ``learner_id``'s cards of ``lesson``."""
        t = self.tables
        fits = t.select("fsrs_parameters", lambda row: row["learner_id"] in (learner_id, None)
                        and row["lesson"] in (lesson, None),
                        order=lambda row: (row["learner_id"] is None, row["lesson"] is None,
                                           -row["fitted_at"].timestamp(), -row["id"]))
        return settings_of(self.retention(learner_id),
                           fits[0]["parameters"] if fits else None)

    def retention(self, learner_id: int) -> float | None:
        """Return the learner's stored desired retention (None: no row)."""
        found = self.tables.select("learner_setting",
                                   lambda row: row["learner_id"] == learner_id)
        return float(found[0]["desired_retention"]) if found else None

    def retention_of(self, learner_id: int) -> float:
        """Return the learner's desired retention (the default without a row)."""
        found = self.retention(learner_id)
        return DEFAULT_RETENTION if found is None else found

    def add_fit(self, fit: Fit, fitted_at: datetime, learner_id: int | None = None,
                lesson: str | None = None) -> int:
        """Store a fit for everyone (``learner_id`` None) or one learner; return its id."""
        fit_id: int = self.tables.insert("fsrs_parameters", {
            "learner_id": learner_id, "lesson": lesson, "parameters": list(fit.parameters),
            "fitted_at": fitted_at, "review_count": fit.review_count, "log_loss": fit.log_loss,
            "default_log_loss": fit.default_log_loss})
        return fit_id


class FakeLearners(FakeRepository):
    """The part of ``quizsvc.store.learners.LearnerRepository`` that registers a browser."""

    def browser_by_hash(self, token_hash: str) -> BrowserRow | None:
        """Return the browser stored under ``token_hash`` (None: unknown)."""
        found = self.tables.select("browser", lambda row: row["token_hash"] == token_hash)
        return BrowserRow(found[0]["id"], found[0]["learner_id"]) if found else None

    def register_browser(self, token_hash: str, now: datetime) -> BrowserRow | None:
        """Create a new learner owning a new browser under ``token_hash``; None (the learner
        made for it left to the caller's rollback) when that browser is stored already."""
        t = self.tables
        learner_id: int = t.insert("learner", {"created_at": now})
        if self.browser_by_hash(token_hash) is not None:
            return None
        browser_id: int = t.insert("browser", {"learner_id": learner_id,
                                               "token_hash": token_hash, "created_at": now})
        return BrowserRow(browser_id, learner_id)


class FakeExports(FakeRepository):
    """``store.exports.ExportRepository``: the variants LMS exports took away."""

    def record(self, variants: Iterable[Exported], export_format: str, now: datetime) -> int:
        """Record exported variants once each; return how many were new."""
        added = 0
        for v in variants:
            if self.tables.select("exported_variant", lambda row, v=v: (
                    row["question_id"], row["content_key"], row["seed"]) == (
                    v.question_id, v.content_key, v.seed)):
                continue
            self.tables.insert("exported_variant", {
                "question_id": v.question_id, "content_key": v.content_key, "seed": v.seed,
                "bank_version": v.bank_version, "export_format": export_format,
                "exported_at": now})
            added += 1
        return added

