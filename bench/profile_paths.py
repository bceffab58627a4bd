"""Profile the service's busiest requests in-process: where a request's CPU goes.

Prepares ``--requests`` graded answers (or next-question requests, with ``--next``) for one
browser of an app on a scratch database, exactly as ``bench/api_bench.py`` does, then sends
them through Flask's test client under cProfile and prints the CPU per request and the
functions that take most of it. ``api_bench.py`` measures the same requests under gunicorn.

    .venv/bin/python bench/profile_paths.py [--backend sqlite|postgresql] [--requests 500]
                                            [--next] [--top 30]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api_bench import Client, prepare_answers, prepare_sessions, scratch_database  # noqa: E402


def main() -> int:
    """Profile one kind of request and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--next", action="store_true", help="profile GET .../next instead")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--callers", help="also print the callers of functions matching this")
    parser.add_argument("--callees", help="also print what functions matching this call")
    args = parser.parse_args()

    from sqlalchemy import select

    from quizsvc import create_app
    from quizsvc.bank import load_bank
    from quizsvc.store import migrate
    from quizsvc.store.database import make_engine
    from quizsvc.store.models import Browser
    from quizsvc.study.linking import digest

    bank = load_bank()
    with tempfile.TemporaryDirectory() as folder:
        url, cleanup = scratch_database(args.backend, Path(folder), "quizsvc_profile")
        try:
            engine = make_engine(url)
            with engine.connect() as connection:
                migrate.upgrade(connection, "head")
                connection.commit()
            app = create_app({"DATABASE_URL": url, "BANK": bank, "SECRET_KEY": "profile"})
            client = app.test_client()
            client.get("/api/me")
            csrf = client.get_cookie("csrf_token").value
            assert client.delete("/api/self-assessments",
                                 headers={"X-CSRF-Token": csrf}).status_code == 200
            token = client.get_cookie("quizsvc_browser").value
            with engine.connect() as connection:
                learner_id = connection.scalar(select(Browser.learner_id).where(
                    Browser.token_hash == digest(token)))
            me = Client("", csrf, learner_id)
            prepare = prepare_sessions if args.next else prepare_answers
            [jobs] = prepare(engine, bank, [me], 2 * args.requests, random.Random(4))
            what = "next-question" if args.next else "graded-answer"

            def send(batch: list) -> tuple[float, float]:
                began, cpu_began = time.perf_counter(), time.process_time()
                for job in batch:
                    headers = {name: value for name, value in job.headers if name != "Cookie"}
                    response = client.open(job.path, method=job.method, json=job.body,
                                           headers=headers)
                    assert response.status_code in (200, 201), response.get_json()
                return (1000 * (time.process_time() - cpu_began) / len(batch),
                        1000 * (time.perf_counter() - began) / len(batch))

            cpu, wall = send(jobs[:args.requests])
            print(f"{args.backend}: {args.requests} {what} requests through the test client: "
                  f"{cpu:.2f} ms CPU, {wall:.2f} ms wall each (client and database included)")
            profiler = cProfile.Profile()
            profiler.enable()
            cpu, wall = send(jobs[args.requests:])
            profiler.disable()
            print(f"  under cProfile: {cpu:.2f} ms CPU each")
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("cumulative").print_stats(args.top)
            stats.sort_stats("tottime").print_stats(args.top)
            if args.callers:
                stats.print_callers(args.callers)
            if args.callees:
                stats.print_callees(args.callees)
            print(out.getvalue())
            engine.dispose()
        finally:
            cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
