"""Measure what a sandbox flood does to another learner: next-question latency, alone and not.

Under gunicorn (SQLite, 2 sync workers by default), one learner asks for the next question of
fresh one-question sessions in a loop, from a process of its own; its p50/p99 are measured
alone, then while ``--flooders`` other clients (another process, a thread each) loop on the
heaviest ``POST /api/simulate`` body the schema accepts (16 requests of 4,096-token prompts,
prefix caching with one-token blocks, 16 drafts): each flooder keeping its browser (so the
per-browser rate limit applies), then each flooder taking a new browser every request (so
only the replay's CPU budget bounds it).

    .venv/bin/python bench/simulate_flood.py [--seconds 8] [--flooders 4] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api_bench import (  # noqa: E402  (the bench folder's own)
    ONE_ADDRESS,
    drive_process,
    new_client,
    prepare_sessions,
    request,
    scratch_database,
    start_gunicorn,
)

HEAVIEST = {"config": {"max_num_batched_tokens": 65_536, "max_num_seqs": 256,
                       "num_gpu_blocks": 100_000, "max_model_len": 65_536,
                       "num_speculative_tokens": 16, "enable_prefix_caching": True,
                       "block_size": 1},
            "requests": [{"id": f"r{i}", "prompt_token_ids": [7] * 4096, "max_tokens": 4096}
                         for i in range(16)]}


def fresh_browser(port: int) -> dict[str, str]:
    """Return the headers of a new browser, stored by one harmless state change."""
    _, _, headers = request(port, "GET", "/api/me")
    jar: SimpleCookie = SimpleCookie()
    for header in headers.get_all("Set-Cookie"):
        jar.load(header)
    token, csrf = jar["quizsvc_browser"].value, jar["csrf_token"].value
    sent = {"Cookie": f"quizsvc_browser={token}; csrf_token={csrf}", "X-CSRF-Token": csrf}
    request(port, "DELETE", "/api/self-assessments", headers=sent)
    return sent


def flood(port: int, seconds: float, rotate: bool, out: Any) -> None:
    """Loop on the heaviest replay until the time is up; report statuses."""
    stop = time.monotonic() + seconds
    statuses: dict[int, int] = {}
    headers = fresh_browser(port)
    while time.monotonic() < stop:
        if rotate:
            headers = fresh_browser(port)
        status, _, _ = request(port, "POST", "/api/simulate", HEAVIEST, headers)
        statuses[status] = statuses.get(status, 0) + 1
    out.put(statuses)


def flood_process(port: int, flooders: int, seconds: float, rotate: bool, out: Any) -> None:
    """Run ``flooders`` flooding threads in this (separate) process."""
    threads = [threading.Thread(target=flood, args=(port, seconds, rotate, out))
               for _ in range(flooders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def learner_phase(port: int, jobs: list[Any], seconds: float, flooders: int,
                  rotate: bool) -> tuple[float, float, int, dict[int, int]]:
    """Measure the learner's next-question latency, with ``flooders`` flooding meanwhile."""
    context = multiprocessing.get_context("spawn")
    out, flood_out = context.Queue(), context.Queue()
    flooding = None
    if flooders:
        flooding = context.Process(target=flood_process,
                                   args=(port, flooders, seconds + 1.0, rotate, flood_out))
        flooding.start()
        time.sleep(0.8)  # let the flood reach its pace first
    learner = context.Process(target=drive_process, args=(port, [jobs], seconds, out))
    learner.start()
    latencies, errors, _ = out.get()
    learner.join()
    if errors:
        raise SystemExit(f"the learner's requests failed: {errors}")
    statuses: dict[int, int] = {}
    if flooding is not None:
        for _ in range(flooders):
            for status, n in flood_out.get().items():
                statuses[status] = statuses.get(status, 0) + n
        flooding.join()
    latencies.sort()
    p50 = 1000 * statistics.median(latencies)
    p99 = 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    return p50, p99, len(latencies), statuses


def main() -> int:
    """Run the three phases and print the learner's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    import random

    from quizsvc.bank import load_bank
    from quizsvc.store import migrate
    from quizsvc.store.database import make_engine

    bank = load_bank()
    print(f"sandbox flood: gunicorn sync, {args.workers} workers, SQLite; {args.flooders} "
          f"flooders; {args.seconds:.0f} s per phase; {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        url, cleanup = scratch_database("sqlite", Path(folder), "quizsvc_flood")
        try:
            engine = make_engine(url)
            with engine.connect() as connection:
                migrate.upgrade(connection, "head")
                connection.commit()
            env = {**os.environ, "QUIZSVC_DATABASE_URL": url,
                   "QUIZSVC_SECRET_KEY": secrets.token_hex(16), **ONE_ADDRESS}
            server = start_gunicorn("quizsvc.app:serving_app()", args.workers, env, "/readyz")
            try:
                client = new_client(server.port, engine)
                rng = random.Random(7)
                for label, flooders, rotate in (
                        ("alone", 0, False),
                        ("flood, each flooder keeps its browser (rate limited)",
                         args.flooders, False),
                        ("flood, a new browser per request (CPU budget only)",
                         args.flooders, True)):
                    [jobs] = prepare_sessions(engine, bank, [client], 4000, rng)
                    p50, p99, count, statuses = learner_phase(server.port, jobs, args.seconds,
                                                              flooders, rotate)
                    print(f"  {label:<55} learner next question: p50 {p50:7.2f} ms  "
                          f"p99 {p99:8.2f} ms  ({count} requests)"
                          + (f"; flood statuses {dict(sorted(statuses.items()))}"
                             if statuses else ""), flush=True)
            finally:
                server.stop()
            engine.dispose()
        finally:
            cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
