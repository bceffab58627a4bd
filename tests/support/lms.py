"""Helpers for the LMS export tests: plain text out of exported HTML, and odd variants."""

from __future__ import annotations

import html
import re
from dataclasses import replace

from quizsvc.bank.catalog import Bank
from quizsvc.bank.lms.exercises import ExerciseSet, ExportItem
from quizsvc.bank.model import AnswerInput, Misconception, Option, Text, Variant

TAG = re.compile(r"<[^>]+>")
BREAK = re.compile(r"<(?:br|/?div|/?p)\b[^>]*>")
NASTY = Text("“]]> <script>alert(1)</script> & {1:NUMERICAL:=1} ~ # } \\ 中文”",
             "“]]> <script>alert(1)</script> & {1:NUMERICAL:=1} ~ # } \\ English”")


def plain_text(fragment: str) -> str:
    """Return what a reader sees of an HTML fragment: tags gone, references decoded."""
    return " ".join(html.unescape(TAG.sub("", BREAK.sub(" ", fragment))).split())


def expected_plain(text: str) -> str:
    """Return how bank text reads once rendered (``code`` spans lose their backticks)."""
    return " ".join(text.replace("`", "").split())


def single_set(bank: Bank, variant: Variant) -> ExerciseSet:
    """Return an exercise set holding one (possibly hand-changed) variant."""
    question = bank.questions[variant.question_id]
    return ExerciseSet(question.lesson, 7, bank.version, (ExportItem(question, (variant,)),))


def scalar_variant(bank: Bank) -> Variant:
    """Return a numeric variant turned into a single-number one (the bank has none yet),
    with two wrong models, one of them giving the same wrong number as the other."""
    real = bank.variant("spec-demand", 2**48 + 3)
    models = (Misconception("drafts-counted-twice", NASTY, 9),
              Misconception("computed-waits-for-acceptance", Text("乙", "B"), 9),
              Misconception("no-rollback", Text("丙", "C"), 0))
    return replace(real, input=AnswerInput("integer"), answer=7, misconceptions=models,
                   prompt=NASTY)


def nasty_choice(bank: Bank) -> Variant:
    """Return a choice variant whose prompt, options, wrong model and solution hold text
    that looks like markup, CDATA's end and Cloze syntax."""
    real = bank.variant("choice-eight-computed", 2**48 + 1)
    options = tuple(Option(o.id, NASTY) if i == 0 else o
                    for i, o in enumerate(real.input.options))
    wrong = tuple(replace(m, name=NASTY) for m in real.misconceptions)
    return replace(real, prompt=NASTY, solution=NASTY, misconceptions=wrong,
                   input=replace(real.input, options=options))


def nasty_vector(bank: Bank) -> Variant:
    """Return a vector variant whose prompt, labels and wrong model names look like markup."""
    real = bank.variant("mixed-step-allocation", 2**48 + 1)
    wrong = tuple(replace(m, name=NASTY) for m in real.misconceptions)
    labels = ("}~#", *real.input.labels[1:])
    return replace(real, prompt=NASTY, misconceptions=wrong,
                   input=replace(real.input, labels=labels))
