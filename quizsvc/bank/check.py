"""Validate a whole bank: every file, and many seeds of every template.

``quizsvc bank check`` runs this and the test suite runs it too, so a question that cannot be
drawn, graded or read back from its trace fails CI rather than a learner. For every variant
it checks that the stated answer grades as correct, that numeric answers can be re-read from
the trace through ``answer_ref``, that no named wrong model coincides with the answer, and
that drawing the same seed twice gives the same variant; a numeric prompt must write every
value it states and leave unsaid only values that cannot change its answer
(``quizsvc.bank.stated``). It also holds the lesson to its
promises (``quizsvc.bank.coverage``): every rule taught where its anchor says, shown with a
worked example, linked from the quick reference and tested by a graded question; every term
a question uses in the glossary; no learner-facing text that reads like a debug log.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizsvc.bank import pointer
from quizsvc.bank.catalog import Bank, read_bank
from quizsvc.bank.content import (
    CONTENT_SEEDS,
    MIN_DISTINCT_CONTENTS,
    content_key,
    distinct_contents,
)
from quizsvc.bank.coverage import (
    LearnerText,
    debug_text,
    missing_terms,
    question_texts,
    rule_problems,
    variant_texts,
)
from quizsvc.bank.errors import BankError
from quizsvc.bank.examples import placed as examples_placed
from quizsvc.bank.model import Variant
from quizsvc.bank.publication import Publication
from quizsvc.bank.stated import text_problems as stated_text_problems
from quizsvc.bank.stated import unsaid_problems
from quizsvc.errors import Invalid

DEFAULT_SEEDS = 200
DETERMINISM_SEEDS = 3
TEXT_SEEDS = 12  # numeric seeds whose rendered texts the glossary and hygiene checks read
MAX_MEAN_ATTEMPTS = 8.0


@dataclass
class QuestionStats:
    """What checking one question found: variants drawn, time, redraws, distinct forms.

    ``forms`` counts the distinct forms a learner met across the seeds drawn: the prompt, the
    options or items shown and the answer key together. ``contents`` counts distinct content
    keys over ``content_seeds`` seeds: ``CONTENT_SEEDS`` for a concept check, the seeds drawn
    for a numeric template.
    """

    question_id: str
    kind: str
    variants: int = 0
    seconds: float = 0.0
    attempts: int = 0
    distinct_answers: int = 0
    forms: int = 0
    contents: int = 0
    content_seeds: int = 0
    misconceptions: dict[str, int] = field(default_factory=dict)


@dataclass
class CheckReport:
    """The outcome of a bank check: problems found (empty = pass) and per-question stats."""

    version: str = ""
    errors: list[str] = field(default_factory=list)
    stats: list[QuestionStats] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Say whether the bank passed."""
        return not self.errors


def _key(answer: Any) -> str:
    return repr(answer)


def check_variant(bank: Bank, variant: Variant) -> list[str]:
    """Return the problems of one variant (empty when it is sound)."""
    problems: list[str] = []
    where = f"{variant.question_id} seed {variant.seed}"
    for lang in ("zh", "en"):
        if not variant.prompt.get(lang).strip():
            problems.append(f"{where}: empty prompt ({lang})")
        if not variant.solution.get(lang).strip():
            problems.append(f"{where}: empty solution ({lang})")
    kind = bank.kinds[variant.kind]
    if not kind.graded:
        return problems
    try:
        grade = bank.grade(variant, variant.answer)
    except Invalid as refused:
        problems.append(f"{where}: its own answer {variant.answer!r} cannot be read: {refused}")
    else:
        if not grade.correct or grade.score != 1.0:
            problems.append(f"{where}: its own answer {variant.answer!r} grades as {grade}")
    for wrong in variant.misconceptions:
        if wrong.answer == variant.answer:
            problems.append(f"{where}: misconception {wrong.id} equals the answer")
            continue
        if kind.computed:  # a generator computed it: it must read back as that wrong model
            try:
                wrong_grade = bank.grade(variant, wrong.answer)
            except Invalid:
                problems.append(f"{where}: misconception {wrong.id} answer cannot be parsed")
                continue
            if wrong_grade.misconception is None:
                problems.append(f"{where}: misconception {wrong.id} is not recognised")
    if kind.computed:
        problems.extend(_check_numeric(variant, where))
    return problems


def prompt_problems(variant: Variant, states: list[str]) -> list[str]:
    """Return where a numeric prompt leaves a binding value unsaid (``quizsvc.bank.stated``):
    a stated value missing from its text, or an unsaid one that changes the answer."""
    from quizsvc.ledger import replay

    problems = stated_text_problems(variant, states)
    return problems + unsaid_problems(variant, states, replay)


def _check_numeric(variant: Variant, where: str) -> list[str]:
    """Re-derive the answer as an outsider would: replay the exported scenario, follow the refs."""
    problems = []
    if variant.scenario is None:
        return [f"{where}: a numeric variant without its scenario"]
    from quizsvc.ledger import replay

    trace = replay(variant.scenario)
    try:
        values = [pointer.resolve(trace, ref) for ref in variant.answer_ref]
    except KeyError as error:
        return [f"{where}: answer_ref does not resolve: {error}"]
    expected = values if variant.input.type == "vector" else values[0]
    if expected != variant.answer:
        problems.append(f"{where}: answer_ref reads {expected!r}, answer is {variant.answer!r}")
    if variant.input.type == "vector" and len(variant.input.labels) != variant.input.length:
        problems.append(f"{where}: {len(variant.input.labels)} labels for {variant.input.length}")
    return problems


def check_bank(
    path: str | Path | None = None,
    seeds: int = DEFAULT_SEEDS,
    only: list[str] | None = None,
    progress: Callable[[QuestionStats], None] | None = None,
) -> CheckReport:
    """Load the bank at ``path`` and draw ``seeds`` seeds of every question (or of ``only``)."""
    report = CheckReport()
    try:
        bank = read_bank(path)
    except BankError as error:
        report.errors.append(str(error))
        return report
    report.version = bank.version
    report.errors.extend(lesson_problems(bank))
    publication = Publication(bank)
    texts: list[LearnerText] = []
    chosen = only or sorted(bank.questions)
    for question_id in chosen:
        try:
            entry = bank.entry(question_id)
        except BankError as error:
            report.errors.append(str(error))
            continue
        kind = bank.kinds[entry.question.kind]
        stats = QuestionStats(question_id, str(kind.name))
        count = seeds if kind.computed else min(seeds, 20)
        answers: set[str] = set()
        forms: set[str] = set()
        contents: set[str] = set()
        texts.extend(question_texts(question_id, entry.spec))
        started = time.perf_counter()
        for seed in range(count):
            try:
                variant = bank.make_variant(entry, seed)
                problems = check_variant(bank, variant)
                if kind.computed:
                    problems.extend(prompt_problems(variant, entry.spec["states"]))
                if seed < DETERMINISM_SEEDS and bank.make_variant(entry, seed) != variant:
                    problems.append(f"{question_id} seed {seed}: not deterministic")
            except BankError as error:
                problems = [str(error)]
                variant = None
            report.errors.extend(problems)
            if variant is None:
                continue
            stats.variants += 1
            stats.attempts += int(variant.extra.get("attempts", 1))
            answers.add(_key(variant.answer))
            forms.add(form_signature(variant, kind.computed))
            contents.add(content_key(variant))
            if kind.computed and seed < TEXT_SEEDS:
                texts.extend(variant_texts(variant))  # the files hold only the templates
            for wrong in variant.misconceptions:
                stats.misconceptions[wrong.id] = stats.misconceptions.get(wrong.id, 0) + 1
        stats.seconds = time.perf_counter() - started
        stats.distinct_answers = len(answers)
        stats.forms = len(forms)
        stats.contents, stats.content_seeds = len(contents), stats.variants
        if kind.graded and not kind.computed and stats.variants == count:
            stats.contents = distinct_contents(bank, question_id)
            stats.content_seeds = CONTENT_SEEDS
        if kind.varied:
            served = publication.servable_contents(bank.questions[question_id])
            if served < MIN_DISTINCT_CONTENTS:
                report.errors.append(
                    f"{question_id}: only {served} distinct contents served over "
                    f"{CONTENT_SEEDS} seeds (at least {MIN_DISTINCT_CONTENTS}: a few reveals "
                    "must not cover them; decks and exports keep "
                    f"{stats.contents - served} of its {stats.contents})")
        if kind.computed and stats.variants:
            mean = stats.attempts / stats.variants
            if mean > MAX_MEAN_ATTEMPTS:
                report.errors.append(f"{question_id}: {mean:.1f} draws per variant (redraws)")
            if stats.distinct_answers < 2 and count > 1:
                report.errors.append(f"{question_id}: every seed gives the same answer")
        report.stats.append(stats)
        if progress:
            progress(stats)
    report.errors.extend(text_problems(bank, texts))
    return report


def form_signature(variant: Variant, computed: bool) -> str:
    """Name the form a variant was drawn from: its prompt, the option ids shown, its key (a
    ``computed`` template has one form, whatever numbers it draws)."""
    shown = sorted(option.id for option in variant.input.options)
    if computed:
        return repr(("", shown, "numeric"))
    return repr((variant.prompt.en, shown, variant.answer))


def lesson_problems(bank: Bank) -> list[str]:
    """Check every lesson's rules are taught, linked and tested (``coverage.rule_problems``)."""
    problems: list[str] = []
    tested: set[str] = set()
    for question in bank.questions.values():
        if bank.kinds[question.kind].graded:
            tested.update(question.rules)
    for lesson_id, lesson in bank.lessons.items():
        entry = bank.lesson_entry(lesson_id)
        texts = {lang: path.read_text(encoding="utf-8") for lang, path in entry.texts.items()}
        reference = {lang: path.read_text(encoding="utf-8")
                     for lang, path in entry.reference.items()}
        example_rules = {key: example.rule for key, example in entry.examples.items()}
        problems.extend(f"{lesson_id}: {problem}" for problem in rule_problems(
            lesson, texts, reference, example_rules, tested))
        for key in entry.examples:
            placed = [lang for lang, text in texts.items() if key not in examples_placed(text)]
            if placed:
                problems.append(f"{lesson_id}: example {key} is not shown in the lesson "
                                f"({', '.join(placed)})")
    return problems


def text_problems(bank: Bank, texts: list[LearnerText]) -> list[str]:
    """Check the learner-facing texts: every term in the glossary, none reads like a log."""
    problems = debug_text(texts)
    by_lesson: dict[str, set[str]] = {
        lesson_id: {term.term for term in lesson.glossary}
        for lesson_id, lesson in bank.lessons.items()
    }
    lesson_of = {qid: question.lesson for qid, question in bank.questions.items()}
    for lesson_id, known in by_lesson.items():
        mine = [item for item in texts if lesson_of.get(item.question_id) == lesson_id]
        for term, users in sorted(missing_terms(mine, known).items()):
            problems.append(f"{lesson_id}: the glossary lacks {term!r}, which "
                            f"{', '.join(sorted(users)[:3])} use(s)")
    return problems
