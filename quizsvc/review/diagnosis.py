"""Grade a wrong answer's explanation as a diagnosis, without grading its prose.

After a wrong answer the learner names the rule of the lesson they think they broke, from a
short list of the lesson's rules (``offered_rules``), and writes a sentence of at least a
few words (``written_enough``). Where the answer matched a named wrong model, the diagnosis
is right when it names the rule that model breaks (``rules.yaml``'s ``breaks``); where none
matched there is nothing to grade it against. ``accuracy_by_week`` counts, week by week, how
often the learner named it. A diagnosis is never mastery evidence: ``review.mastery`` reads
no field of it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from quizsvc.bank.model import Lesson, Question, Rule

MIN_WORDS = 3  # words of a language written with spaces
MIN_HAN = 6  # characters of Chinese (two count as one word)
HAN_PER_WORD = 2
WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")  # letters or digits, no punctuation alone


def is_han(char: str) -> bool:
    """Tell whether ``char`` is a CJK ideograph (Chinese is written without spaces)."""
    return unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")


def sentence_size(text: str) -> float:
    """Count the words of ``text``: each spaced word one, each two Chinese characters one.

    "?" and a run of punctuation count nothing; mixed text ("C 回退了") adds both.
    """
    han = sum(1 for char in text if is_han(char))
    spaced = WORD.findall("".join(" " if is_han(char) else char for char in text))
    return len(spaced) + han / HAN_PER_WORD


def written_enough(text: str) -> bool:
    """Tell whether an explanation is a sentence: at least ``MIN_WORDS`` words, or
    ``MIN_HAN`` Chinese characters, or a mix worth as much."""
    return sentence_size(text) >= MIN_WORDS


def offered_rules(lesson: Lesson, question: Question, breaks: Iterable[str]) -> tuple[Rule, ...]:
    """Return the rules a learner may name as broken by a wrong answer to ``question``.

    The question's own rules, the rules its named wrong models break (``breaks``, of every
    wrong model the question names, so the list says nothing of which one the answer
    matched) and, as plausible neighbours, every other rule of the sections those rules are
    taught in; in the lesson's teaching order. Nothing here depends on the learner's answer.
    """
    named = {*question.rules, *breaks}
    sections = {rule.section for rule in lesson.rules if rule.id in named}
    return tuple(rule for rule in lesson.rules if rule.id in named or rule.section in sections)


def diagnosis_matched(diagnosed: str | None, breaks: str | None) -> bool | None:
    """Tell whether a diagnosis names the rule the matched wrong model breaks.

    None when there is nothing to grade: no rule was named, or no wrong model matched.
    """
    if diagnosed is None or breaks is None:
        return None
    return diagnosed == breaks


@dataclass(frozen=True)
class DiagnosisWeek:
    """One week (from Monday, UTC) of graded diagnoses: how many named the broken rule."""

    week: date
    diagnoses: int
    named: int

    @property
    def rate(self) -> float:
        """Return the share of the week's graded diagnoses that named the broken rule."""
        return self.named / self.diagnoses


def week_of(when: datetime) -> date:
    """Return the Monday (UTC) of the week ``when`` falls in."""
    day = when.astimezone(UTC).date()
    return day - timedelta(days=day.weekday())


def accuracy_by_week(graded: Iterable[tuple[datetime, bool]]) -> tuple[DiagnosisWeek, ...]:
    """Count graded diagnoses by week, oldest first: ``graded`` pairs each diagnosis's time
    with whether it named the rule its matched wrong model breaks."""
    weeks: dict[date, list[int]] = {}
    for when, named in graded:
        counts = weeks.setdefault(week_of(when), [0, 0])
        counts[0] += 1
        counts[1] += int(named)
    return tuple(DiagnosisWeek(week, total, named)
                 for week, (total, named) in sorted(weeks.items()))
