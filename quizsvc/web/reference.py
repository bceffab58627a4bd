"""Serve a lesson's two reference pages: the quick reference and the glossary.

``/lessons/<id>/reference`` (速查：形状与公式) shows every formula and limit on one page, each
linked to the rule of the lesson that teaches it; ``/lessons/<id>/glossary`` (术语表) lists
every term the questions use, each linked to where it is taught and to its flashcard. Both are
part of the book: while closed-book questions of the lesson are open they ask first, as the
lesson page does (``quizsvc.study.lessons``), and show nothing until the learner opens the book.

The pages share the site's chrome with ``quizsvc.web.pages`` (its language, navigation and
filters) and add nothing to the JSON API.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, render_template, url_for
from flask_babel import gettext
from markupsafe import Markup

from quizsvc.http.context import current_context
from quizsvc.http.language import current_lang
from quizsvc.study import lessons as reading
from quizsvc.web.markup import render_markdown
from quizsvc.web.pages.chrome import remember_lang
from quizsvc.web.pages.open_book import open_book_page

bp = Blueprint("lesson_pages", __name__, template_folder="templates")
bp.after_request(remember_lang)

@bp.app_template_filter("markdown")
def markdown_filter(source: Any) -> Markup:
    """Render bank markdown (a worked solution: prose, a table, the folded trace) for a page."""
    return render_markdown(str(source or ""))


@bp.app_template_global("lesson_pages")
def lesson_pages(lesson_id: str) -> list[tuple[str, str]]:
    """Return (title, address) of a lesson's reference pages, for the lesson page's links."""
    return [
        (gettext("Quick reference: shapes and formulas"),
         url_for("lesson_pages.reference", lesson_id=lesson_id)),
        (gettext("Glossary"), url_for("lesson_pages.glossary", lesson_id=lesson_id)),
    ]


@bp.get("/lessons/<lesson_id>/reference")
def reference(lesson_id: str) -> str:
    """Show the quick reference: every formula and limit, linked to the rules."""
    ctx = current_context()
    gate = reading.closed_book(ctx, lesson_id)
    if gate.open:
        return open_book_page(lesson_id, gate, "reference")
    lang = current_lang()
    text, source = reading.read_reference(ctx, lesson_id, lang)
    return render_template(
        "reference.html", reading=text, body=render_markdown(drop_title(source)))


def drop_title(markdown: str) -> str:
    """Drop a leading level-1 heading: the page prints its own title."""
    first, _, rest = markdown.partition("\n")
    return rest if first.startswith("# ") else markdown


@dataclass(frozen=True)
class TermView:
    """One glossary entry as the page shows it."""

    id: str
    term: str
    name: Any
    definition: Any
    rule_title: Any
    rule_link: str
    card_front: Any = None
    card_back: Any = None


def term_views(lesson_id: str, entries: Iterable[reading.GlossaryEntry]) -> list[TermView]:
    """Give each glossary term its rule's title and link and its flashcard's two sides."""
    return [
        TermView(
            entry.term.id, entry.term.term, entry.term.name, entry.term.definition,
            entry.rule.title if entry.rule else entry.term.rule,
            url_for("web.lesson", lesson_id=lesson_id, _anchor=f"rule-{entry.term.rule}"),
            entry.flashcard.prompt if entry.flashcard else None,
            entry.flashcard.solution if entry.flashcard else None,
        )
        for entry in entries
    ]


@bp.get("/lessons/<lesson_id>/glossary")
def glossary(lesson_id: str) -> str:
    """Show the glossary: each term, where it is taught and its flashcard."""
    ctx = current_context()
    gate = reading.closed_book(ctx, lesson_id)
    if gate.open:
        return open_book_page(lesson_id, gate, "glossary")
    lang = current_lang()
    text, entries = reading.read_glossary(ctx, lesson_id, lang)
    return render_template(
        "glossary.html", reading=text, terms=term_views(lesson_id, entries))
