"""Print how many variants per second the bank generates and grades, per family, on one core.

Each numeric template is a family; the other kinds are measured as one family per kind. A
variant is built without the variant cache (seed -> parameters -> ledger replay -> answer,
wrong models and worked solution), then graded twice: with its answer and with a wrong one.
The issue's target is at least 2,000 per second per core for the slowest family. (A cache of
replayed traces was tried and measured slower: keying and holding traces cost more than the
repeats it saved.)

    .venv/bin/python bench/bank_bench.py [--seeds 500] [--question ID ...]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from quizsvc.bank import read_bank
from quizsvc.bank.catalog import Bank
from quizsvc.bank.model import QuestionKind, Variant

TARGET = 2000


def wrong_answer(variant: Variant):
    """Return an answer that is certainly wrong but well-formed, to grade the slow path too."""
    if variant.kind is QuestionKind.NUMERIC:
        if isinstance(variant.answer, list):
            return [value + 1 for value in variant.answer]
        return variant.answer + 1
    if variant.kind in (QuestionKind.CHOICE, QuestionKind.ANCHOR):
        return next(o.id for o in variant.input.options if o.id != variant.answer)
    if variant.kind is QuestionKind.MULTI:
        return [o.id for o in variant.input.options if o.id not in variant.answer][:1]
    if variant.kind is QuestionKind.ORDER:
        return list(reversed(variant.answer))
    if variant.kind is QuestionKind.FLASHCARD:
        return "good"
    return "an explanation"


def measure(bank: Bank, question_ids: Sequence[str], seeds: int) -> tuple[int, float]:
    """Generate and grade ``seeds`` variants of each question; return (variants, CPU seconds).

    CPU time of this process, not wall time: "per core" is what the target names, and the
    figure then holds on a machine busy with other work (as CI machines are).
    """
    entries = [bank.entry(qid) for qid in question_ids]
    started = time.process_time()
    count = 0
    for seed in range(seeds):
        entry = entries[seed % len(entries)]
        variant = bank.make_variant(entry, seed)
        if variant.answer is not None:
            bank.grade(variant, variant.answer)
        bank.grade(variant, wrong_answer(variant))
        count += 1
    return count, time.process_time() - started


def families(bank: Bank, only: Sequence[str] | None) -> dict[str, list[str]]:
    """Group question ids into families: one per numeric template, one per other kind."""
    groups: dict[str, list[str]] = {}
    for question in sorted(bank.questions.values(), key=lambda q: q.id):
        if only and question.id not in only:
            continue
        name = question.id if question.kind is QuestionKind.NUMERIC else f"({question.kind})"
        groups.setdefault(name, []).append(question.id)
    return groups


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one line per family, slowest last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500, help="variants per family")
    parser.add_argument("--question", action="append", help="only these question ids")
    args = parser.parse_args(argv)
    bank = read_bank()
    groups = families(bank, args.question)
    for ids in groups.values():  # warm up imports and generator modules
        measure(bank, ids, 5)
    rates = {}
    for name, ids in groups.items():
        count, seconds = measure(bank, ids, args.seeds)
        rates[name] = count / seconds
    print(f"bank {bank.version}: variants generated + graded per CPU second, {args.seeds} each")
    for name, rate in sorted(rates.items(), key=lambda item: -item[1]):
        print(f"  {name:34} {rate:9,.0f}/s")
    slowest = min(rates, key=rates.__getitem__)
    verdict = "meets" if rates[slowest] >= TARGET else "misses"
    print(f"slowest: {slowest} at {rates[slowest]:,.0f}/s ({verdict} the {TARGET:,}/s target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
