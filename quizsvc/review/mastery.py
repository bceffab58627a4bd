"""Decide mastery from server-graded closed-book attempts, and from nothing else.

Policy ``spaced-closed-book/3`` (also in ``docs/mastery.md``). For one learner and one
question, walk the graded attempts in the order they were submitted:

1. Only server-graded attempts are read. Flashcard and free-text ratings, self-assessments
   and calibration never reach this function: its input type has no field for them.
2. A wrong graded answer, closed- or open-book, ends the current *run*: the evidence before it
   no longer counts. (After a wrong answer the correct answer is revealed once the learner
   explains, so this is also "no reveal in between".)
3. A right answer given open-book (the learner read the lesson while the question was open)
   neither counts nor ends the run.
4. An answer given within ``FRESH_REVEAL`` of the reveal of a wrong answer to the same question
   is practice, not closed-book: the learner has just read the answer (``practice_after_reveal``).
   So is an answer to a variant served as practice: a fresh variant the learner asked for
   after a reveal ("try a new variant", ``study.variants``), whenever it is answered.
   Like an open-book answer, a right one neither counts nor ends the run.
5. The question is mastered when the current run holds two right closed-book answers on
   variants that differ in content (``quizsvc.bank.content``: other numbers, other
   statements, not merely another seed) submitted on different UTC days and at least
   ``MIN_SPACING`` apart: recall that survives a night and a fresh set of numbers. A question
   that asks the same thing under every seed therefore never reaches mastery on its own:
   answering it again recalls the answer, not the rule.

So a mastery record can be created, kept or lapsed only by a graded attempt; the record keeps
the ids of the attempts that earned it. A record exists for a question once it was ever
mastered; a later wrong answer turns it to "not mastered" (lapsed) until it is earned again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

POLICY = "spaced-closed-book/3"  # /2: different content; /3: no answer just after a reveal
# "Different days" alone would let 23:59 and 00:01 count as spaced practice.
MIN_SPACING = timedelta(hours=12)
# An answer this soon after reading the question's answer recalls the reveal, not the rule:
# as long as two mastery answers must lie apart.
FRESH_REVEAL = MIN_SPACING

# Which attempts each rule above reads, named once as the attempt fields they test (the
# ``attempt`` table's columns). ``evaluate`` and the shortcut below, the store's queries
# (``quizsvc.store.answers``) and the import's re-evaluation are all built from these, so the
# rule is written here and nowhere else. ("closed_book" is stored already false for an
# open-book answer and for practice after a reveal: rules 3 and 4.)
Condition = tuple[tuple[str, bool], ...]
READ: Condition = (("graded", True),)  # rule 1: only server-graded attempts are read
ENDS_RUN: Condition = (("correct", False),)  # rule 2: a wrong answer ends the run
EVIDENCE: Condition = (("correct", True), ("closed_book", True))  # rules 3-5: what counts


@dataclass(frozen=True)
class GradedAttempt:
    """What the policy may know about one server-graded attempt."""

    attempt_id: int
    variant: str  # what the variant asked (``variant_identity``): mastery wants two different
    submitted_at: datetime
    correct: bool
    closed_book: bool


@dataclass(frozen=True)
class Verdict:
    """The policy's answer: mastered or not, since when, on which attempts, and whether the
    history ever reached mastery (a lapsed record is kept for a question once mastered)."""

    mastered: bool
    mastered_at: datetime | None = None
    evidence: tuple[int, ...] = ()
    ever_mastered: bool = False


NOT_MASTERED = Verdict(mastered=False)


def holds(condition: Condition, attempt: Any) -> bool:
    """Tell whether an attempt (an object with the fields, or a mapping of them) meets a
    condition of the rule."""
    if isinstance(attempt, Mapping):
        return all(bool(attempt[name]) is value for name, value in condition)
    return all(bool(getattr(attempt, name)) is value for name, value in condition)


def graded_attempt(attempt_id: int, content_key: str | None, seed: int, bank_version: str,
                   submitted_at: datetime, correct: bool | None, closed_book: bool
                   ) -> GradedAttempt:
    """Return what the policy reads of a stored or imported graded attempt."""
    return GradedAttempt(attempt_id, variant_identity(content_key, seed, bank_version),
                         submitted_at, bool(correct), closed_book)


def variant_identity(content_key: str | None, seed: int, bank_version: str) -> str:
    """Name what an answered variant asked: its content key, else (for attempts stored
    before content keys) its seed and bank version."""
    return content_key if content_key else f"seed:{seed}@{bank_version}"


def practice_after_reveal(last_wrong_reveal: datetime | None, submitted_at: datetime) -> bool:
    """Tell whether an answer comes too soon after a wrong answer's reveal to be closed-book.

    ``last_wrong_reveal`` is when the learner last had a wrong answer to the same question
    revealed (None: never). Such an answer is graded as usual but stored as practice: it is
    not closed-book evidence, however the question was served.
    """
    return last_wrong_reveal is not None and submitted_at - last_wrong_reveal < FRESH_REVEAL


def spaced(first: GradedAttempt, second: GradedAttempt) -> bool:
    """Tell whether two right answers are on different content and UTC days, far enough apart."""
    return (
        first.variant != second.variant
        and first.submitted_at.date() != second.submitted_at.date()
        and abs(second.submitted_at - first.submitted_at) >= MIN_SPACING
    )


def partner_possible(right_closed_book_span: tuple[datetime, datetime] | None,
                     submitted_at: datetime) -> bool:
    """Tell whether a right closed-book answer at ``submitted_at`` could master its question.

    ``right_closed_book_span`` is when the question's earlier right closed-book answers were
    submitted, first and last (None: there are none). A question not mastered before this
    answer can only become mastered by pairing this answer with one of those (a right answer
    adds no wrong one, so no other pair's run changes), and ``spaced`` needs the two at least
    ``MIN_SPACING`` apart. If every earlier one is closer than that, this answer cannot master
    the question, and its history need not be read.
    """
    if right_closed_book_span is None:
        return False
    first, last = right_closed_book_span
    return submitted_at - first >= MIN_SPACING or last - submitted_at >= MIN_SPACING


def evaluate(history: Sequence[GradedAttempt]) -> Verdict:
    """Return the verdict for one learner and question from its graded attempts."""
    ordered = sorted(history, key=lambda a: (a.submitted_at, a.attempt_id))
    run: list[GradedAttempt] = []
    verdict = NOT_MASTERED
    ever = False
    for attempt in ordered:
        if holds(ENDS_RUN, attempt):
            run = []
            verdict = Verdict(mastered=False, ever_mastered=ever)
            continue
        if not holds(EVIDENCE, attempt):
            continue
        if not verdict.mastered:
            partner = next((earlier for earlier in run if spaced(earlier, attempt)), None)
            if partner is not None:
                ever = True
                verdict = Verdict(True, attempt.submitted_at,
                                  (partner.attempt_id, attempt.attempt_id), ever_mastered=True)
        run.append(attempt)
    return verdict
