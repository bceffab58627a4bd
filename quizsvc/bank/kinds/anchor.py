"""The anchor kind: which file, function or field of vLLM 0.33.0 holds something.

Written and graded exactly as a choice question, drawn by the same page inputs; it differs in
what it asks, so it is its own kind. An anchor asks one thing in one form: its content does
not vary, so ``bank check`` does not hold it to a number of contents (it is never mastered on
its own).
"""

from __future__ import annotations

from quizsvc.bank.kinds.choice import Choice
from quizsvc.bank.model import QuestionKind


class Anchor(Choice):
    """Ask where in the vLLM source something lives; graded like a single choice."""

    name = QuestionKind.ANCHOR
    varied = False


ANCHOR = Anchor()
