"""Count the 5xx of concurrent first writes from browsers that have a cookie but no row yet.

For each backend, ``quizsvc serve`` (gunicorn, ``--workers`` sync workers) runs on a fresh
database; each of ``--browsers`` new browsers gets its cookie from ``GET /api/me`` and then
sends ``--copies`` first writes at once. The issue's target is 0 of 1,000 on both databases.
Prints, per backend: requests, 5xx, statuses, and learners vs browsers stored (equal when no
losing request left a learner behind).

    .venv/bin/python bench/first_write_race.py [--browsers 500] [--copies 2] [--workers 4]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from quizsvc.store.models import Browser, Learner  # noqa: E402
from tests.support.first_writes import first_writes  # noqa: E402
from tests.support.live import (  # noqa: E402
    LiveDatabase,
    dispose_database,
    migrated,
    new_pg_database,
)
from tests.support.reliability import serve  # noqa: E402


def database_for(backend: str, folder: Path) -> LiveDatabase:
    """Return a fresh migrated database of ``backend``."""
    if backend == "sqlite":
        return migrated(f"sqlite:///{folder / 'race.sqlite3'}")
    return new_pg_database()


def run(backend: str, args: argparse.Namespace) -> tuple[str, int]:
    """Race the first writes on one backend; return the printable line and the 5xx count."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        database = database_for(backend, folder)
        service = serve(database.url, ROOT / "question_bank", args.workers, folder / "log")
        try:
            began = time.monotonic()
            tally = first_writes(service.port, args.browsers, args.copies)
            seconds = time.monotonic() - began
            with database.engine.connect() as connection:
                learners = connection.scalar(select(func.count()).select_from(Learner))
                browsers = connection.scalar(select(func.count()).select_from(Browser))
        finally:
            service.stop()
            dispose_database(database)
    line = (f"{backend:10} {tally.server_errors} of {tally.requests} first writes failed "
            f"({args.browsers} browsers x {args.copies} at once, {args.workers} workers, "
            f"{seconds:.1f} s); statuses {dict(sorted(tally.statuses.items()))}; "
            f"learners {learners}, browsers {browsers}")
    if tally.failures:
        line += f"\n           first failure: {tally.failures[0][:200]}"
    return line, tally.server_errors


def main() -> int:
    """Run the race on SQLite and PostgreSQL; exit 1 if any first write failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browsers", type=int, default=500)
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), action="append")
    args = parser.parse_args()
    failed = 0
    for backend in args.backend or ("sqlite", "postgresql"):
        line, errors = run(backend, args)
        print(line, flush=True)
        failed += errors
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
