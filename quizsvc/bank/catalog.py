"""The ``Bank``: lessons, questions, seed -> variant, and grading, behind one object.

``load_bank()`` reads a bank directory once per path and caches it. ``Bank.variant`` is a pure
function of ``(question_id, seed)`` for a given bank version (the random stream is seeded by
the question id and the seed; numeric answers come from replaying a ledger scenario), so the
service can store the triple with every attempt and re-derive the grade later.
"""

from __future__ import annotations

import os
import random
import string
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsvc.bank import grading, numeric
from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.errors import BankError, NotFound
from quizsvc.bank.examples import WorkedExample
from quizsvc.bank.loader import (
    BankContent,
    LessonEntry,
    MisconceptionInfo,
    QuestionEntry,
    read_content,
    text,
)
from quizsvc.bank.model import (
    GRADED,
    AnswerInput,
    GlossaryTerm,
    Grade,
    Lesson,
    Misconception,
    Option,
    Question,
    QuestionKind,
    Text,
    Variant,
)

BANK_DIR_ENV = "QUIZSVC_BANK_DIR"
DEFAULT_BANK_DIR = Path(__file__).resolve().parents[2] / "question_bank"
MAX_SEED = 2**63 - 1
VARIANT_CACHE_SIZE = 4096
KIND_ORDER = {kind: index for index, kind in enumerate(QuestionKind)}


def ledger_replay(
    scenario: dict[str, Any], wrong_rules: tuple[str, ...] = (), wrong_from_step: int = 0
) -> dict[str, Any]:
    """Replay a FORMAT.md scenario through the ledger core (imported on first use).

    ``wrong_rules`` (the ledger's ``WrongRule`` names) replay it under a named wrong model
    from loop step ``wrong_from_step`` on, for misconception feedback.
    """
    from quizsvc.ledger import replay

    if wrong_rules:
        return replay(scenario, wrong_rules=wrong_rules, wrong_from_step=wrong_from_step)
    return replay(scenario)


def ledger_solution(trace: dict[str, Any], step: int, lang: str,
                    focus: tuple[str, ...] = ()) -> str:
    """Return the ledger's worked solution (markdown) for one step of a trace."""
    from quizsvc.ledger.explain import worked_solution

    return worked_solution(trace, step, lang, focus)


@dataclass(frozen=True)
class ModelStep:
    """The asked step twice, as the worked solution's table: as vLLM 0.33.0 ran it (``real``)
    and as a named wrong model replays it (``wrong``), one row of cells per request."""

    step: int
    header: tuple[str, ...]
    real: tuple[tuple[str, ...], ...]
    wrong: tuple[tuple[str, ...], ...]


def focus_of(build: numeric.Build) -> tuple[str, ...]:
    """Return the request ids a numeric question asks about (read from its answer refs)."""
    found: list[str] = []
    for ref in build.refs:
        path = ref.path
        rid = path[1] if path[:1] == ("requests",) else path[2] if path[:2] == (
            "schedule", "limits") else None
        if rid is not None and rid not in found:
            found.append(rid)
    return tuple(found)


def check_seed(seed: Any) -> int:
    """Return ``seed`` if it is a usable seed (an integer in [0, 2**63 - 1]), else raise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BankError("variant", "seed", "must be an integer")
    if not 0 <= seed <= MAX_SEED:
        raise BankError("variant", "seed", f"must be between 0 and {MAX_SEED}")
    return seed


class Bank:
    """Hold one loaded bank and make and grade its variants."""

    def __init__(self, content: BankContent) -> None:
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
            group = 0 if q.kind is QuestionKind.NUMERIC else 1 if q.kind in GRADED else 2
            return (order[q.section], group, first, KIND_ORDER[q.kind], q.id)

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

    def grade(self, variant: Variant, raw_answer: Any) -> Grade:
        """Grade a raw answer (a JSON value or a string) against a variant of this bank."""
        if variant.bank_version != self.version:
            raise BankError(
                "variant", "bank_version", "the variant belongs to another bank version"
            )
        return grading.grade(variant, raw_answer)

    def grade_key(self, key: AnswerKey, raw_answer: Any) -> Grade:
        """Grade a raw answer against a stored answer key of this bank (no variant rebuilt)."""
        if key.bank_version != self.version:
            raise BankError(
                "variant", "bank_version", "the answer key belongs to another bank version"
            )
        return grading.grade_key(key, raw_answer)

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
        step, focus = draw.build.step, focus_of(draw.build)
        real_rows = tuple(numbers_rows(find_step(draw.trace, step), lang, focus))
        wrong_rows = tuple(numbers_rows(find_step(wrong, step), lang, focus))
        if real_rows == wrong_rows:  # it differs in what the table does not show (KV blocks)
            return None
        return ModelStep(step=step, header=numbers_header(lang), real=real_rows,
                         wrong=wrong_rows)

    def numeric_draw(self, question_id: str, seed: int) -> numeric.NumericDraw:
        """Generate the numeric draw (scenario, trace, answer) behind a numeric variant."""
        check_seed(seed)
        entry = self.entry(question_id)
        if entry.generator is None:
            raise BankError("question", "kind", f"{question_id} is not a numeric question")
        return numeric.generate(
            question_id,
            seed,
            entry.spec["params"],
            entry.generator,
            ledger_replay,
            str(entry.path),
        )

    def make_variant(self, entry: QuestionEntry, seed: int) -> Variant:
        """Build a variant without the cache (the benchmark and the check use this).

        A choice, multi or order question draws one of its forms from the seed's random
        stream (and, for a pool, the options it shows: a choice pool shows one of its right
        statements), then shuffles what it shows; the variant is graded from that form's own
        answer.
        """
        question = entry.question
        common: dict[str, Any] = {
            "question_id": question.id,
            "seed": seed,
            "bank_version": self.version,
            "kind": question.kind,
            "lesson_link": question.lesson_link,
            "rules": question.rules,
        }
        if question.kind is QuestionKind.NUMERIC:
            return self._numeric_variant(entry, seed, common)
        spec = entry.spec
        rng = random.Random(f"{question.id}|{seed}")
        names = self.misconception_names(question.lesson)
        if question.kind in (QuestionKind.CHOICE, QuestionKind.ANCHOR, QuestionKind.MULTI):
            index, form = pick_form(spec["forms"], rng)
            pool = list(form["options"])
            right = set(form["answer"] if isinstance(form["answer"], list) else [form["answer"]])
            if form.get("draw"):
                pool = draw_pool(pool, right, form["draw"], rng)
            shown_ids = {o["id"] for o in pool}
            options = list(pool)
            rng.shuffle(options)
            answer: Any = [o["id"] for o in pool if o["id"] in right]
            if question.kind is not QuestionKind.MULTI:
                (answer,) = answer  # a single-answer pool shows exactly one right option
            wrong = tuple(
                Misconception(o["misconception"], names[o["misconception"]], o["id"])
                for o in pool
                if o["misconception"] and o["id"] in shown_ids
            )
            input_type = "multi" if question.kind is QuestionKind.MULTI else "choice"
            return Variant(
                prompt=text(form["prompt"]),
                params={},
                input=AnswerInput(input_type, options=_options(options)),
                answer=answer,
                solution=text(form["solution"]),
                misconceptions=wrong,
                form=index,
                **common,
            )
        if question.kind is QuestionKind.ORDER:
            index, form = pick_form(spec["forms"], rng)
            items = list(form["items"])
            if form.get("draw"):
                keep = set(rng.sample(range(len(items)), form["draw"]))
                items = [item for i, item in enumerate(items) if i in keep]
            shown = list(items)
            # Uniform over every order, the answer's included: leaving the answer out would
            # make the one order never shown the answer, found by serving enough variants.
            rng.shuffle(shown)
            return Variant(
                prompt=text(form["prompt"]),
                params={},
                input=AnswerInput("order", length=len(items), options=_options(shown)),
                answer=[item["id"] for item in items],
                solution=text(form["solution"]),
                form=index,
                **common,
            )
        if question.kind is QuestionKind.FLASHCARD:
            return Variant(
                prompt=text(spec["front"]),
                params={},
                input=AnswerInput("flashcard"),
                answer=None,
                solution=text(spec["back"]),
                **common,
            )
        return Variant(
            prompt=text(spec["prompt"]),
            params={},
            input=AnswerInput("text"),
            answer=None,
            solution=text(spec["solution"]),
            **common,
        )

    def _numeric_variant(self, entry: QuestionEntry, seed: int, common: dict[str, Any]) -> Variant:
        spec = entry.spec
        draw = self.numeric_draw(entry.question.id, seed)
        shown = {k: v for k, v in draw.display.items() if not k.startswith("_")}
        prompt = {}
        for lang in ("zh", "en"):
            values = localised(shown, lang)
            try:
                prompt[lang] = PROMPT_FORMAT.vformat(spec["prompt"][lang], (), values)
            except (KeyError, IndexError, ValueError) as error:
                raise BankError(
                    str(entry.path), f"prompt.{lang}", f"cannot fill: {error!r}"
                ) from None
        solution = {}
        for lang in ("zh", "en"):
            worked = ledger_solution(draw.trace, draw.build.step, lang, focus_of(draw.build))
            values = localised(draw.display, lang)
            intro = PROMPT_FORMAT.vformat(spec["solution"][lang], (), values) if spec[
                "solution"] else ""
            solution[lang] = f"{intro}\n\n{worked}" if intro else worked
        names = self.misconception_names(entry.question.lesson)
        declared = spec["misconceptions"]
        undeclared = sorted(set(draw.wrong) - set(declared))
        if undeclared:
            raise BankError(str(entry.path), "misconceptions", f"generator names {undeclared}")
        wrong: list[Misconception] = []
        for mid in declared:  # declared order is priority order; equal answers keep the first
            if mid in draw.wrong and all(m.answer != draw.wrong[mid] for m in wrong):
                wrong.append(Misconception(mid, names[mid], draw.wrong[mid]))
        build = draw.build
        if build.is_vector:
            labels = build.labels or tuple(str(i + 1) for i in range(len(build.refs)))
            answer_input = AnswerInput("vector", length=len(build.refs), labels=labels)
        else:
            answer_input = AnswerInput("integer")
        return Variant(
            prompt=Text(**prompt),
            params={
                k: {"zh": v.zh, "en": v.en} if isinstance(v, Text) else v for k, v in shown.items()
            },
            input=answer_input,
            answer=draw.answer,
            solution=Text(**solution),
            misconceptions=tuple(wrong),
            scenario=build.scenario,
            answer_ref=draw.answer_ref,
            extra={"draw": dict(draw.params), "step": build.step, "attempts": draw.attempts},
            **common,
        )


class CountFormatter(string.Formatter):
    """Format prompt templates, writing ``{n:token|tokens}`` as "1 token" or "3 tokens".

    English nouns must agree with the numbers a generator draws ("1 request", never
    "1 requests"); a field whose format spec holds ``singular|plural`` gets the number and the
    right noun. Every other field formats as ``str.format`` would.
    """

    def format_field(self, value: Any, format_spec: str) -> str:
        """Write a count with its noun, or fall back to the usual formatting."""
        if "|" in format_spec and isinstance(value, int) and not isinstance(value, bool):
            singular, plural = format_spec.split("|", 1)
            return f"{value} {singular if value == 1 else plural}"
        return str(super().format_field(value, format_spec))


PROMPT_FORMAT = CountFormatter()


def pick_form(forms: list[dict[str, Any]], rng: random.Random) -> tuple[int, dict[str, Any]]:
    """Draw one authored form (a question written once has exactly one)."""
    index = rng.randrange(len(forms)) if len(forms) > 1 else 0
    return index, forms[index]


def draw_pool(options: list[dict[str, Any]], right: set[str], draw: dict[str, int],
              rng: random.Random) -> list[dict[str, Any]]:
    """Draw ``draw["right"]`` right and ``draw["wrong"]`` wrong options from a pool, in pool
    order (the caller shuffles what is shown)."""
    good = [i for i, o in enumerate(options) if o["id"] in right]
    bad = [i for i, o in enumerate(options) if o["id"] not in right]
    keep = set(rng.sample(good, draw["right"])) | set(rng.sample(bad, draw["wrong"]))
    return [o for i, o in enumerate(options) if i in keep]


def localised(values: dict[str, Any], lang: str) -> dict[str, Any]:
    """Pick the ``lang`` side of every ``Text`` value (a phrase a generator wrote in both)."""
    return {k: v.get(lang) if isinstance(v, Text) else v for k, v in values.items()}


def _options(options: list[dict[str, Any]]) -> tuple[Option, ...]:
    return tuple(Option(o["id"], text(o["text"])) for o in options)


_BANKS: dict[Path, Bank] = {}
_BANKS_LOCK = threading.Lock()


def bank_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the bank directory: ``path``, else ``$QUIZSVC_BANK_DIR``, else the repo's."""
    chosen = path if path is not None else os.environ.get(BANK_DIR_ENV) or DEFAULT_BANK_DIR
    return Path(chosen).resolve()


def read_bank(path: str | os.PathLike[str] | None = None) -> Bank:
    """Read and validate a bank directory without the cache (for checks and tests)."""
    return Bank(read_content(bank_dir(path)))


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
