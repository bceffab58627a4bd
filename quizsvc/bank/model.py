"""The question bank's public data model: what the service and the web pages rely on.

This module is the contract between ``quizsvc.bank`` and its callers (``quizsvc.review``,
``quizsvc.api``, ``quizsvc.web``). It holds only plain dataclasses; loading, generation and
grading live in their own modules and return these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class QuestionKind(StrEnum):
    """Name the kinds of question the bank ships.

    A kind is known by its name: ``quizsvc.bank.kinds.KINDS`` maps each name to the kind that
    builds, grades and draws its questions, and a question's ``kind`` is that name (these
    members for the kinds listed here).
    """

    NUMERIC = "numeric"  # one integer or a vector of integers, computed by the ledger core
    CHOICE = "choice"  # single answer (one option id)
    MULTI = "multi"  # multiple answers (a set of option ids)
    ORDER = "order"  # put option ids in order
    ANCHOR = "anchor"  # which file / function / field: graded like a single choice
    FLASHCARD = "flashcard"  # front / back, self-rated, never graded
    EXPLAIN = "explain"  # free text, stored, never auto-graded



@dataclass(frozen=True)
class Text:
    """Hold one piece of text in the lesson's language (zh, primary) and English."""

    zh: str
    en: str

    def get(self, lang: str) -> str:
        """Return the text in ``lang`` ("zh" or "en"), falling back to Chinese."""
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True)
class SourceAnchor:
    """Point at the vllm 0.33.0 source that backs a question."""

    file: str
    function: str
    lines: tuple[int, int]


@dataclass(frozen=True)
class Section:
    """Name one section of a lesson (the unit of per-section self-assessment).

    ``heading`` is the lesson-text heading the section belongs to (several sections may share
    one), so a page can link a question back to the right place in the lesson.
    """

    id: str
    title: Text
    heading: Text | None = None


@dataclass(frozen=True)
class Rule:
    """Name one rule the bank tests and the section whose text teaches it.

    The lesson page carries the anchor ``#rule-<id>`` at the rule's own heading, inside its
    section; a question's reveal links to the anchor of its first rule.
    """

    id: str
    title: Text
    section: str

    @property
    def anchor(self) -> str:
        """Return the fragment id of the rule's heading on the lesson page."""
        return f"rule-{self.id}"


@dataclass(frozen=True)
class GlossaryTerm:
    """Define one term that prompts, options or solutions use, and where it is taught.

    ``term`` is written as prompts write it (code terms verbatim, e.g. ``num_computed_tokens``);
    ``rule`` names the rule whose section teaches it; ``flashcard`` is the id of the flashcard
    that drills it, if there is one. The glossary page anchors it at ``#term-<id>``.
    """

    id: str
    term: str
    name: Text
    definition: Text
    rule: str
    flashcard: str | None = None


@dataclass(frozen=True)
class Lesson:
    """Describe one lesson: its id, title, sections, the rules it teaches and its glossary."""

    id: str
    title: Text
    sections: tuple[Section, ...]
    rules: tuple[Rule, ...] = ()
    glossary: tuple[GlossaryTerm, ...] = ()

    def rule(self, rule_id: str) -> Rule | None:
        """Return the rule ``rule_id`` of this lesson, or None."""
        return next((rule for rule in self.rules if rule.id == rule_id), None)

    def rule_link(self, rule: Rule) -> str:
        """Return the lesson page address of a rule's heading."""
        return f"/lessons/{self.id}#{rule.anchor}"


@dataclass(frozen=True)
class Question:
    """Describe one authored question (not yet a variant)."""

    id: str
    lesson: str
    kind: str  # a name of ``quizsvc.bank.kinds.KINDS``
    section: str
    tags: tuple[str, ...]
    anchors: tuple[SourceAnchor, ...]
    title: Text
    rules: tuple[str, ...] = ()
    # The ids of the lesson's wrong models the question names (its own list and its
    # options'), whichever variant is drawn: a diagnosis may name the rules they break.
    misconceptions: tuple[str, ...] = ()

    @property
    def lesson_link(self) -> str:
        """Return where the lesson teaches this question: its first rule's heading, else its
        section (a reveal's "reopen the lesson" link)."""
        return f"/lessons/{self.lesson}#{f'rule-{self.rules[0]}' if self.rules else self.section}"


@dataclass(frozen=True)
class Option:
    """One selectable option of a choice, multi, order or anchor question."""

    id: str
    text: Text


@dataclass(frozen=True)
class AnswerInput:
    """Say what shape of answer a variant expects, so a client can render the right input.

    ``type`` is one of "integer", "vector", "choice", "multi", "order", "text", "flashcard".
    ``length`` is the vector length (vector only); ``labels`` name each vector element
    (e.g. request ids); ``options`` are shown for choice / multi / order / anchor.
    """

    type: str
    length: int | None = None
    labels: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Misconception:
    """A named wrong model and the answer it would give for this variant."""

    id: str
    name: Text
    answer: Any


@dataclass(frozen=True)
class Variant:
    """One reproducible instance of a question: ``(question_id, seed, bank_version)``.

    ``prompt`` and ``params`` (parameters as displayed) may be shown before grading;
    ``answer``, ``solution`` and ``misconceptions`` must never leave the server before the
    learner has earned them. For numeric questions ``scenario`` is the FORMAT.md ledger
    scenario the answer was computed from and ``answer_ref`` holds one JSON Pointer per answer
    element into its trace. Flashcards put their back side in ``solution``. ``rules`` are the
    ids of the rules the question tests (the first one is where ``lesson_link`` points);
    ``form`` is the index of the authored form this variant was drawn from.
    """

    question_id: str
    seed: int
    bank_version: str
    kind: str
    prompt: Text
    params: dict[str, Any]
    input: AnswerInput
    answer: Any
    solution: Text
    misconceptions: tuple[Misconception, ...] = ()
    lesson_link: str = ""
    scenario: dict[str, Any] | None = None
    answer_ref: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    form: int = 0


@dataclass(frozen=True)
class Grade:
    """The server's verdict on one submitted answer.

    Only an answer that could be read is graded (one that cannot is refused with
    ``errors.Invalid`` and costs no attempt); ``score`` is in [0, 1] (partial credit for
    vectors); ``misconception`` names the wrong model whose answer matched, if any. Only
    graded kinds are graded: a self-rated kind's answer is checked by its kind and stored,
    never graded.
    """

    correct: bool
    score: float
    misconception: Misconception | None = None
    per_element: tuple[bool, ...] = ()
