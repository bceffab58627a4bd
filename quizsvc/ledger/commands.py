"""``quizsvc ledger replay`` and ``quizsvc ledger explain``: the ledger from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from quizsvc.ledger.engine import replay
from quizsvc.ledger.errors import ScenarioError, SchedulerCrash
from quizsvc.ledger.explain import explain_step, find_step


def register(subparsers: Any) -> None:
    """Add the ``ledger`` command group to the ``quizsvc`` parser."""
    ledger = subparsers.add_parser("ledger", help="replay and explain scheduler scenarios")
    commands = ledger.add_subparsers(dest="ledger_command", metavar="COMMAND")
    replay_parser = commands.add_parser(
        "replay", help="print the FORMAT.md trace of a scenario (or an array of them)"
    )
    replay_parser.add_argument("file", nargs="?", help="scenario JSON file (default: stdin)")
    replay_parser.add_argument("--indent", type=int, default=None, help="pretty-print JSON")
    replay_parser.set_defaults(handler=run_replay)
    explain_parser = commands.add_parser(
        "explain", help="print a readable per-step table with the reasons"
    )
    explain_parser.add_argument("file", nargs="?", help="scenario JSON file (default: stdin)")
    explain_parser.add_argument("--step", type=int, default=None, help="loop step (default all)")
    explain_parser.add_argument("--lang", choices=("en", "zh"), default="en")
    explain_parser.set_defaults(handler=run_explain)
    ledger.set_defaults(handler=lambda args: _usage(ledger))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _fail(message: str) -> int:
    print(f"quizsvc ledger: {message}", file=sys.stderr)
    return 2


def _read(path: str | None) -> Any:
    if path is None:
        text = sys.stdin.read()
        source = "stdin"
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        source = path
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        reason = f"not valid JSON ({error.msg} at line {error.lineno})"
        raise ScenarioError(source, reason) from None


def _replay_all(raw: Any) -> Any:
    if isinstance(raw, list):
        traces = []
        for index, scenario in enumerate(raw):
            try:
                traces.append(replay(scenario))
            except ScenarioError as error:
                raise ScenarioError(f"[{index}].{error.field}", error.reason) from None
        return traces
    return replay(raw)


def run_replay(args: argparse.Namespace) -> int:
    """Replay a scenario file (or stdin) and print its trace as JSON."""
    try:
        traces = _replay_all(_read(args.file))
    except (ScenarioError, SchedulerCrash, OSError) as error:
        return _fail(str(error))
    json.dump(traces, sys.stdout, indent=args.indent, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def format_step_table(trace: dict[str, Any], step: int, lang: str) -> str:
    """Return one step as a fixed-width table of counters followed by the reasons."""
    record = find_step(trace, step)
    header = f"{'request':<10}{'status':<24}{'n':>5}{'drafts':>7}{'C before':>9}" \
             f"{'C sched':>8}{'C after':>8}{'N after':>8}{'N-C':>5}{'ph':>4}"
    rows = [header, "-" * len(header)]
    for request_id, entry in record["requests"].items():
        before = entry.get("before_schedule") or {}
        after_schedule = entry.get("after_schedule") or {}
        after = entry["after_update"]
        rows.append(
            f"{request_id:<10}{after['status']:<24}{entry['num_scheduled_tokens']:>5}"
            f"{entry['num_scheduled_spec_tokens']:>7}"
            f"{before.get('num_computed_tokens', ''):>9}"
            f"{after_schedule.get('num_computed_tokens', ''):>8}"
            f"{after['num_computed_tokens']:>8}{after['num_tokens']:>8}"
            f"{after['num_tokens'] - after['num_computed_tokens']:>5}"
            f"{after['num_output_placeholders']:>4}"
        )
    return "\n".join([*rows, "", *explain_step(trace, step, lang)])


def run_explain(args: argparse.Namespace) -> int:
    """Print the per-step table and worked reasons for one step (or every step)."""
    try:
        raw = _read(args.file)
        if isinstance(raw, list):
            raise ScenarioError("scenario", "explain takes one scenario, not an array")
        trace = replay(raw)
        steps = [args.step] if args.step is not None else [s["step"] for s in trace["steps"]]
        blocks = [format_step_table(trace, step, args.lang) for step in steps]
    except KeyError as error:
        return _fail(str(error).strip("'\""))
    except (ScenarioError, SchedulerCrash, OSError) as error:
        return _fail(str(error))
    print("\n\n".join(blocks))
    return 0
