"""Keep learners, the browsers that belong to them, and the one-time codes that link browsers.

A browser is stored under the sha256 of its cookie value, a link code under the sha256 of the
code: neither secret is kept at rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from quizsvc.store.models import (
    Attempt,
    Base,
    Browser,
    CohortMember,
    Learner,
    LinkCode,
    Mastery,
    ReviewCard,
    SelfAssessment,
    table,
)
from quizsvc.store.repository import Repository

LEARNERS, BROWSERS, LINK_CODES = table(Learner), table(Browser), table(LinkCode)


@dataclass(frozen=True)
class BrowserRow:
    """A stored browser: its id and its learner's."""

    id: int
    learner_id: int


BROWSER_BY_HASH = select(BROWSERS.c.id, BROWSERS.c.learner_id).where(
    BROWSERS.c.token_hash == bindparam("token_hash"))


@dataclass(frozen=True)
class StoredLinkCode:
    """A stored link code: whose, until when, and whether it was used."""

    id: int
    learner_id: int
    expires_at: datetime
    used: bool


class LearnerRepository(Repository):
    """Keep learners, their browsers and the codes that link browsers."""

    def browser_by_hash(self, token_hash: str) -> BrowserRow | None:
        """Return the browser stored under ``token_hash`` (None: unknown)."""
        row = self.connection.execute(BROWSER_BY_HASH, {"token_hash": token_hash}).first()
        return None if row is None else BrowserRow(row.id, row.learner_id)

    def register_browser(self, token_hash: str, now: datetime) -> BrowserRow | None:
        """Create a new learner owning a new browser stored under ``token_hash``, unless stored.

        Two first writes of one browser can both find no row and both get here. The browser is
        inserted ``ON CONFLICT DO NOTHING`` (PostgreSQL waits for the other insert to commit or
        roll back; SQLite's writers take turns), so the one that comes second inserts nothing
        and, instead of failing on the unique ``token_hash``, gets None: its caller rolls back
        the learner made for it and reads the browser the first one stored.
        """
        learner_id: int = self.connection.execute(insert(LEARNERS).returning(LEARNERS.c.id),
                                     {"created_at": now}).scalar_one()
        dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        stored = self.connection.execute(
            dialect_insert(BROWSERS).on_conflict_do_nothing(index_elements=[BROWSERS.c.token_hash])
            .returning(BROWSERS.c.id),
            {"learner_id": learner_id, "token_hash": token_hash, "created_at": now}).scalar()
        return None if stored is None else BrowserRow(stored, learner_id)

    def stage_import(self, now: datetime) -> int:
        """Create the learner an import is written into, which no browser reaches yet; return
        its id (see ``Learner.import_staged_at``)."""
        learner_id: int = self.connection.execute(
            insert(LEARNERS).returning(LEARNERS.c.id),
            {"created_at": now, "import_staged_at": now}).scalar_one()
        return learner_id

    def adopt_import(self, staged_id: int, learner_id: int, browser_id: int) -> bool:
        """Hand a finished import to the importing browser: the browser and whatever else its
        (empty) learner held, such as a cohort membership, settings, an open session or a link
        code, now belong to the staged learner, who is a learner like any other from now on.

        Every table with a ``learner_id`` is moved, so a table added later moves too. The old
        learner holds nothing afterwards and ``quizsvc db prune`` deletes it in time; the
        staged one's exports go on naming it (``exported_as``). False,
        and nothing moved: the browser no longer belongs to ``learner_id`` (another import of
        it finished first).
        """
        moved = self.connection.execute(
            update(BROWSERS).where(BROWSERS.c.id == browser_id,
                                   BROWSERS.c.learner_id == learner_id)
            .values(learner_id=staged_id)).rowcount
        if moved != 1:
            return False
        for owned in Base.metadata.sorted_tables:
            if "learner_id" in owned.c and owned is not BROWSERS:
                self.connection.execute(update(owned).where(owned.c.learner_id == learner_id)
                                        .values(learner_id=staged_id))
        before = LEARNERS.alias("before")
        self.connection.execute(update(LEARNERS).where(LEARNERS.c.id == staged_id).values(
            import_staged_at=None,
            exported_as=select(func.coalesce(before.c.exported_as, before.c.id))
            .where(before.c.id == learner_id).scalar_subquery()))
        return True

    def exported_as(self, learner_id: int) -> int:
        """Return the learner id this learner's exports name (``Learner.exported_as``)."""
        named = self.connection.scalar(select(LEARNERS.c.exported_as)
                                       .where(LEARNERS.c.id == learner_id))
        return learner_id if named is None else int(named)

    def browsers_of(self, learner_id: int) -> int:
        """Count the browsers a learner has."""
        return self.connection.scalar(select(func.count()).select_from(BROWSERS)
                         .where(BROWSERS.c.learner_id == learner_id)) or 0

    def add_link_code(self, learner_id: int, code_hash: str, now: datetime,
                      expires_at: datetime) -> None:
        """Store a new link code's hash for ``learner_id``."""
        self.connection.execute(insert(LINK_CODES).values(
            learner_id=learner_id, code_hash=code_hash, created_at=now, expires_at=expires_at))

    def open_link_codes(self, learner_id: int, now: datetime) -> int:
        """Count a learner's link codes that are neither used nor expired."""
        return self.connection.scalar(select(func.count()).select_from(LINK_CODES).where(
            LINK_CODES.c.learner_id == learner_id, LINK_CODES.c.used_at.is_(None),
            LINK_CODES.c.expires_at > now)) or 0

    def link_code_by_hash(self, code_hash: str) -> StoredLinkCode | None:
        """Return the link code stored under ``code_hash`` (None: unknown)."""
        row = self.connection.execute(
            select(LINK_CODES).where(LINK_CODES.c.code_hash == code_hash)).first()
        if row is None:
            return None
        return StoredLinkCode(row.id, row.learner_id, row.expires_at, row.used_at is not None)

    def use_link_code(self, code_id: int, browser_id: int, now: datetime) -> bool:
        """Mark a link code used by ``browser_id`` unless someone used it first; say if it was ours.

        The single-use guarantee must hold under concurrent redemption too.
        """
        claimed = self.connection.execute(update(LINK_CODES)
                             .where(LINK_CODES.c.id == code_id, LINK_CODES.c.used_at.is_(None))
                             .values(used_at=now, used_by_browser_id=browser_id)).rowcount
        return bool(claimed == 1)

    def move_browser(self, browser_id: int, learner_id: int, now: datetime) -> None:
        """Make ``browser_id`` belong to ``learner_id`` (linking it)."""
        self.connection.execute(update(BROWSERS).where(BROWSERS.c.id == browser_id)
                   .values(learner_id=learner_id, linked_at=now))

    def delete_empty_learners(self, created_before: datetime) -> int:
        """Delete learners created before ``created_before`` who hold nothing; return how many.

        Nothing is no attempt, no fsrs card, no mastery record, no cohort membership and no
        self-assessment on any of their browsers: a browser that only ever started a session or
        made a link code (one who joined a cohort is kept: their instructor expects them). Their
        browsers, sessions, served variants and link codes go with them (foreign keys cascade).
        """
        attempts, cards, mastery = table(Attempt), table(ReviewCard), table(Mastery)
        assessments, members = table(SelfAssessment), table(CohortMember)
        holds_nothing = and_(
            ~select(members.c.id).where(members.c.learner_id == LEARNERS.c.id).exists(),
            ~select(attempts.c.id).where(attempts.c.learner_id == LEARNERS.c.id).exists(),
            ~select(cards.c.id).where(cards.c.learner_id == LEARNERS.c.id).exists(),
            ~select(mastery.c.id).where(mastery.c.learner_id == LEARNERS.c.id).exists(),
            ~select(assessments.c.id)
            .select_from(assessments.join(BROWSERS, BROWSERS.c.id == assessments.c.browser_id))
            .where(BROWSERS.c.learner_id == LEARNERS.c.id).exists())
        deleted = self.connection.execute(
            delete(LEARNERS).where(LEARNERS.c.created_at < created_before, holds_nothing)).rowcount
        return deleted or 0

    def delete_unfinished_imports(self, staged_before: datetime) -> int:
        """Delete the learners of imports begun before ``staged_before`` that never finished
        (the process stopped half-way); return how many. No browser reaches them, and their
        rows go with them (foreign keys cascade)."""
        deleted = self.connection.execute(
            delete(LEARNERS).where(LEARNERS.c.import_staged_at < staged_before)).rowcount
        return deleted or 0
