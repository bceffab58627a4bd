"""Question kinds as a registry: one module per kind, and one table of them all.

Each kind is one ``Kind`` subclass in its own module (as CTFd registers its challenge types):
its question-file schema, its variant builder, its grader (graded kinds) or answer check
(self-rated kinds), how the question page's form posts its answer, and the page template that
draws that form. ``KINDS`` maps a kind's name (the ``kind:`` of a question file, a
``QuestionKind`` for the kinds the bank ships) to its kind; every other module looks a
question's kind up here, and the sets below are the one place the kinds are grouped.

Adding a kind: write ``kinds/<name>.py`` and its template ``web/templates/kinds/<name>.html``
(extending ``kinds/_answer.html``), then list it in ``KINDS``. Exports write a variant by its
answer input (``AnswerInput.type``): a kind whose variants answer as an existing input does
(one option, a set, an order, numbers) goes to Anki, worksheets and LMS formats unchanged.
``tests/bank/test_kinds.py`` adds a toy kind to a copy of the table to prove it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from quizsvc.bank.kinds.anchor import ANCHOR
from quizsvc.bank.kinds.base import Kind, VariantSource
from quizsvc.bank.kinds.choice import CHOICE
from quizsvc.bank.kinds.explain import EXPLAIN
from quizsvc.bank.kinds.flashcard import FLASHCARD
from quizsvc.bank.kinds.multi import MULTI
from quizsvc.bank.kinds.numeric import NUMERIC
from quizsvc.bank.kinds.order import ORDER


def table(*kinds: Kind) -> Mapping[str, Kind]:
    """Return a read-only table of ``kinds`` by name, in the order given (the order a section
    lists questions of the same group in, ``Bank.teaching_order``)."""
    return MappingProxyType({kind.name: kind for kind in kinds})


KINDS = table(NUMERIC, CHOICE, MULTI, ORDER, ANCHOR, FLASHCARD, EXPLAIN)

# Graded from an answer key on the server; only these answers can become mastery.
GRADED = frozenset(name for name, kind in KINDS.items() if kind.graded)
# Rated by the learner (flashcards, explanations): stored, revealed at once, never graded.
SELF_RATED = frozenset(KINDS) - GRADED
# Held to ``content.MIN_DISTINCT_CONTENTS`` distinct contents by ``bank check``.
VARIED = frozenset(name for name, kind in KINDS.items() if kind.varied)

__all__ = ["GRADED", "KINDS", "SELF_RATED", "VARIED", "Kind", "VariantSource", "table"]
