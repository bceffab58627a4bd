"""Draw what a question with options shows: one of its authored forms, and the options of it
a seed puts in front of the learner, shuffled.

Shared by the kinds that answer with option ids (choice, anchor, multi, order). Every draw
comes from the variant's own random stream, in the same order every time, so a seed always
shows the same form and the same options in the same places.
"""

from __future__ import annotations

import random
from typing import Any

from quizsvc.bank.kinds.base import VariantSource
from quizsvc.bank.model import AnswerInput, Misconception, Option, Variant
from quizsvc.bank.schema import text


def pick_form(forms: list[dict[str, Any]], rng: random.Random) -> tuple[int, dict[str, Any]]:
    """Draw one authored form (a question written once has exactly one)."""
    index = rng.randrange(len(forms)) if len(forms) > 1 else 0
    return index, forms[index]


def draw_pool(options: list[dict[str, Any]], right: set[str], draw: dict[str, int],
              rng: random.Random) -> list[dict[str, Any]]:
    """Draw ``draw["right"]`` right and ``draw["wrong"]`` wrong options from a pool, in pool
    order (the caller shuffles what is shown)."""
    good = [i for i, o in enumerate(options) if o["id"] in right]
    bad = [i for i, o in enumerate(options) if o["id"] not in right]
    keep = set(rng.sample(good, draw["right"])) | set(rng.sample(bad, draw["wrong"]))
    return [o for i, o in enumerate(options) if i in keep]


def shown(options: list[dict[str, Any]]) -> tuple[Option, ...]:
    """Return validated options (or items) as the variant shows them."""
    return tuple(Option(o["id"], text(o["text"])) for o in options)


def options_variant(source: VariantSource, input_type: str, one_right: bool) -> Variant:
    """Build a variant of a question answered by picking options.

    Draws one of its forms and, for a pool, the options it shows (a single-answer pool shows
    exactly one of its right statements, ``one_right``), then shuffles what it shows; the
    variant is graded from that form's own answer, and each wrong option tagged with a
    misconception names it.
    """
    rng = source.rng()
    index, form = pick_form(source.spec["forms"], rng)
    pool = list(form["options"])
    right = set(form["answer"] if isinstance(form["answer"], list) else [form["answer"]])
    if form.get("draw"):
        pool = draw_pool(pool, right, form["draw"], rng)
    options = list(pool)
    rng.shuffle(options)
    answer: Any = [o["id"] for o in pool if o["id"] in right]
    if one_right:
        (answer,) = answer
    wrong = tuple(Misconception(o["misconception"], source.names[o["misconception"]], o["id"])
                  for o in pool if o["misconception"])
    return source.variant(
        prompt=text(form["prompt"]),
        params={},
        input=AnswerInput(input_type, options=shown(options)),
        answer=answer,
        solution=text(form["solution"]),
        misconceptions=wrong,
        form=index,
    )
