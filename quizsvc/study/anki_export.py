"""Hand out a lesson's Anki package, and say what it holds, for the API and the pages.

The package holds the answers and worked solutions, so it is refused while questions of the
lesson are open closed-book, as reading the lesson is (``lessons.require_book_open``). What is
studied in Anki never comes back (``docs/mastery.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizsvc.bank import anki
from quizsvc.bank.model import Text
from quizsvc.study.context import Context
from quizsvc.study.lessons import require_book_open


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


def deck_preview(ctx: Context, lesson_id: str) -> DeckPreview:
    """Describe the lesson's deck without handing it out (unknown lessons are 404)."""
    lesson = ctx.index.lesson(lesson_id)
    deck = anki.build_deck(ctx.bank, lesson_id, "both", ctx.index.publication)
    return DeckPreview(lesson_id, lesson.title, deck.name, deck.counts())


def lesson_package(ctx: Context, lesson_id: str, lang: str) -> AnkiPackage:
    """Build the lesson's package, showing ``lang``; open the book for its open questions."""
    ctx.index.lesson(lesson_id)
    require_book_open(ctx, lesson_id)
    deck = anki.build_deck(ctx.bank, lesson_id, lang, ctx.index.publication)
    data = anki.package(deck, ctx.now)
    return AnkiPackage(f"quizsvc-{lesson_id}-{lang}.apkg", data, deck.counts())
