"""Hand out a lesson's Anki package, and say what it holds, for the API and the pages.

The package holds the answers and worked solutions (of contents the service never serves:
``quizsvc.bank.publication``), so it is refused while questions of the lesson are open
closed-book, as reading the lesson is (``lessons.require_book_open``). What is studied in
Anki never comes back (``docs/mastery.md``).

A deck is a pure function of the bank, its lesson and language: built once per bank version
on the costly-work pool (finding published variants replays the ledger for seconds of CPU),
then kept in the app's memo and handed out again at no cost. Its notes are stamped with the
moment it was built, so Anki's "update if newer" takes a deck of a newer bank.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from quizsvc.bank import anki
from quizsvc.bank.model import Text
from quizsvc.pool import job_runtime
from quizsvc.study.context import Context
from quizsvc.study.lessons import require_book_open

DECK_WAIT_SECONDS = 60.0  # a first build replays the ledger for every numeric question


@dataclass(frozen=True)
class DeckPreview:
    """What a lesson's deck holds: its name and the notes of each kind."""

    lesson: str
    title: Text
    name: str
    counts: dict[str, int]


@dataclass(frozen=True)
class AnkiPackage:
    """An .apkg file to download."""

    filename: str
    data: bytes
    counts: dict[str, int]


@dataclass(frozen=True)
class BuiltDeck:
    """One built package of a lesson in one language, and the deck's name."""

    name: str
    data: bytes
    counts: dict[str, int]


def deck_job(lesson_id: str, lang: str, built_at: float) -> BuiltDeck:
    """Build a lesson's package (a job for the costly-work pool)."""
    runtime = job_runtime()
    deck = anki.build_deck(runtime.bank, lesson_id, lang, runtime.index.publication)
    return BuiltDeck(deck.name, anki.package(deck, datetime.fromtimestamp(built_at, UTC)),
                     deck.counts())


def built_deck(ctx: Context, lesson_id: str, lang: str) -> BuiltDeck:
    """Return the lesson's built package in ``lang``: kept in the app's memo, or built now on
    the pool."""
    key = ("anki-deck", str(ctx.bank.version), lesson_id, lang)
    found: BuiltDeck | None = ctx.memo.get(key) if ctx.memo is not None else None
    if found is None:
        found = ctx.costly(DECK_WAIT_SECONDS, deck_job, lesson_id, lang, ctx.now.timestamp())
        if ctx.memo is not None:
            ctx.memo.put(key, found)
    return found


def deck_preview(ctx: Context, lesson_id: str) -> DeckPreview:
    """Describe the lesson's deck without handing it out (unknown lessons are 404)."""
    lesson = ctx.index.lesson(lesson_id)
    deck = built_deck(ctx, lesson_id, "both")
    return DeckPreview(lesson_id, lesson.title, deck.name, deck.counts)


def lesson_package(ctx: Context, lesson_id: str, lang: str) -> AnkiPackage:
    """Hand out the lesson's package, showing ``lang``, once its open questions are not open."""
    ctx.index.lesson(lesson_id)
    require_book_open(ctx, lesson_id)
    deck = built_deck(ctx, lesson_id, lang)
    return AnkiPackage(f"quizsvc-{lesson_id}-{lang}.apkg", deck.data, deck.counts)
