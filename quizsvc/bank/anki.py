"""Build an Anki package (.apkg) of one lesson with genanki: cards to study away from quizsvc.

What goes in, one note each:

- **flashcards**: front and back;
- **glossary terms** (``lesson.glossary``): the term and its name on
  the front, the definition on the back;
- **concept checks** (choice, multi, order, anchor and explain questions): the question, with
  its options, on the front; the answer and the explanation on the back;
- **worked examples** of the numeric questions: Anki cannot draw new numbers, so each numeric
  question goes in as ``WORKED_EXAMPLES`` fixed variants, tagged ``quizsvc::worked-example``
  and marked as fixed on the card itself.

The deck holds answers, so it never holds a variant the service serves closed-book: graded
concept checks and worked examples come only in the contents ``quizsvc.bank.publication``
keeps for what leaves the server (at seeds the service never draws), and a graded question
too small to spare any content stays out of the deck.

Every note carries both languages in its fields (``... zh`` and ``... en``); ``lang`` picks
what the card templates show (``zh``, ``en`` or ``both``), so one note type per kind serves
every export and a deck exported in one language updates one exported in the other. Tags:
``quizsvc``, the lesson, the section, the kind and the question's own tags. Note GUIDs are
derived from the question (or term) ids, and note types and the deck have fixed ids, so
importing a newer package updates the notes already imported (Anki keeps their study
history) instead of adding copies.

Nothing studied in Anki comes back: Anki's reviews never reach quizsvc, so they can create no
mastery record here (``docs/mastery.md``); the deck's description says so.

``build_deck`` is a pure function of the bank; ``package`` writes the file, with every note
and note type stamped with ``now`` (genanki would read the clock), so a later export is the
newer one Anki's default "update if newer" takes.
"""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import genanki

from quizsvc.bank.errors import NotFound
from quizsvc.bank.model import Lesson, Question, Text, Variant
from quizsvc.bank.publication import Publication
from quizsvc.bank.worksheet import INSTRUCTIONS, LETTERS, inline_html

LANG_MODES = ("zh", "en", "both")
WORKED_EXAMPLES = 3
LISTS = {"multi": "ul", "order": "ol"}  # the answer inputs answered by a list, and its tag
FLASHCARD, GLOSSARY, CONCEPT, WORKED = "flashcard", "glossary", "concept-check", "worked-example"
KINDS = (FLASHCARD, GLOSSARY, CONCEPT, WORKED)
MASTERY_NOTE = Text(
    zh="在 Anki 里的学习不会回传到 quizsvc,不会成为掌握记录:"
       "掌握只来自 quizsvc 服务器评分的闭卷作答。",
    en="Nothing studied in Anki comes back to quizsvc or becomes mastery there: mastery is "
       "earned only by closed-book answers the quizsvc server grades.")
WORDS = {
    "answer": Text("答案", "Answer"),
    "explanation": Text("解析", "Explanation"),
    "worked": Text("解题过程", "Worked solution"),
    "wrong_models": Text("常见错误模型及其答案", "Common wrong models and their answers"),
    "example": Text("例题 {n}/{total}(固定数字:quizsvc 每次复习都会换数字)",
                    "Worked example {n} of {total} (fixed numbers: quizsvc draws new ones "
                    "at every review)"),
    "order": Text("按正确顺序排列", "Put in order"),
    "choose_all": Text("选出所有正确项", "Choose all that apply"),
    "key_points": Text("要点", "Key points"),
}
CSS = """.card { font-family: system-ui, "Noto Sans CJK SC", sans-serif; font-size: 18px;
  text-align: left; line-height: 1.5; max-width: 42em; margin: 0 auto; }
.en { color: #444; margin-top: 0.6em; }
.label { font-weight: bold; }
.banner { font-size: 0.8em; background: #fff3cd; padding: 0.2em 0.5em; }
.source, .term { font-family: ui-monospace, monospace; font-size: 0.85em; }
.source { color: #666; margin-top: 1em; }
code { background: #f2f2f2; padding: 0 0.2em; }"""


@dataclass(frozen=True)
class DeckNote:
    """One Anki note before it is written: its kind, stable GUID, fields and tags."""

    kind: str
    guid: str
    fields: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class AnkiDeck:
    """A lesson's notes for Anki, and how the cards show them."""

    lesson: str
    name: str
    lang: str
    description: str
    notes: tuple[DeckNote, ...]

    def counts(self) -> dict[str, int]:
        """Count the notes of each kind (every kind listed, zeros included)."""
        found = Counter(note.kind for note in self.notes)
        return {kind: found[kind] for kind in KINDS}


def stable_id(*parts: str) -> int:
    """Return a fixed Anki id (note type or deck) for ``parts``: the same in every export."""
    digest = hashlib.sha256("/".join(("quizsvc", *parts)).encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


def guid(*parts: str) -> str:
    """Return the note GUID for ``parts`` (a question id, a term id): stable across exports."""
    return str(genanki.guid_for("quizsvc", *parts))


def tag(value: str) -> str:
    """Return ``value`` as an Anki tag (tags are separated by spaces)."""
    return "_".join(value.split())


def lesson_tags(lesson_id: str, kind: str, section: str | None = None,
                extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Return a note's tags: quizsvc, the lesson, its section, its kind, its own tags."""
    tags = ["quizsvc", f"quizsvc::lesson::{tag(lesson_id)}", f"quizsvc::{kind}"]
    if section:
        tags.append(f"quizsvc::section::{tag(section)}")
    tags += [tag(value) for value in extra]
    return tuple(dict.fromkeys(tags))


def both(text: Text, render: Any = inline_html) -> tuple[str, str]:
    """Return a text's zh and en sides as field HTML."""
    return render(text.zh), render(text.en)


def labelled(label: str, body: str) -> str:
    """Return ``body`` under a bold label (nothing when the body is empty)."""
    return f'<div><span class="label">{label}</span><br>{body}</div>' if body else ""


def source_html(question: Question) -> str:
    """Return where in vLLM 0.33.0 a question is anchored, one line per anchor."""
    return "<br>".join(inline_html(f"{a.file} · {a.function} · {a.lines[0]}-{a.lines[1]}")
                       for a in question.anchors)


def options_html(variant: Variant, lang: str) -> str:
    """Return a variant's options as a lettered list (empty when it has none)."""
    if not variant.input.options:
        return ""
    items = "".join(f"<li>{inline_html(option.text.get(lang))}</li>"
                    for option in variant.input.options)
    return f'<ol type="A">{items}</ol>'


def answer_html(variant: Variant, lang: str, answer: Any = None) -> str:
    """Return an answer (the right one unless given): option letters with their texts, or
    the numbers."""
    answer = variant.answer if answer is None else answer
    options = {o.id: (LETTERS[i], o.text.get(lang)) for i, o in enumerate(variant.input.options)}

    def option(option_id: str) -> str:
        letter, text = options[option_id]
        return f"{letter}. {inline_html(text)}"

    shape = variant.input.type
    if shape == "vector":
        return inline_html(", ".join(f"{label} = {value}" for label, value in zip(
            variant.input.labels, answer, strict=True)))
    if shape == "integer":
        return inline_html(str(answer))
    if shape in LISTS:
        tag_name = LISTS[shape]
        return f"<{tag_name}>" + "".join(f"<li>{option(a)}</li>" for a in answer) + (
            f"</{tag_name}>")
    if shape == "choice":
        return option(answer)
    return ""  # free text: its model answer is the explanation


def prompt_html(variant: Variant, lang: str) -> str:
    """Return the question as asked: the prompt, what to do, the options."""
    hint = INSTRUCTIONS.get(variant.input.type)
    parts = [inline_html(variant.prompt.get(lang))]
    if hint:
        parts.append(f"<i>({WORDS[hint].get(lang)})</i>")
    return "<br>".join(parts) + options_html(variant, lang)


def wrong_models_html(variant: Variant, lang: str) -> str:
    """Return the named wrong models of a variant with the answers they give, written as the
    right answer is (option letters and texts, or the numbers)."""
    items = "".join(f"<li>{inline_html(m.name.get(lang))}: {answer_html(variant, lang, m.answer)}"
                    "</li>" for m in variant.misconceptions if m.answer is not None)
    return labelled(WORDS["wrong_models"].get(lang), f"<ul>{items}</ul>") if items else ""


def question_fields(question: Question, variant: Variant, banner: Text | None = None,
                    explanation: str = "explanation") -> tuple[str, ...]:
    """Return a concept check's or worked example's fields: Id, Question, Answer,
    Explanation (each zh and en, the last under the word ``explanation`` names), Source."""
    fields: list[str] = [variant.question_id]
    for lang in ("zh", "en"):
        top = f'<div class="banner">{banner.get(lang)}</div>' if banner else ""
        fields.append(top + prompt_html(variant, lang))
    for lang in ("zh", "en"):
        fields.append(labelled(WORDS["answer"].get(lang), answer_html(variant, lang)))
    for lang in ("zh", "en"):
        fields.append(labelled(WORDS[explanation].get(lang), inline_html(
            variant.solution.get(lang))) + wrong_models_html(variant, lang))
    fields.append(source_html(question))
    return tuple(fields)


def question_notes(bank: Any, question: Question, publication: Publication
                   ) -> list[DeckNote]:
    """Return the notes one question makes: a self-rated question's one card (what it shows
    is no secret), a computed template's worked examples, a concept check's card; none for a
    graded question that keeps no content for what leaves the server."""
    kind = bank.kinds[question.kind]
    if not kind.graded:
        variant = bank.variant(question.id, 0)
        if variant.input.type == "flashcard":
            return [DeckNote(FLASHCARD, guid("question", question.id),
                             (question.id, *both(variant.prompt), *both(variant.solution),
                              source_html(question)),
                             lesson_tags(question.lesson, FLASHCARD, question.section,
                                         question.tags))]
        return [concept_note(question, variant)]
    if kind.computed:
        return worked_examples(question, publication)
    return [concept_note(question, variant) for variant in publication.variants(question, 1)]


def concept_note(question: Question, variant: Variant) -> DeckNote:
    """Return a concept check's note (free text's model answer is shown as its key points)."""
    explanation = "key_points" if variant.input.type == "text" else "explanation"
    return DeckNote(CONCEPT, guid("question", question.id),
                    question_fields(question, variant, explanation=explanation),
                    lesson_tags(question.lesson, CONCEPT, question.section, question.tags))


def worked_examples(question: Question, publication: Publication) -> list[DeckNote]:
    """Return a numeric question's fixed worked examples, from its published contents."""
    variants = publication.variants(question, WORKED_EXAMPLES)
    notes = []
    for number, variant in enumerate(variants, start=1):
        banner = Text(*(WORDS["example"].get(lang).format(n=number, total=len(variants))
                        for lang in ("zh", "en")))
        notes.append(DeckNote(
            WORKED, guid("example", question.id, str(number)),
            question_fields(question, variant, banner, "worked"),
            lesson_tags(question.lesson, WORKED, question.section, question.tags)))
    return notes


def glossary_notes(lesson: Lesson) -> list[DeckNote]:
    """Return one note per glossary term of the lesson, tagged with the rule that teaches it."""
    notes = []
    for term in lesson.glossary:
        notes.append(DeckNote(
            GLOSSARY, guid("glossary", lesson.id, term.id),
            (term.id, inline_html(term.term), *both(term.name), *both(term.definition)),
            lesson_tags(lesson.id, GLOSSARY, extra=[f"quizsvc::rule::{tag(term.rule)}"])))
    return notes


def deck_name(lesson: Lesson) -> str:
    """Name the deck after the lesson in both languages, under a ``quizsvc`` parent deck.

    One name whatever ``lang`` is: Anki files cards by deck name, so an export in another
    language updates the same deck rather than leaving an empty one beside it.
    """
    title = f"{lesson.title.zh} / {lesson.title.en}"
    return "quizsvc::" + title.replace("::", ":")


def build_deck(bank: Any, lesson_id: str, lang: str, publication: Publication | None = None
               ) -> AnkiDeck:
    """Collect a lesson's notes for Anki (raises ``BankError`` for an unknown lesson).

    ``publication`` is the bank's partition (made here when not given; a caller that keeps
    one saves counting the questions' contents again).
    """
    if lang not in LANG_MODES:
        raise ValueError(f"lang must be one of {', '.join(LANG_MODES)}")
    lesson = bank.lessons.get(lesson_id)
    if lesson is None:
        raise NotFound("lesson", "id", f"no lesson {str(lesson_id)[:80]!r}")
    publication = publication or Publication(bank)
    notes = glossary_notes(lesson)
    for question in bank.questions_for(lesson_id):
        notes += question_notes(bank, question, publication)
    description = {"zh": MASTERY_NOTE.zh, "en": MASTERY_NOTE.en,
                   "both": f"{MASTERY_NOTE.zh}<br>{MASTERY_NOTE.en}"}[lang]
    return AnkiDeck(lesson_id, deck_name(lesson), lang, description, tuple(notes))


# ---------------------------------------------------------------- writing the package

QUESTION_FIELDS = ("Id", "Question zh", "Question en", "Answer zh", "Answer en",
                   "Explanation zh", "Explanation en", "Source")
FIELDS = {
    FLASHCARD: ("Id", "Front zh", "Front en", "Back zh", "Back en", "Source"),
    GLOSSARY: ("Id", "Term", "Name zh", "Name en", "Definition zh", "Definition en"),
    CONCEPT: QUESTION_FIELDS,
    WORKED: QUESTION_FIELDS,
}
NOTE_TYPE_NAMES = {FLASHCARD: "quizsvc flashcard", GLOSSARY: "quizsvc glossary term",
                   CONCEPT: "quizsvc concept check", WORKED: "quizsvc worked example"}
# (front fields, back fields) per kind, by field name without the language.
SIDES = {
    FLASHCARD: (("Front",), ("Back",)),
    GLOSSARY: (("Name",), ("Definition",)),
    CONCEPT: (("Question",), ("Answer", "Explanation")),
    WORKED: (("Question",), ("Answer", "Explanation")),
}


def shown(names: tuple[str, ...], lang: str) -> str:
    """Return template markup showing fields in the chosen language(s)."""
    langs = ("zh", "en") if lang == "both" else (lang,)
    return "".join(
        f'<div class="{side}" lang="{"zh-Hans" if side == "zh" else "en"}">'
        + "".join(f"{{{{{name} {side}}}}}" for name in names) + "</div>"
        for side in langs)


def note_type(kind: str, lang: str) -> genanki.Model:
    """Return the note type of one kind; its templates show ``lang``."""
    front_names, back_names = SIDES[kind]
    front = shown(front_names, lang)
    if kind == GLOSSARY:
        front = '<div class="term">{{Term}}</div>' + front
    back = "{{FrontSide}}<hr id=answer>" + shown(back_names, lang)
    if "Source" in FIELDS[kind]:
        back += '<div class="source">{{Source}}</div>'
    return genanki.Model(stable_id("note-type", kind), NOTE_TYPE_NAMES[kind],
                         fields=[{"name": name} for name in FIELDS[kind]],
                         templates=[{"name": "Card 1", "qfmt": front, "afmt": back}], css=CSS)


def package(deck: AnkiDeck, now: datetime) -> bytes:
    """Write the deck as an .apkg file's bytes, every note stamped with ``now``."""
    types = {kind: note_type(kind, deck.lang) for kind in KINDS}
    anki_deck = genanki.Deck(stable_id("deck", deck.lesson), deck.name, deck.description)
    for note in deck.notes:
        anki_deck.add_note(genanki.Note(model=types[note.kind], fields=list(note.fields),
                                        guid=note.guid, tags=list(note.tags)))
    out = io.BytesIO()
    genanki.Package(anki_deck).write_to_file(out, timestamp=now.timestamp())
    return out.getvalue()
