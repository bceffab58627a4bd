"""Time the ledger core's own scheduler calls on a FORMAT.md scenario (tracing off).

Usage: ``python bench/ledger_bench.py SCENARIO.json [--json] [--repeat N]``.
Only ``schedule()``, ``update_from_output()`` and ``update_draft_token_ids()`` are timed,
not the fake model runner or the loop around them. Prints ``steps`` (schedule calls),
``seconds``, ``steps_per_s`` and ``us_per_scheduled_request`` (best of ``--repeat`` runs).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quizsvc.ledger import Engine, parse_scenario


def measure(raw: dict[str, Any]) -> dict[str, Any]:
    """Replay ``raw`` once with tracing off and return the timing figures."""
    engine = Engine(parse_scenario(raw), tracing=False)
    scheduler = engine.scheduler
    totals = {"seconds": 0.0, "steps": 0, "scheduled": 0}
    clock = time.perf_counter
    schedule = scheduler.schedule
    update = scheduler.update_from_output
    drafts = scheduler.update_draft_token_ids

    def timed_schedule():  # type: ignore[no-untyped-def]
        start = clock()
        output = schedule()
        totals["seconds"] += clock() - start
        totals["steps"] += 1
        totals["scheduled"] += len(output.num_scheduled_tokens)
        return output

    def timed_update(output, sampled):  # type: ignore[no-untyped-def]
        start = clock()
        result = update(output, sampled)
        totals["seconds"] += clock() - start
        return result

    def timed_drafts(proposed):  # type: ignore[no-untyped-def]
        start = clock()
        drafts(proposed)
        totals["seconds"] += clock() - start

    scheduler.schedule = timed_schedule  # type: ignore[method-assign]
    scheduler.update_from_output = timed_update  # type: ignore[method-assign]
    scheduler.update_draft_token_ids = timed_drafts  # type: ignore[method-assign]
    engine.run()
    seconds = totals["seconds"]
    return {
        "scenario": raw.get("name", "scenario"),
        "steps": totals["steps"],
        "seconds": round(seconds, 4),
        "steps_per_s": round(totals["steps"] / seconds, 1) if seconds else None,
        "us_per_scheduled_request": round(1e6 * seconds / totals["scheduled"], 2)
        if totals["scheduled"] else None,
        "scheduled_requests": totals["scheduled"],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the fastest is reported")
    args = parser.parse_args(argv)
    raw = json.loads(args.scenario.read_text())
    best = min((measure(raw) for _ in range(max(args.repeat, 1))), key=lambda r: r["seconds"])
    if args.json:
        print(json.dumps(best))
    else:
        for key, value in best.items():
            print(f"{key:>26}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
