"""Grade a learner's raw answer against a variant, on the server, exactly.

Each graded kind grades its own answers (``quizsvc.bank.kinds``); this module looks the kind
up. An answer that cannot be read (not a number, the wrong length, an unknown option) is not
graded at all: it is refused with ``quizsvc.errors.Invalid`` on ``answer``, which costs the
learner no attempt. Self-rated kinds (flashcards, explanations) are never graded: their
answers are checked by their kind's ``check_answer`` and stored.

Grading reads only a variant's ``AnswerKey`` (``grade_key``), so the service can grade from a
key it stored when it served the variant instead of rebuilding the variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.errors import BankError
from quizsvc.bank.kinds import KINDS, Kind
from quizsvc.bank.model import Grade, Variant


def grade(variant: Variant, raw: Any, kinds: Mapping[str, Kind] = KINDS) -> Grade:
    """Grade ``raw`` (what a client sent: a JSON value or a string) against ``variant``.

    A variant is graded through its answer key, so grading from a built variant and from a
    stored key cannot drift apart.
    """
    return grade_key(AnswerKey.from_variant(variant), raw, kinds)


def grade_key(key: AnswerKey, raw: Any, kinds: Mapping[str, Kind] = KINDS) -> Grade:
    """Grade ``raw`` against a variant's answer key, without rebuilding the variant
    (``errors.Invalid`` when it cannot be read)."""
    return kinds[key.kind].grade(key, raw)


class Grader:
    """Grade answers to the variants of one bank version: the bank's grading, which the
    service tests' fake bank shares, so it grades exactly as the real one does.

    ``version`` is the bank's version; ``kinds`` the table the kinds are looked up in.
    """

    version: str
    kinds: Mapping[str, Kind] = KINDS

    def grade(self, variant: Variant, raw_answer: Any) -> Grade:
        """Grade a raw answer (a JSON value or a string) against a variant of this bank."""
        if variant.bank_version != self.version:
            raise BankError(
                "variant", "bank_version", "the variant belongs to another bank version"
            )
        return grade(variant, raw_answer, self.kinds)

    def grade_key(self, key: AnswerKey, raw_answer: Any) -> Grade:
        """Grade a raw answer against a stored answer key of this bank (no variant rebuilt)."""
        if key.bank_version != self.version:
            raise BankError(
                "variant", "bank_version", "the answer key belongs to another bank version"
            )
        return grade_key(key, raw_answer, self.kinds)
