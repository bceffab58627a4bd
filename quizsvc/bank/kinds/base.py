"""Say what a question kind is: the one class each kind module fills in, as CTFd's challenge
types do, and what a kind builds a variant from.

A kind knows everything that differs between kinds: how its question file is written
(``schema``), how a seed becomes a variant (``variant``), how its answer is judged (``grade``
for a graded kind, ``check_answer`` for a self-rated one), how the question page's form posts
its answer (``read_form``) and which template draws that form (``template``). Everything else
(the loader, the bank, the service, the pages and the exporters) looks a question's kind up in
``quizsvc.bank.kinds.KINDS`` and asks it; nothing branches on a kind's name.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from quizsvc.bank.kinds.form import FormFields
from quizsvc.bank.model import AnswerInput, Grade, Misconception, Question, Text, Variant
from quizsvc.bank.parsing import unreadable
from quizsvc.bank.schema import QuestionBaseSchema
from quizsvc.errors import N_

if TYPE_CHECKING:
    from quizsvc.bank.answer_key import AnswerKey
    from quizsvc.bank.loader import QuestionEntry


@dataclass(frozen=True)
class VariantSource:
    """Hold what one variant is built from: the loaded question, the seed, the bank version,
    and the names of the lesson's wrong models (a wrong option or a generator names them)."""

    entry: QuestionEntry
    seed: int
    bank_version: str
    names: Mapping[str, Text]

    @property
    def question(self) -> Question:
        """Return the question the variant is drawn from."""
        return self.entry.question

    @property
    def spec(self) -> dict[str, Any]:
        """Return the question's validated file (its kind's ``schema`` loaded it)."""
        return self.entry.spec

    def rng(self) -> random.Random:
        """Return the variant's random stream: seeded by the question id and the seed only, so
        the same pair always draws the same variant."""
        return random.Random(f"{self.question.id}|{self.seed}")

    def variant(self, **drawn: Any) -> Variant:
        """Return the variant of the ``drawn`` fields, with those every variant shares."""
        question = self.question
        return Variant(question_id=question.id, seed=self.seed, bank_version=self.bank_version,
                       kind=question.kind, lesson_link=question.lesson_link,
                       rules=question.rules, **drawn)


class Kind(ABC):
    """Describe one kind of question; each kind module subclasses it once.

    ``name`` is the ``kind:`` a question file gives. ``graded``: the server grades its answers
    against a key (a self-rated kind's learner rates themselves, and nothing it answers
    becomes mastery). ``varied``: its content changes with the seed, so ``bank check`` holds
    it to ``content.MIN_DISTINCT_CONTENTS`` contents. ``computed``: its answers come from
    replaying the ledger on the scenario its generator module builds, so it lives in a folder
    of its own, has countless contents and goes to exports as worked examples.
    ``template`` is the page template that draws its answer inputs (under ``web/templates``).
    """

    name: ClassVar[str]
    schema: ClassVar[type[QuestionBaseSchema]]
    template: ClassVar[str]
    graded: ClassVar[bool]
    varied: ClassVar[bool] = False
    computed: ClassVar[bool] = False

    @abstractmethod
    def variant(self, source: VariantSource) -> Variant:
        """Build the variant of ``source``'s question and seed (the same source, the same
        variant)."""

    @abstractmethod
    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Turn the fields the question page's form posts into the answer value the API takes
        (``errors.Invalid`` naming the field when they cannot be one)."""

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        """Grade a raw answer against a variant's key (``errors.Invalid``: it cannot be read).

        A self-rated kind keeps this refusal: its answers are checked, never graded.
        """
        raise unreadable(N_("cannot grade a %(kind)s question"), "not_graded",
                         {"kind": str(self.name)})

    def check_answer(self, answer: Any) -> Any:
        """Return what a self-rated answer stores (``errors.Invalid`` when it is not one).

        A graded kind keeps this refusal: its answers are graded, never stored unread.
        """
        raise TypeError(f"a {self.name} question is graded: grade its answers")


def wrong_model(key: AnswerKey, answer: Any) -> Misconception | None:
    """Return the first named wrong model (in the key's priority order) whose answer is
    ``answer``, or None."""
    return next((m for m in key.misconceptions if m.answer == answer), None)
