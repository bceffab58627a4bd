"""The ``Bank``: lessons, questions, seed -> variant, and grading, behind one object.

``load_bank()`` reads a bank directory once per path and caches it. ``Bank.variant`` is a pure
function of ``(question_id, seed)`` for a given bank version (the question's kind builds it,
``quizsvc.bank.kinds``: the random stream is seeded by the question id and the seed; numeric
answers come from replaying a ledger scenario), so the service can store the triple with every
attempt and re-derive the grade later.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsvc.bank import numeric
from quizsvc.bank.errors import BankError, NotFound
from quizsvc.bank.examples import WorkedExample
from quizsvc.bank.grading import Grader
from quizsvc.bank.kinds import KINDS, Kind, VariantSource
from quizsvc.bank.kinds import numeric as numeric_kind
from quizsvc.bank.loader import (
    BankContent,
    LessonEntry,
    MisconceptionInfo,
    QuestionEntry,
    read_content,
)
from quizsvc.bank.model import (
    GlossaryTerm,
    Lesson,
    Question,
    Text,
    Variant,
)

BANK_DIR_ENV = "QUIZSVC_BANK_DIR"
DEFAULT_BANK_DIR = Path(__file__).resolve().parents[2] / "question_bank"
MAX_SEED = 2**63 - 1
VARIANT_CACHE_SIZE = 4096


@dataclass(frozen=True)
class ModelStep:
    """The asked step twice, as the worked solution's table: as vLLM 0.33.0 ran it (``real``)
    and as a named wrong model replays it (``wrong``), one row of cells per request."""

    step: int
    header: tuple[str, ...]
    real: tuple[tuple[str, ...], ...]
    wrong: tuple[tuple[str, ...], ...]


def check_seed(seed: Any) -> int:
    """Return ``seed`` if it is a usable seed (an integer in [0, 2**63 - 1]), else raise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BankError("variant", "seed", "must be an integer")
    if not 0 <= seed <= MAX_SEED:
        raise BankError("variant", "seed", f"must be between 0 and {MAX_SEED}")
    return seed


class Bank(Grader):
    """Hold one loaded bank and make and grade its variants.

    ``kinds`` is the table the bank's questions were read with: it builds and grades them.
    """

    def __init__(self, content: BankContent, kinds: Mapping[str, Kind] = KINDS) -> None:
        self.kinds = kinds
        self._kind_order = {name: index for index, name in enumerate(kinds)}
        self.root = content.root
        self.version = content.version
        self._lessons = content.lessons
        self._entries = content.questions
        self.lessons: dict[str, Lesson] = {k: v.lesson for k, v in content.lessons.items()}
        self.questions: dict[str, Question] = {k: v.question for k, v in content.questions.items()}
        self._cache: OrderedDict[tuple[str, int], Variant] = OrderedDict()
        self._lock = threading.Lock()

    def entry(self, question_id: str) -> QuestionEntry:
        """Return the loaded entry of a question, or raise ``NotFound``."""
        try:
            return self._entries[question_id]
        except (KeyError, TypeError):
            raise NotFound("question", "id", f"no question {str(question_id)[:80]!r}") from None

    def lesson_entry(self, lesson_id: str) -> LessonEntry:
        """Return the loaded entry of a lesson, or raise ``NotFound``."""
        try:
            return self._lessons[lesson_id]
        except (KeyError, TypeError):
            raise NotFound("lesson", "id", f"no lesson {str(lesson_id)[:80]!r}") from None

    def misconception_info(self, lesson_id: str, misconception_id: str
                           ) -> MisconceptionInfo | None:
        """Return a named wrong model of a lesson's catalogue (None if it has no such one)."""
        entry = self._lessons.get(lesson_id)
        return entry.misconceptions.get(misconception_id) if entry else None

    def teaching_order(self, lesson_id: str) -> list[Question]:
        """List a lesson's questions in the order the lesson teaches what they test.

        By section (lesson.yaml lists them in teaching order, the opening's worked examples
        first). Inside a section: the numeric questions first (they make the learner compute
        the section's worked example again, with new numbers), then the other graded kinds,
        then the self-rated ones (flashcards and explanations, which review what was just
        checked); inside each group by the position of the question's first rule in
        ``rules.yaml``, then by kind and id. A new learner's first questions are therefore the
        worked examples of the first sections.
        """
        lesson = self.lesson_entry(lesson_id).lesson
        order = {section.id: index for index, section in enumerate(lesson.sections)}
        rule_order = {rule.id: index for index, rule in enumerate(lesson.rules)}
        chosen = [q for q in self.questions.values() if q.lesson == lesson_id]

        def key(q: Question) -> tuple[int, int, int, int, str]:
            first = rule_order.get(q.rules[0], len(rule_order)) if q.rules else len(rule_order)
            kind = self.kinds[q.kind]
            group = 0 if kind.computed else 1 if kind.graded else 2
            return (order[q.section], group, first, self._kind_order[q.kind], q.id)

        return sorted(chosen, key=key)

    def questions_for(self, lesson_id: str) -> list[Question]:
        """List a lesson's questions in teaching order (see ``teaching_order``)."""
        return self.teaching_order(lesson_id)

    def lesson_text(self, lesson_id: str, lang: str) -> str:
        """Return the lesson's markdown in ``lang`` (falling back to Chinese, the original),
        with its worked examples and quotes filled in from the ledger's replays."""
        return self._text(lesson_id, lang, "lesson")

    def reference_text(self, lesson_id: str, lang: str) -> str:
        """Return the quick-reference page's markdown in ``lang`` ("" if the lesson has none)."""
        return self._text(lesson_id, lang, "reference")

    def glossary(self, lesson_id: str) -> tuple[GlossaryTerm, ...]:
        """Return the lesson's glossary terms, in the file's order."""
        return self.lesson_entry(lesson_id).lesson.glossary

    def example(self, example_id: str) -> WorkedExample:
        """Return a worked example of any lesson by id, or raise ``NotFound``."""
        for entry in self._lessons.values():
            if example_id in entry.examples:
                return entry.examples[example_id]
        raise NotFound("example", "id", f"no worked example {str(example_id)[:80]!r}")

    def _text(self, lesson_id: str, lang: str, which: str) -> str:
        pages = self.lesson_entry(lesson_id).pages.get(which, {})
        return pages.get(lang, pages.get("zh", ""))

    def misconception_names(self, lesson_id: str) -> dict[str, Text]:
        """Return the names of a lesson's catalogued wrong models, by id."""
        entry = self.lesson_entry(lesson_id)
        return {mid: info.name for mid, info in entry.misconceptions.items()}

    def variant(self, question_id: str, seed: int) -> Variant:
        """Return the variant ``(question_id, seed, self.version)``: same call, same result."""
        check_seed(seed)
        entry = self.entry(question_id)
        key = (question_id, seed)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        made = self.make_variant(entry, seed)
        with self._lock:
            self._cache[key] = made
            if len(self._cache) > VARIANT_CACHE_SIZE:
                self._cache.popitem(last=False)
        return made

    def model_step(self, question_id: str, seed: int, misconception_id: str, lang: str,
                   answer: Any) -> ModelStep | None:
        """Return the asked step of a numeric variant as it ran and as the wrong model
        ``misconception_id`` replays it, when the ledger replayed that model (a model the
        generator computes by formula has no trace, and one that differs only in what the
        table does not show adds nothing: ``None``). ``answer`` is the answer the
        learner was graded against: a draw that no longer gives it (the bank changed since)
        shows nothing rather than another variant's numbers."""
        from quizsvc.ledger.explain import find_step, numbers_header, numbers_rows

        draw = self.numeric_draw(question_id, seed)
        wrong = draw.wrong_traces.get(misconception_id)
        if wrong is None or draw.answer != answer:
            return None
        step, focus = draw.build.step, numeric_kind.focus_of(draw.build)
        real_rows = tuple(numbers_rows(find_step(draw.trace, step), lang, focus))
        wrong_rows = tuple(numbers_rows(find_step(wrong, step), lang, focus))
        if real_rows == wrong_rows:  # it differs in what the table does not show (KV blocks)
            return None
        return ModelStep(step=step, header=numbers_header(lang), real=real_rows,
                         wrong=wrong_rows)

    def numeric_draw(self, question_id: str, seed: int) -> numeric.NumericDraw:
        """Generate the numeric draw (scenario, trace, answer) behind a numeric variant."""
        check_seed(seed)
        return numeric_kind.draw(self.entry(question_id), seed)

    def make_variant(self, entry: QuestionEntry, seed: int) -> Variant:
        """Build a variant without the cache (the benchmark and the check use this): the
        question's kind builds it."""
        question = entry.question
        source = VariantSource(entry, seed, self.version,
                               self.misconception_names(question.lesson))
        return self.kinds[question.kind].variant(source)


_BANKS: dict[Path, Bank] = {}
_BANKS_LOCK = threading.Lock()


def bank_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the bank directory: ``path``, else ``$QUIZSVC_BANK_DIR``, else the repo's."""
    chosen = path if path is not None else os.environ.get(BANK_DIR_ENV) or DEFAULT_BANK_DIR
    return Path(chosen).resolve()


def read_bank(path: str | os.PathLike[str] | None = None,
              kinds: Mapping[str, Kind] = KINDS) -> Bank:
    """Read and validate a bank directory without the cache (for checks and tests), its
    questions' kinds looked up in ``kinds``."""
    return Bank(read_content(bank_dir(path), kinds), kinds)


def load_bank(path: str | os.PathLike[str] | None = None) -> Bank:
    """Return the bank at ``path`` (default: ``$QUIZSVC_BANK_DIR`` or ``<repo>/question_bank``).

    Banks are cached per resolved path: reading and validating the files happens once per
    process, not per request.
    """
    directory = bank_dir(path)
    with _BANKS_LOCK:
        bank = _BANKS.get(directory)
        if bank is None:
            bank = Bank(read_content(directory))
            _BANKS[directory] = bank
        return bank
