"""Print the item analysis of a simulated class beside the items the simulation made.

40 learners of skill spread evenly over [-2.5, 2.5] answer 20 two-parameter logistic items
(5 difficulties x 4 discriminations, ``tests/support/population.py``), each item with three
variants, the last one step harder. Facility should fall as difficulty rises, and the
discrimination index rise with the simulated discrimination. Not a timing: a check a reader
can run and read (``tests/review/test_item_analysis.py`` asserts the order).

    .venv/bin/python bench/item_analysis_class.py [--learners 40] [--seed 2026]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

# The simulated class lives with the tests that assert its order (tests/support/population.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quizsvc.review.item_analysis import analyse
from tests.support.population import (
    CLASS_DIFFICULTIES,
    CLASS_DISCRIMINATIONS,
    class_items,
    simulate_class,
)


def main() -> None:
    """Simulate the class, analyse it, print per item and per level."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    items = class_items()
    attempts = simulate_class(args.learners, items, random.Random(args.seed))
    result = analyse(attempts, {item.question_id: ("r",) for item in items}, ["r"], {})
    stats = {s.question_id: s for s in result.items}
    print(f"{result.learners} learners, {result.answers} first closed-book answers")
    print("item  difficulty  discrimination | facility  index  (learners)  variant spread")
    for item in items:
        s = stats[item.question_id]
        index = s.discrimination.index
        spread = (f"{s.spread.lowest:.2f}-{s.spread.highest:.2f}" if s.spread else "-")
        print(f"{item.question_id}  {item.difficulty:10.2f}  {item.discrimination:14.1f} | "
              f"{s.facility or 0:8.2f}  {index if index is not None else float('nan'):5.2f}"
              f"  ({s.discrimination.learners})  {spread}")
    print("mean facility by difficulty:", ", ".join(
        f"{level:+.2f}: {statistics.mean(stats[i.question_id].facility or 0 for i in items if i.difficulty == level):.3f}"  # noqa: E501
        for level in CLASS_DIFFICULTIES))
    print("mean discrimination index by simulated discrimination:", ", ".join(
        f"{level:.1f}: {statistics.mean(stats[i.question_id].discrimination.index or 0 for i in items if i.discrimination == level):.3f}"  # noqa: E501
        for level in CLASS_DISCRIMINATIONS))


if __name__ == "__main__":
    main()
