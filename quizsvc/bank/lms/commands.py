"""Offer ``quizsvc export moodle`` and ``quizsvc export qti``: randomized exercises for an LMS.

The variants come from the bank and ``--seeds-from`` alone. The command prints the seeds it
used and the command line that makes the same file again; the file records them too. Without
``--seeds-from`` it draws one from the operating system and prints it (the only randomness
outside the seed). What the file holds is handed to ``record`` before the file is written
(``quizsvc.study.export_commands`` records it in the database, so serving never hands those
variants out); this module itself touches no database.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quizsvc.bank.catalog import read_bank
from quizsvc.bank.errors import BankError
from quizsvc.bank.lms.exercises import MAX_VARIANTS, ExerciseSet, exercise_set
from quizsvc.bank.lms.formats import WRITERS
from quizsvc.bank.lms.wording import LANG_MODES

DEFAULT_VARIANTS = 5
HELP = {
    "moodle": "write randomized exercises as Moodle XML: one category per question holding "
              "its variants",
    "qti": "write randomized exercises as a QTI 2.1 item bank package (.zip), one item per "
           "variant",
}


def question_ids(value: str) -> list[str]:
    """Read ``--questions``: question ids separated by commas."""
    ids = [part.strip() for part in value.split(",") if part.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("expected question ids separated by commas")
    return ids


def variant_count(value: str) -> int:
    """Read ``--variants``: 1 to ``MAX_VARIANTS``."""
    if not value.isdigit() or not 1 <= int(value) <= MAX_VARIANTS:
        raise argparse.ArgumentTypeError(f"expected a number from 1 to {MAX_VARIANTS}")
    return int(value)


def seed_value(value: str) -> int:
    """Read ``--seeds-from``: a non-negative integer below 2**63."""
    if not value.isdigit() or int(value) >= 2**63:
        raise argparse.ArgumentTypeError("expected an integer from 0 to 2**63 - 1")
    return int(value)


class NotRecorded(Exception):
    """The exported variants could not be recorded; the file is not written."""


Recorder = Callable[[argparse.Namespace, ExerciseSet], str]


def add_formats(actions: Any, handler: Callable[[argparse.Namespace], int] | None = None
                ) -> list[argparse.ArgumentParser]:
    """Add ``moodle`` and ``qti`` to the formats of ``quizsvc export`` (run by ``handler``,
    ``run_export`` by default); return their parsers."""
    parsers = []
    for name in WRITERS:
        parser = actions.add_parser(name, help=HELP[name])
        parser.add_argument("--lesson", required=True, help="lesson id, e.g. vllm-v1-ledger")
        parser.add_argument("--questions", type=question_ids,
                            help="question ids, comma-separated (default: every graded "
                                 "question of the lesson)")
        parser.add_argument("--variants", type=variant_count, default=DEFAULT_VARIANTS,
                            help=f"variants per question (1-{MAX_VARIANTS}, default "
                                 f"{DEFAULT_VARIANTS})")
        parser.add_argument("--lang", choices=LANG_MODES, default="zh",
                            help="language of the text (both: Chinese, then English)")
        parser.add_argument("--seeds-from", type=seed_value, dest="seeds_from",
                            help="the seed the variant seeds are drawn from (default: a new "
                                 "one, printed)")
        parser.add_argument("--out", required=True, help="the file to write")
        parser.add_argument("--bank-dir",
                            help="bank directory (default: $QUIZSVC_BANK_DIR or repo)")
        parser.set_defaults(handler=handler or run_export, lms_format=name)
        parsers.append(parser)
    return parsers


def again(args: argparse.Namespace, exercises: ExerciseSet) -> str:
    """Return the command line that writes the same export again."""
    ids = ",".join(item.question.id for item in exercises.items)
    return (f"quizsvc export {args.lms_format} --lesson {exercises.lesson_id} "
            f"--questions {ids} --variants {len(exercises.items[0].variants)} "
            f"--lang {args.lang} --seeds-from {exercises.seeds_from} --out {args.out}")


def run_export(args: argparse.Namespace, record: Recorder | None = None) -> int:
    """Draw the variants, hand them to ``record``, write the file, print the seeds and how to
    make it again. If ``record`` raises ``NotRecorded`` no file is written."""
    seeds_from = args.seeds_from if args.seeds_from is not None else secrets.randbelow(2**32)
    try:
        bank = read_bank(args.bank_dir)
        exercises = exercise_set(bank, args.lesson, args.questions, args.variants, seeds_from)
        data = WRITERS[args.lms_format](bank, exercises, args.lang)
    except BankError as error:
        print(f"export {args.lms_format}: {error}", file=sys.stderr)
        return 2
    recorded = ""
    if record is not None:
        try:
            recorded = record(args, exercises)
        except NotRecorded as error:
            print(f"export {args.lms_format}: {error}; no file written", file=sys.stderr)
            return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(f"wrote {out}: {len(exercises.items)} questions, {args.variants} variants each, "
          f"lang {args.lang}, seeds-from {seeds_from}, bank version {exercises.bank_version}")
    for item in exercises.items:
        print(f"  {item.question.id}: seeds {', '.join(str(seed) for seed in item.seeds)}")
    if recorded:
        print(recorded)
    print(f"again: {again(args, exercises)}")
    return 0
