"""The bank's sub-commands: ``quizsvc bank check`` / ``bank export`` and ``quizsvc worksheet``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from quizsvc.bank.catalog import read_bank
from quizsvc.bank.check import DEFAULT_SEEDS, QuestionStats, check_bank
from quizsvc.bank.errors import BankError
from quizsvc.bank.export import parse_seeds, variant_to_dict
from quizsvc.bank.worksheet import MAX_COUNT, make_worksheet


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bank`` (with ``check`` and ``export``) and ``worksheet`` to the CLI."""
    bank = subparsers.add_parser("bank", help="validate and export the question bank")
    bank.set_defaults(handler=lambda args: _usage(bank))
    actions = bank.add_subparsers(dest="bank_command", metavar="ACTION")

    check = actions.add_parser("check", help="validate every file and draw seeds of every template")
    check.add_argument("--bank-dir", help="bank directory (default: $QUIZSVC_BANK_DIR or repo)")
    check.add_argument("--seeds", type=_positive, default=DEFAULT_SEEDS, help="seeds per template")
    check.add_argument("--question", action="append", help="check only this question id")
    check.add_argument("--verbose", "-v", action="store_true", help="print per-question stats")
    check.set_defaults(handler=run_check)

    export = actions.add_parser("export", help="print variants with answers as JSON lines")
    export.add_argument("--json", action="store_true", help="JSON lines (the only format)")
    export.add_argument("--bank-dir", help="bank directory (default: $QUIZSVC_BANK_DIR or repo)")
    export.add_argument("--question", action="append", help="export only this question id")
    export.add_argument("--lesson", help="export only this lesson's questions")
    export.add_argument("--seeds", default="0", help="seeds, e.g. 0-99 or 1,5,7 (default 0)")
    export.set_defaults(handler=run_export)

    sheet = subparsers.add_parser("worksheet", help="write a printable worksheet and answer key")
    sheet.add_argument("--lesson", required=True, help="lesson id, e.g. vllm-v1-ledger")
    sheet.add_argument("--count", type=_positive, default=20, help=f"items (1-{MAX_COUNT})")
    sheet.add_argument("--seed", type=_non_negative, default=0, help="worksheet seed")
    sheet.add_argument("--lang", choices=["zh", "en"], default="zh")
    sheet.add_argument("--format", choices=["md", "html"], default="md", dest="fmt")
    sheet.add_argument("--out", default=".", help="directory for the two files (default: .)")
    sheet.add_argument("--bank-dir", help="bank directory (default: $QUIZSVC_BANK_DIR or repo)")
    sheet.set_defaults(handler=run_worksheet)


def _positive(value: str) -> int:
    number = _non_negative(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _non_negative(value: str) -> int:
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"{value!r} is not a non-negative integer")
    return int(value)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_check(args: argparse.Namespace) -> int:
    """Validate the bank; print problems; exit 1 if there are any."""

    def show(stats: QuestionStats) -> None:
        if args.verbose:
            attempts = stats.attempts / stats.variants if stats.variants else 0.0
            print(
                f"{stats.question_id:36} {stats.kind:9} {stats.variants:4} variants "
                f"{stats.seconds:6.2f}s {attempts:4.2f} draws/variant "
                f"{stats.distinct_answers:4} distinct answers {stats.forms:3} forms "
                f"{stats.contents:4} contents/{stats.content_seeds} seeds"
            )

    report = check_bank(args.bank_dir, seeds=args.seeds, only=args.question, progress=show)
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    variants = sum(s.variants for s in report.stats)
    seconds = sum(s.seconds for s in report.stats)
    status = "ok" if report.ok else f"{len(report.errors)} problem(s)"
    print(
        f"bank {report.version or '?'}: {len(report.stats)} questions, {variants} variants "
        f"in {seconds:.1f}s: {status}"
    )
    return 0 if report.ok else 1


def run_export(args: argparse.Namespace) -> int:
    """Print one JSON object per variant, answers, scenarios and answer_ref included."""
    try:
        bank = read_bank(args.bank_dir)
        seeds = parse_seeds(args.seeds)
        if args.question:
            ids = args.question
            for question_id in ids:
                bank.entry(question_id)
        elif args.lesson:
            ids = [q.id for q in bank.questions_for(args.lesson)]
        else:
            ids = sorted(bank.questions)
        out = sys.stdout
        for question_id in ids:
            for seed in seeds:
                body = variant_to_dict(bank.variant(question_id, seed))
                out.write(json.dumps(body, ensure_ascii=False, sort_keys=True) + "\n")
    except BankError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def run_worksheet(args: argparse.Namespace) -> int:
    """Write ``<lesson>-worksheet-<seed>-<lang>.<fmt>`` and the matching answer key."""
    if args.count > MAX_COUNT:
        print(f"error: --count is at most {MAX_COUNT}", file=sys.stderr)
        return 2
    try:
        bank = read_bank(args.bank_dir)
        sheet = make_worksheet(bank, args.lesson, args.count, args.seed, args.lang, args.fmt)
    except BankError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{args.lesson}-{{}}-{args.seed}-{args.lang}.{args.fmt}"
    sheet_path = out / stem.format("worksheet")
    key_path = out / stem.format("answers")
    sheet_path.write_text(sheet.sheet, encoding="utf-8")
    key_path.write_text(sheet.key, encoding="utf-8")
    print(sheet_path)
    print(key_path)
    return 0
