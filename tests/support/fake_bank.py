"""A small in-memory question bank with the real bank's interface, for service tests.

It implements what the service calls on ``quizsvc.bank.Bank`` (``version``, ``lessons``,
``questions``, ``questions_for``, ``variant``, ``lesson_text``; ``grade`` and ``grade_key`` are
the real bank's) with one question of each kind the service treats differently: a numeric
vector (partial credit and a misconception), a single choice, a flashcard and a free-text
explanation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizsvc.bank.grading import Grader
from quizsvc.bank.loader import MisconceptionInfo
from quizsvc.bank.model import (
    AnswerInput,
    Lesson,
    Misconception,
    Option,
    Question,
    QuestionKind,
    Rule,
    Section,
    SourceAnchor,
    Text,
    Variant,
)

LESSON_ID = "27-vllm-v1-ledger"
BUDGET_ANCHOR = SourceAnchor("vllm/v1/core/sched/scheduler.py", "schedule", (800, 871))


# The graded questions test one rule and name one wrong model (which breaks it): a wrong
# answer's diagnosis is offered both rules of their section, "budget".
GRADED_RULES = {"budget-split": ("even-split",), "running-first": ("fifo",)}


def question(qid: str, kind: QuestionKind, section: str) -> Question:
    """Build a fake question in the fake lesson."""
    wrong_models = GRADED_RULES.get(qid, ())
    return Question(id=qid, lesson=LESSON_ID, kind=kind, section=section, tags=("fake",),
                    anchors=(BUDGET_ANCHOR,), title=Text(zh=f"题 {qid}", en=f"Question {qid}"),
                    rules=("running-first",) if wrong_models else (),
                    misconceptions=wrong_models)


@dataclass
class FakeBank(Grader):
    """Serve four deterministic questions; ``variant`` depends only on (question, seed).

    Like ``quizsvc.bank.Bank``, ``lessons`` and ``questions`` are dicts by id; it grades with
    the real bank's grading (``Grader``: each kind's own grader), only its variants are
    written by hand.
    """

    version: str = "fake-1"
    lessons: dict[str, Lesson] = field(default_factory=lambda: {LESSON_ID: Lesson(
        id=LESSON_ID, title=Text(zh="vLLM 调度账本", en="The vLLM scheduling ledger"),
        sections=(Section("budget", Text(zh="预算", en="Budgets")),
                  Section("spec", Text(zh="投机", en="Speculation"))),
        rules=(Rule("running-first", Text(zh="先 running", en="Running first"), "budget"),
               Rule("two-budgets", Text(zh="两个预算", en="Two budgets"), "budget"),
               Rule("rollback", Text(zh="回退", en="Rollback"), "spec")))})
    questions: dict[str, Question] = field(default_factory=lambda: {q.id: q for q in (
        question("budget-split", QuestionKind.NUMERIC, "budget"),
        question("running-first", QuestionKind.CHOICE, "budget"),
        question("computed-card", QuestionKind.FLASHCARD, "spec"),
        question("why-rollback", QuestionKind.EXPLAIN, "spec"),
    )})
    calls: dict[str, int] = field(default_factory=dict)
    # The lesson's catalogue of wrong models: the variants' misconceptions name these.
    catalogue: dict[str, MisconceptionInfo] = field(default_factory=lambda: {
        "even-split": MisconceptionInfo(
            "even-split", Text(zh="平分", en="Split evenly"),
            Text(zh="把预算平分给每个请求。", en="Splits the budget evenly between requests."),
            "running-first"),
        "fifo": MisconceptionInfo(
            "fifo", Text(zh="先来先服务", en="FIFO"),
            Text(zh="先给 waiting。", en="Serves the waiting queue first."), "running-first"),
    })

    def misconception_info(self, lesson_id: str, misconception_id: str
                           ) -> MisconceptionInfo | None:
        """Return a named wrong model of the lesson's catalogue."""
        return self.catalogue.get(misconception_id) if lesson_id == LESSON_ID else None

    def model_step(self, question_id: str, seed: int, misconception_id: str, lang: str,
                   answer: Any) -> None:
        """The fake bank's wrong models are written by hand: none has a replayed step."""
        return None

    def questions_for(self, lesson_id: str) -> tuple[Question, ...]:
        """Return the questions of one lesson, in bank order."""
        return tuple(q for q in self.questions.values() if q.lesson == lesson_id)

    def question(self, question_id: str) -> Question:
        """Return one question or raise KeyError."""
        return self.questions[question_id]

    def entry(self, question_id: str) -> str:
        """Return what ``make_variant`` builds from (the real bank's loaded entry)."""
        return self.question(question_id).id

    def make_variant(self, entry: str, seed: int) -> Variant:
        """Build a variant outside any cache, as the real bank's ``make_variant`` does."""
        return self.variant(entry, seed)

    def variant(self, question_id: str, seed: int) -> Variant:
        """Build the variant of ``question_id`` for ``seed`` (KeyError if unknown)."""
        self.calls[question_id] = self.calls.get(question_id, 0) + 1
        q = self.question(question_id)
        common = {"question_id": q.id, "seed": seed, "bank_version": self.version,
                  "kind": q.kind, "lesson_link": f"/lessons/{LESSON_ID}#{q.section}"}
        if q.kind is QuestionKind.NUMERIC:
            need_a = 1 + seed % 5
            need_b = 10 + seed % 97  # B always wants more than is left: the answer ignores it
            budget = 8
            answer = [need_a, budget - need_a]
            return Variant(
                **common,
                prompt=Text(zh=f"预算{budget},A需{need_a},B需{need_b}。分配?",
                            en=f"Budget {budget}; A needs {need_a}, B needs {need_b}. "
                               "Allocation?"),
                params={"token_budget": budget, "demand_A": need_a, "demand_B": need_b},
                input=AnswerInput(type="vector", length=2, labels=("A", "B")),
                answer=answer,
                solution=Text(zh="running 先分配。", en="Running requests are served first."),
                misconceptions=(Misconception("even-split", Text(zh="平分", en="Split evenly"),
                                              [budget // 2, budget // 2]),),
                scenario={"config": {"max_num_batched_tokens": budget}, "requests": []},
                answer_ref=("/steps/0/schedule/num_scheduled_tokens/A",
                            "/steps/0/schedule/num_scheduled_tokens/B"),
            )
        if q.kind is QuestionKind.CHOICE:
            return Variant(
                **common,
                # Three forms, as a concept check of the real bank has: mastery wants two.
                prompt=Text(zh=f"第 {1 + seed % 3} 步:谁先获得预算?",
                            en=f"Step {1 + seed % 3}: which queue gets budget first?"),
                params={},
                input=AnswerInput(type="choice", options=(
                    Option("running", Text(zh="running", en="running")),
                    Option("waiting", Text(zh="waiting", en="waiting")))),
                answer="running",
                solution=Text(zh="running 先。", en="running first."),
                misconceptions=(Misconception("fifo", Text(zh="先来先服务", en="FIFO"),
                                              "waiting"),),
            )
        if q.kind is QuestionKind.FLASHCARD:
            return Variant(
                **common, prompt=Text(zh="num_computed_tokens 是什么?",
                                      en="What is num_computed_tokens?"),
                params={}, input=AnswerInput(type="flashcard"), answer=None,
                solution=Text(zh="调度账本。", en="The scheduling ledger."))
        return Variant(
            **common, prompt=Text(zh="为什么 C 回退?", en="Why does C roll back?"),
            params={}, input=AnswerInput(type="text"), answer=None,
            solution=Text(zh="被拒绝的 draft。", en="Rejected drafts."))

    def lesson_text(self, lesson_id: str, lang: str) -> str:
        """Return the lesson's text (KeyError for an unknown lesson)."""
        if lesson_id != LESSON_ID:
            raise KeyError(lesson_id)
        return "同一个队列不代表同一种计算" if lang != "en" else "One queue, many computations"


def flashcard_bank() -> FakeBank:
    """Return a fake bank with three flashcards between graded and free-text questions."""
    return FakeBank(questions={q.id: q for q in (
        question("budget-split", QuestionKind.NUMERIC, "budget"),
        question("computed-card", QuestionKind.FLASHCARD, "spec"),
        question("running-first", QuestionKind.CHOICE, "budget"),
        question("draft-card", QuestionKind.FLASHCARD, "spec"),
        question("why-rollback", QuestionKind.EXPLAIN, "spec"),
        question("budget-card", QuestionKind.FLASHCARD, "budget"),
    )})
