"""An order question's shown order is drawn uniformly from every order, the answer's included.

If the answer's order were never shown, the one order that never appears across served
variants would be the answer: enough throwaway learners would find it without knowing anything.
"""

from __future__ import annotations

import math
from collections import Counter

from quizsvc.bank import load_bank
from quizsvc.bank.model import QuestionKind

DRAWS = 8000  # the question draws 3 of 7 steps: 35 sets of 6 orders each


def test_every_order_is_shown_about_equally_often_the_answer_s_included() -> None:
    """For each set of items an order question draws (its form, its subset of the steps),
    every order of them is shown, about equally often."""
    bank = load_bank()
    question = min((q for q in bank.questions.values() if q.kind is QuestionKind.ORDER),
                   key=lambda q: len(bank.variant(q.id, 0).answer))
    shown: dict[tuple[object, ...], Counter[tuple[str, ...]]] = {}
    answers: dict[tuple[object, ...], tuple[str, ...]] = {}
    for seed in range(DRAWS):
        variant = bank.variant(question.id, seed)
        items = (variant.form, tuple(variant.answer))
        shown.setdefault(items, Counter())[tuple(o.id for o in variant.input.options)] += 1
        answers[items] = tuple(variant.answer)
    for form, seen in shown.items():
        orders = math.factorial(len(answers[form]))
        assert orders <= 24, "the test wants an order question of at most four items"
        draws = sum(seen.values())
        assert draws >= 20 * orders, (form, draws)
        assert len(seen) == orders and seen[answers[form]] > 0, (form, seen)
        expected = draws / orders
        chi_square = sum((count - expected) ** 2 / expected for count in seen.values())
        # chi-square with orders - 1 degrees of freedom (at most 23): p = 0.001 near 49.7
        assert chi_square < 50, (form, chi_square, seen.most_common(3))
