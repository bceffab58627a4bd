"""Say how each question and each rule fared over a group of learners (Moodle's quiz
statistics, PrairieLearn's question statistics), from their first closed-book answers.

The input is one ``FirstAttempt`` per learner, question and variant (what the variant asked,
``mastery.variant_identity``): the learner's first server-graded closed-book answer to it.
Later answers to the same content recall a reveal or a first try, not the rule, and open-book
or practice answers never count (the store's query keeps only those ``mastery.READ`` and
``closed_book`` allow). From them, per question:

- **facility**: the share right; and its spread over variants (does some content make the
  question much harder?), each variant with its count and one seed that drew it;
- **median time**: from serving to the answer (``attempt.duration_ms``, the server's clock);
- **discrimination**: Moodle's discrimination index, the correlation between a learner's
  score on this question (share right over its variants: 0 or 1 when they met one) and their
  score on the rest of the bank in scope (share right, this question excluded). Over
  dichotomous item scores it is the point-biserial correlation with the rest score. It rests
  on the learners who answered both; under ``MIN_LEARNERS`` of them no figure is given;
- **misconceptions matched**, by frequency, each with the rule it breaks.

And per rule: accuracy over every answer to a question that tests it, so a teacher sees which
rule the class has not learned.

Pure: values in, values out, no clock, no database, no Flask.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from quizsvc.review import mastery

# What an analysed answer is, as the ``attempt`` fields it tests (the store's query is built
# from it): server-graded (``mastery.READ``) and closed-book (stored false for an open-book
# answer and for practice just after a reveal).
COUNTED: mastery.Condition = (*mastery.READ, ("closed_book", True))
# A discrimination figure over fewer learners than this is mostly noise (Moodle warns below
# a similar count); none is given.
MIN_LEARNERS = 20
# A variant's facility is compared with the others only over this many answers to it.
MIN_VARIANT_ANSWERS = 5


@dataclass(frozen=True)
class FirstAttempt:
    """A learner's first graded closed-book answer to one variant (what it asked) of a
    question.

    ``diagnosed_rule`` is the rule the diagnosis of the learner's explanation named (None: no
    explanation, or one written before explanations named a rule).
    """

    learner_id: int
    question_id: str
    variant: str  # ``mastery.variant_identity``: the content key, else seed and bank version
    seed: int
    correct: bool
    duration_ms: int
    misconception_id: str | None = None
    explained: bool = False
    diagnosed_rule: str | None = None


@dataclass(frozen=True)
class VariantFacility:
    """One variant of a question: how many first answers it had, how many were right."""

    variant: str
    seed: int  # one seed that drew it (an author previews it at /api/author/variants)
    answers: int
    right: int

    @property
    def facility(self) -> float:
        """Return the share of its answers that were right."""
        return self.right / self.answers


@dataclass(frozen=True)
class Spread:
    """How far apart the question's variants lie: the hardest and the easiest variant with at
    least ``MIN_VARIANT_ANSWERS`` answers, and how many variants had that many."""

    compared: int
    lowest: float
    highest: float

    @property
    def gap(self) -> float:
        """Return the easiest variant's facility minus the hardest's."""
        return self.highest - self.lowest


@dataclass(frozen=True)
class MisconceptionCount:
    """A misconception matched by wrong first answers to a question, and the rule it breaks.

    ``diagnosed_share``: of those answers the learner explained with a diagnosis, the share
    whose diagnosis named the rule it breaks (None: no such explanation).
    """

    misconception_id: str
    breaks: str | None  # the rule's id (``rules.yaml``); None if the bank no longer says
    count: int
    share_of_wrong: float
    explained: int
    diagnosed_share: float | None


@dataclass(frozen=True)
class Discrimination:
    """Moodle's discrimination index of a question and the learners it rests on.

    ``index`` is None under ``MIN_LEARNERS`` learners, or when item or rest scores do not
    vary (everyone right, or everyone alike on the rest).
    """

    learners: int
    index: float | None


@dataclass(frozen=True)
class ItemStats:
    """One question's statistics over the first closed-book answers in scope."""

    question_id: str
    answers: int
    learners: int
    right: int
    median_ms: int | None
    variants: tuple[VariantFacility, ...]  # hardest first
    spread: Spread | None  # None: fewer than two variants with enough answers
    discrimination: Discrimination
    misconceptions: tuple[MisconceptionCount, ...]  # most frequent first

    @property
    def facility(self) -> float | None:
        """Return the share of first answers that were right (None without answers)."""
        return self.right / self.answers if self.answers else None


@dataclass(frozen=True)
class RuleStats:
    """One rule: accuracy over every first answer to a question that tests it, and the wrong
    answers whose misconception breaks it."""

    rule_id: str
    questions: tuple[str, ...]  # the questions that test it and were answered
    answers: int
    right: int
    misconception_answers: int

    @property
    def accuracy(self) -> float | None:
        """Return the share right (None without answers)."""
        return self.right / self.answers if self.answers else None


@dataclass(frozen=True)
class ItemAnalysis:
    """The whole analysis: per question in the bank's order, per rule in the bank's order."""

    answers: int
    learners: int
    min_learners: int
    items: tuple[ItemStats, ...]
    rules: tuple[RuleStats, ...]


def discrimination_index(item: Sequence[float], rest: Sequence[float],
                         min_learners: int = MIN_LEARNERS) -> float | None:
    """Return the correlation of item scores with rest scores (one pair per learner), or None
    under ``min_learners`` pairs or when either side does not vary."""
    if len(item) != len(rest):
        raise ValueError("one item score and one rest score per learner")
    if len(item) < min_learners or len(set(item)) < 2 or len(set(rest)) < 2:
        return None
    return statistics.correlation(item, rest)


def learner_scores(attempts: Iterable[FirstAttempt]) -> dict[int, dict[str, tuple[int, int]]]:
    """Return, per learner and question, (answers, right) over the learner's first answers."""
    scores: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for attempt in attempts:
        tally = scores[attempt.learner_id][attempt.question_id]
        tally[0] += 1
        tally[1] += int(attempt.correct)
    return {learner: {q: (n, right) for q, (n, right) in by_q.items()}
            for learner, by_q in scores.items()}


def discrimination_of(question_id: str, scores: Mapping[int, Mapping[str, tuple[int, int]]],
                      min_learners: int = MIN_LEARNERS) -> Discrimination:
    """Return a question's discrimination over the learners who answered it and something
    else (their rest score: share right on the other questions)."""
    item: list[float] = []
    rest: list[float] = []
    for by_question in scores.values():
        mine = by_question.get(question_id)
        others = [tally for q, tally in by_question.items() if q != question_id]
        if mine is None or not others:
            continue
        item.append(mine[1] / mine[0])
        rest.append(sum(right for _, right in others) / sum(n for n, _ in others))
    return Discrimination(len(item), discrimination_index(item, rest, min_learners))


def variant_spread(variants: Sequence[VariantFacility],
                   min_answers: int = MIN_VARIANT_ANSWERS) -> Spread | None:
    """Return the spread of the variants with at least ``min_answers`` answers (None: fewer
    than two such variants)."""
    compared = [v.facility for v in variants if v.answers >= min_answers]
    if len(compared) < 2:
        return None
    return Spread(len(compared), min(compared), max(compared))


def misconception_counts(attempts: Sequence[FirstAttempt], breaks: Mapping[str, str]
                         ) -> tuple[MisconceptionCount, ...]:
    """Count the misconceptions a question's wrong answers matched, most frequent first."""
    wrong = [a for a in attempts if not a.correct]
    matched = Counter(a.misconception_id for a in wrong if a.misconception_id is not None)
    found = []
    for misconception_id, count in sorted(matched.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = breaks.get(misconception_id)
        explained = [a for a in wrong if a.misconception_id == misconception_id and a.explained]
        diagnosed = [a for a in explained if a.diagnosed_rule is not None]
        share = (sum(a.diagnosed_rule == rule for a in diagnosed) / len(diagnosed)
                 if diagnosed and rule is not None else None)
        found.append(MisconceptionCount(misconception_id, rule, count, count / len(wrong),
                                        len(explained), share))
    return tuple(found)


def item_stats(question_id: str, attempts: Sequence[FirstAttempt],
               scores: Mapping[int, Mapping[str, tuple[int, int]]], breaks: Mapping[str, str],
               min_learners: int = MIN_LEARNERS) -> ItemStats:
    """Return one question's statistics from its first answers (``attempts``) and every
    learner's scores in scope (for the rest score)."""
    by_variant: dict[str, list[FirstAttempt]] = defaultdict(list)
    for attempt in attempts:
        by_variant[attempt.variant].append(attempt)
    variants = sorted(
        (VariantFacility(key, min(a.seed for a in group), len(group),
                         sum(a.correct for a in group)) for key, group in by_variant.items()),
        key=lambda v: (v.facility, -v.answers, v.variant))
    return ItemStats(
        question_id=question_id,
        answers=len(attempts),
        learners=len({a.learner_id for a in attempts}),
        right=sum(a.correct for a in attempts),
        median_ms=int(statistics.median(a.duration_ms for a in attempts)) if attempts else None,
        variants=tuple(variants),
        spread=variant_spread(variants),
        discrimination=discrimination_of(question_id, scores, min_learners),
        misconceptions=misconception_counts(attempts, breaks),
    )


def rule_stats(rule_id: str, tested_by: Sequence[str],
               by_question: Mapping[str, Sequence[FirstAttempt]], breaks: Mapping[str, str]
               ) -> RuleStats:
    """Return a rule's accuracy over the first answers to every question that tests it."""
    answered = [q for q in tested_by if by_question.get(q)]
    attempts = [a for q in answered for a in by_question[q]]
    return RuleStats(
        rule_id=rule_id,
        questions=tuple(answered),
        answers=len(attempts),
        right=sum(a.correct for a in attempts),
        misconception_answers=sum(
            1 for q_attempts in by_question.values() for a in q_attempts
            if not a.correct and a.misconception_id is not None
            and breaks.get(a.misconception_id) == rule_id),
    )


def analyse(attempts: Iterable[FirstAttempt], questions: Mapping[str, Sequence[str]],
            rules: Sequence[str], breaks: Mapping[str, str],
            min_learners: int = MIN_LEARNERS) -> ItemAnalysis:
    """Analyse first closed-book answers over a bank in scope.

    ``questions`` maps each graded question in scope, in the bank's order, to the rules it
    tests; ``rules`` are the rules in scope in teaching order; ``breaks`` maps a misconception
    to the rule it breaks. Answers to questions not in ``questions`` are left out (a question
    the bank no longer has).
    """
    kept = [a for a in attempts if a.question_id in questions]
    by_question: dict[str, list[FirstAttempt]] = defaultdict(list)
    for attempt in kept:
        by_question[attempt.question_id].append(attempt)
    scores = learner_scores(kept)
    items = tuple(item_stats(q, by_question.get(q, []), scores, breaks, min_learners)
                  for q in questions)
    tested_by: dict[str, list[str]] = {rule: [] for rule in rules}
    for question_id, question_rules in questions.items():
        for rule in question_rules:
            tested_by.setdefault(rule, []).append(question_id)
    return ItemAnalysis(
        answers=len(kept),
        learners=len(scores),
        min_learners=min_learners,
        items=items,
        rules=tuple(rule_stats(rule, tested_by[rule], by_question, breaks)
                    for rule in tested_by),
    )
