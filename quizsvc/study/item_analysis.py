"""Show a question's author how each question and rule fared: item analysis over a scope.

The scope is every learner (``learner_ids`` None: the author's view) or a group of them (a
cohort's members now, ``cohort_item_analysis``: the instructor's view). The analysis reads
every first closed-book answer in scope, so it runs on the costly-work pool
(``Context.costly``); the result is kept in the app's memo under the bank version, the
lesson, the scope and the newest counted attempt with the count of them
(``ItemStatisticsRepository.latest``), so it is computed again only after a new answer (or an
erased learner, or a member joining or leaving) changes what it reads.

What it shows is aggregated over learners and reaches only an author (or a cohort's
instructor): no learner's answer, and no answer key.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass

from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import Question, Rule, Text
from quizsvc.pool import job_runtime
from quizsvc.review import item_analysis
from quizsvc.review.item_analysis import (
    ItemAnalysis,
    ItemStats,
    MisconceptionCount,
    RuleStats,
)
from quizsvc.study import cohorts
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context

ANALYSIS_WAIT_SECONDS = 30.0  # reading and analysing every first answer of a large class


@dataclass(frozen=True)
class MisconceptionRow:
    """A misconception matched, with its name, the rule it breaks and where that is taught."""

    stats: MisconceptionCount
    name: Text | None
    breaks_title: Text | None
    taught_at: str | None  # ``/lessons/<id>#rule-<rule>``


@dataclass(frozen=True)
class ItemRow:
    """One question's statistics with what a page shows of the question."""

    stats: ItemStats
    title: Text
    kind: str
    lesson: str
    rules: tuple[str, ...]
    misconceptions: tuple[MisconceptionRow, ...]


@dataclass(frozen=True)
class RuleRow:
    """One rule's accuracy with its title and where it is taught."""

    stats: RuleStats
    title: Text
    taught_at: str


@dataclass(frozen=True)
class ItemAnalysisReport:
    """The item analysis of a lesson (or every lesson) over a scope, ready to show."""

    lesson: str | None
    scope: str  # "everyone" | "group"
    learners: int
    answers: int
    min_learners: int
    min_variant_answers: int
    items: tuple[ItemRow, ...]
    rules: tuple[RuleRow, ...]


def scope_questions(index: BankIndex, lesson: str | None) -> list[Question]:
    """Return the graded questions in scope, in the bank's teaching order."""
    lessons = [lesson] if lesson is not None else list(index.lessons)
    return [q for lid in lessons for q in index.by_lesson.get(lid, ()) if q.kind in GRADED]


def scope_rules(index: BankIndex, lesson: str | None) -> dict[str, tuple[str, Rule]]:
    """Return the rules in scope in teaching order: id -> (lesson id, rule)."""
    lessons = [lesson] if lesson is not None else list(index.lessons)
    found: dict[str, tuple[str, Rule]] = {}
    for lid in lessons:
        for rule in index.lessons[lid].rules:
            found.setdefault(rule.id, (lid, rule))
    return found


def analysis_job(lesson: str | None, learner_ids: frozenset[int] | None) -> ItemAnalysisReport:
    """Read the first closed-book answers in scope and analyse them (a job for the pool)."""
    runtime = job_runtime()
    bank, index = runtime.bank, runtime.index
    questions = scope_questions(index, lesson)
    with runtime.unit_of_work() as uow, uow.read():
        attempts = uow.item_statistics.first_closed_book(learner_ids,
                                                         [q.id for q in questions])
    rules = scope_rules(index, lesson)
    lesson_of = {q.id: q.lesson for q in questions}
    breaks: dict[str, str] = {}
    names: dict[str, Text] = {}
    for attempt in attempts:
        mid = attempt.misconception_id
        if mid is None or mid in names:
            continue
        info = bank.misconception_info(lesson_of[attempt.question_id], mid)
        if info is not None:
            breaks[mid] = info.breaks
            names[mid] = info.name
    analysis = item_analysis.analyse(
        attempts, {q.id: q.rules for q in questions}, list(rules), breaks)
    return report_of(analysis, lesson, learner_ids, questions, rules, names, index)


def report_of(analysis: ItemAnalysis, lesson: str | None, learner_ids: frozenset[int] | None,
              questions: list[Question], rules: dict[str, tuple[str, Rule]],
              names: dict[str, Text], index: BankIndex) -> ItemAnalysisReport:
    """Dress the analysis with titles, names and lesson links."""
    by_id = {q.id: q for q in questions}

    def rule_link(rule_id: str | None) -> tuple[Text | None, str | None]:
        found = rules.get(rule_id) if rule_id is not None else None
        if found is None:
            return None, None
        lid, rule = found
        return rule.title, index.lessons[lid].rule_link(rule)

    items = tuple(
        ItemRow(stats, by_id[stats.question_id].title, str(by_id[stats.question_id].kind),
                by_id[stats.question_id].lesson, by_id[stats.question_id].rules,
                tuple(MisconceptionRow(m, names.get(m.misconception_id), *rule_link(m.breaks))
                      for m in stats.misconceptions))
        for stats in analysis.items)
    rule_rows = tuple(
        RuleRow(stats, rules[stats.rule_id][1].title, rule_link(stats.rule_id)[1] or "")
        for stats in analysis.rules if stats.rule_id in rules)
    return ItemAnalysisReport(
        lesson=lesson, scope="everyone" if learner_ids is None else "group",
        learners=analysis.learners, answers=analysis.answers,
        min_learners=analysis.min_learners,
        min_variant_answers=item_analysis.MIN_VARIANT_ANSWERS, items=items, rules=rule_rows)


def scope_key(learner_ids: frozenset[int] | None) -> str:
    """Name a scope in a memo key (a digest: a large cohort's ids make a long key)."""
    if learner_ids is None:
        return "everyone"
    joined = ",".join(str(i) for i in sorted(learner_ids))
    return hashlib.sha256(joined.encode()).hexdigest()


def item_analysis_report(ctx: Context, lesson: str | None,
                         learner_ids: frozenset[int] | None = None) -> ItemAnalysisReport:
    """Return the item analysis of ``lesson`` (None: every lesson) over ``learner_ids`` (None:
    every learner); kept until a new counted answer, run on the costly-work pool otherwise.
    An unknown lesson is 404."""
    if lesson is not None:
        ctx.index.lesson(lesson)
    question_ids = [q.id for q in scope_questions(ctx.index, lesson)]
    with ctx.uow.read():
        latest = ctx.uow.item_statistics.latest(learner_ids, question_ids)
    key = ("item-analysis", str(ctx.bank.version), lesson, scope_key(learner_ids), latest)
    found: ItemAnalysisReport | None = ctx.memo.get(key) if ctx.memo is not None else None
    if found is None:
        found = ctx.costly(ANALYSIS_WAIT_SECONDS, analysis_job, lesson, learner_ids)
        if ctx.memo is not None:
            ctx.memo.put(key, found)
    return found


QUESTION_COLUMNS = (
    "question_id", "lesson", "kind", "title_zh", "title_en", "answers", "learners", "right",
    "facility", "variants", "hardest_variant_facility", "easiest_variant_facility",
    "median_seconds", "discrimination", "discrimination_learners", "rules",
    "misconceptions")
RULE_COLUMNS = ("rule_id", "title_zh", "title_en", "taught_at", "questions", "answers", "right",
                "accuracy", "misconception_answers")


def figure(value: float | None, digits: int = 3) -> str:
    """Write a figure for a spreadsheet: rounded, empty when there is none."""
    return "" if value is None else f"{value:.{digits}f}"


def report_csv(report: ItemAnalysisReport, table: str) -> tuple[str, str]:
    """Return a file name and the CSV of the report's questions (``table`` "csv") or rules
    ("rules-csv"): one row each, figures as the API gives them, blank where none is given."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    scope = report.lesson or "all-lessons"
    if table == "rules-csv":
        writer.writerow(RULE_COLUMNS)
        for rule in report.rules:
            writer.writerow((rule.stats.rule_id, rule.title.zh, rule.title.en, rule.taught_at,
                             " ".join(rule.stats.questions), rule.stats.answers,
                             rule.stats.right, figure(rule.stats.accuracy),
                             rule.stats.misconception_answers))
        return f"item-analysis-rules-{scope}.csv", out.getvalue()
    writer.writerow(QUESTION_COLUMNS)
    for item in report.items:
        stats = item.stats
        spread = stats.spread
        writer.writerow((
            stats.question_id, item.lesson, item.kind, item.title.zh, item.title.en,
            stats.answers, stats.learners, stats.right, figure(stats.facility),
            len(stats.variants), figure(spread.lowest if spread else None),
            figure(spread.highest if spread else None),
            figure(stats.median_ms / 1000 if stats.median_ms is not None else None, 1),
            figure(stats.discrimination.index), stats.discrimination.learners,
            " ".join(item.rules),
            "; ".join(f"{m.stats.misconception_id} ({m.stats.breaks or '?'}): {m.stats.count}"
                      for m in item.misconceptions)))
    return f"item-analysis-{scope}.csv", out.getvalue()



def cohort_item_analysis(ctx: Context, cohort_id: int, token: str) -> ItemAnalysisReport:
    """Return the item analysis of a cohort's lesson over its members now, for the instructor
    whose token opens it (``NotFound`` otherwise: never whose cohort it is)."""
    cohort = cohorts.instructor_cohort(ctx.uow, cohort_id, token)
    return item_analysis_report(ctx, cohort.lesson,
                                cohorts.member_learner_ids(ctx.uow, cohort.id))
