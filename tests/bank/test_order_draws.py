"""An order question's shown order is drawn uniformly from every order, the answer's included.

If the answer's order were never shown, the one order that never appears across served
variants would be the answer: enough throwaway learners would find it without knowing anything.
"""

from __future__ import annotations

import math
from collections import Counter

from quizsvc.bank import load_bank
from quizsvc.bank.model import QuestionKind

DRAWS = 2000


def test_every_order_is_shown_about_equally_often_the_answer_s_included() -> None:
    bank = load_bank()
    question = min((q for q in bank.questions.values() if q.kind is QuestionKind.ORDER),
                   key=lambda q: len(bank.variant(q.id, 0).answer))
    items = len(bank.variant(question.id, 0).answer)
    orders = math.factorial(items)
    assert orders <= 24, "the test wants an order question of at most four items"
    seen = Counter(tuple(o.id for o in bank.variant(question.id, seed).input.options)
                   for seed in range(DRAWS))
    answer = tuple(bank.variant(question.id, 0).answer)
    assert len(seen) == orders and seen[answer] > 0
    expected = DRAWS / orders
    chi_square = sum((count - expected) ** 2 / expected for count in seen.values())
    # chi-square with orders - 1 degrees of freedom: 23 d.o.f. has p = 0.001 at about 49.7
    assert chi_square < 50, (chi_square, seen.most_common(3))
