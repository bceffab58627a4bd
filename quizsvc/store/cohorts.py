"""Keep cohorts and their members: who is in which class, under which display name.

A cohort's join code and instructor token are stored only as their sha256 (the caller hashes);
a member row is all that joining writes, and leaving deletes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from quizsvc.store.models import Cohort, CohortMember, table
from quizsvc.store.repository import Repository

COHORTS, MEMBERS = table(Cohort), table(CohortMember)


@dataclass(frozen=True)
class StoredCohort:
    """A stored cohort: its lesson, name and the digests of its two secrets."""

    id: int
    lesson: str
    name: str
    join_code_hash: str
    instructor_token_hash: str
    created_at: datetime


@dataclass(frozen=True)
class Member:
    """One learner of a cohort, as the cohort knows them."""

    learner_id: int
    display_name: str
    share_explanations: bool
    joined_at: datetime


@dataclass(frozen=True)
class Membership:
    """One cohort a learner is in, as the learner sees it."""

    cohort_id: int
    cohort_name: str
    lesson: str
    display_name: str
    share_explanations: bool
    joined_at: datetime


def stored_cohort(row: object) -> StoredCohort:
    """Return a row of ``cohort`` as a ``StoredCohort``."""
    return StoredCohort(*(getattr(row, name) for name in (
        "id", "lesson", "name", "join_code_hash", "instructor_token_hash", "created_at")))


class CohortRepository(Repository):
    """Keep cohorts and their members."""

    def add(self, lesson: str, name: str, join_code_hash: str, instructor_token_hash: str,
            now: datetime) -> int:
        """Store a new cohort; return its id."""
        cohort_id: int = self.connection.execute(insert(COHORTS).returning(COHORTS.c.id), {
            "lesson": lesson, "name": name, "join_code_hash": join_code_hash,
            "instructor_token_hash": instructor_token_hash, "created_at": now}).scalar_one()
        return cohort_id

    def by_id(self, cohort_id: int) -> StoredCohort | None:
        """Return the cohort ``cohort_id`` (None: unknown)."""
        row = self.connection.execute(select(COHORTS).where(COHORTS.c.id == cohort_id)).first()
        return None if row is None else stored_cohort(row)

    def by_join_code_hash(self, code_hash: str) -> StoredCohort | None:
        """Return the cohort whose join code hashes to ``code_hash`` (None: unknown)."""
        row = self.connection.execute(
            select(COHORTS).where(COHORTS.c.join_code_hash == code_hash)).first()
        return None if row is None else stored_cohort(row)

    def rotate_instructor_token(self, cohort_id: int, token_hash: str, now: datetime) -> bool:
        """Replace a cohort's instructor token digest (the old token stops working); say if
        the cohort exists."""
        changed = self.connection.execute(
            update(COHORTS).where(COHORTS.c.id == cohort_id)
            .values(instructor_token_hash=token_hash, instructor_rotated_at=now)).rowcount
        return bool(changed)

    def add_member(self, cohort_id: int, learner_id: int, display_name: str,
                   share_explanations: bool, now: datetime) -> bool:
        """Put a learner in a cohort unless already there; say if they were added.

        Inserted ``ON CONFLICT DO NOTHING``, so two joins of one learner racing each other
        end with one row and no error.
        """
        dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        added = self.connection.execute(
            dialect_insert(MEMBERS).on_conflict_do_nothing(
                index_elements=[MEMBERS.c.cohort_id, MEMBERS.c.learner_id])
            .returning(MEMBERS.c.id),
            {"cohort_id": cohort_id, "learner_id": learner_id, "display_name": display_name,
             "share_explanations": share_explanations, "joined_at": now}).scalar()
        return added is not None

    def remove_member(self, cohort_id: int, learner_id: int) -> bool:
        """Take a learner out of a cohort; say if they were in it."""
        removed = self.connection.execute(delete(MEMBERS).where(
            MEMBERS.c.cohort_id == cohort_id, MEMBERS.c.learner_id == learner_id)).rowcount
        return bool(removed)

    def members(self, cohort_id: int) -> list[Member]:
        """List a cohort's members by display name."""
        rows = self.connection.execute(
            select(MEMBERS.c.learner_id, MEMBERS.c.display_name, MEMBERS.c.share_explanations,
                   MEMBERS.c.joined_at)
            .where(MEMBERS.c.cohort_id == cohort_id)
            .order_by(MEMBERS.c.display_name, MEMBERS.c.id))
        return [Member(*row) for row in rows]

    def member_ids(self, cohort_id: int) -> frozenset[int]:
        """Return the ids of a cohort's learners."""
        return frozenset(self.connection.scalars(
            select(MEMBERS.c.learner_id).where(MEMBERS.c.cohort_id == cohort_id)))

    def memberships(self, learner_id: int) -> Sequence[Membership]:
        """List the cohorts a learner is in, oldest membership first."""
        rows = self.connection.execute(
            select(COHORTS.c.id, COHORTS.c.name, COHORTS.c.lesson, MEMBERS.c.display_name,
                   MEMBERS.c.share_explanations, MEMBERS.c.joined_at)
            .select_from(MEMBERS.join(COHORTS, COHORTS.c.id == MEMBERS.c.cohort_id))
            .where(MEMBERS.c.learner_id == learner_id)
            .order_by(MEMBERS.c.joined_at, MEMBERS.c.id))
        return [Membership(*row) for row in rows]
