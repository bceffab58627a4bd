"""Measure what one client's costly requests do to another learner's pages.

The service runs as the deployment runs it, ``quizsvc serve`` (gthread workers, a costly-work
pool per worker, rate limits shared in Redis), on a scratch database. One learner studies in a
loop from a process of its own (start a quiz, next question, answer, ...): its next-question
and answer latencies are measured alone, then under each load issue 21 names, from another
process:

- ``sandbox``: flooders loop on the heaviest ``POST /api/simulate`` body the schema accepts,
  each with a new browser per request (so only the replay's CPU budget bounds them);
- ``imports``: flooders post large exports (``--import-attempts`` answers, several MB) to
  ``POST /api/import``, each into a new browser;
- ``scheduling``: flooders who imported a large history each loop on ``PUT /api/scheduling``
  (a new desired retention reschedules every card);
- ``anki``: flooders download the bilingual Anki deck, a new browser per request;
- ``all``: every load above at once.

By default the per-address limits are lifted (every client here shares 127.0.0.1): each
flooder is a crowd of addresses, and what bounds the flood is the rest of the service's
design: the pool, the per-browser limits and the CPU budgets. With ``--addresses`` they hold
as configured, each flooder thread a client of its own address (sent as X-Forwarded-For to a
service trusting one proxy hop, as behind a reverse proxy): one client's flood as deployed.
Target (issue 21): under each load, the learner's p50 at most 2x and p99 at most 5x alone.

    .venv/bin/python bench/simulate_flood.py [--backend sqlite|postgresql] [--seconds 8]
        [--flooders 2] [--workers 2] [--loads sandbox,imports,scheduling,anki,all]
        [--addresses]

A phase may also join loads with "+" (``--loads imports+anki``) to find which of them a
slow "all" comes from.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from api_bench import scratch_database  # noqa: E402  (the bench folder's own)
from load import LESSON, Learner, guess, start_service  # noqa: E402

from quizsvc.config import from_environment  # noqa: E402

HEAVIEST = {"config": {"max_num_batched_tokens": 65_536, "max_num_seqs": 256,
                       "num_gpu_blocks": 100_000, "max_model_len": 65_536,
                       "num_speculative_tokens": 16, "enable_prefix_caching": True,
                       "block_size": 1},
            "requests": [{"id": f"r{i}", "prompt_token_ids": [7] * 4096, "max_tokens": 4096}
                         for i in range(16)]}
LOADS = ("sandbox", "imports", "scheduling", "anki")
LEARNER_ADDRESS = "10.0.0.1"  # the measured learner's, with --addresses (flooders: 10.1.*)
# A flooder waits for the service's own answer, above its longest wait on the pool (a deck's
# 60 s): a replay queued behind imports is answered 503 busy after its 10 s wait, which a
# client timing out at 10 s would count as no reply (0).
FLOOD_TIMEOUT = 120.0


# ---------------------------------------------------------------- the measured learner


def studied(port: int, answers: int) -> Learner:
    """Return a learner who has answered ``answers`` questions (and rated them Good)."""
    import random

    learner = Learner(port, address=LEARNER_ADDRESS)
    learner.call("me", "GET", "/api/me")
    rng = random.Random(3)
    done = 0
    while done < answers:
        session = learner.call("start", "POST", "/api/sessions",
                               {"lesson": LESSON, "mode": "quiz", "size": 10})
        if session is None:
            raise SystemExit("could not start a session")
        while done < answers:
            item = learner.call("next", "GET", f"/api/sessions/{session['id']}/next")
            if item is None or item["done"]:
                break
            question = item["question"]
            learner.call("answer", "POST", "/api/attempts", {
                "variant_id": question["variant_id"], "answer": guess(question, rng)})
            done += 1
    return learner


def study_loop(port: int, seconds: float, out: Any, address: str | None) -> None:
    """Study for ``seconds`` (next, answer, a short pause); send back the latencies by kind."""
    import random

    learner = Learner(port, address=address)
    learner.call("me", "GET", "/api/me")
    rng = random.Random(11)
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        session = learner.call("start", "POST", "/api/sessions",
                               {"lesson": LESSON, "mode": "quiz", "size": 10})
        if session is None:
            time.sleep(0.05)
            continue
        while time.monotonic() < stop:
            item = learner.call("next", "GET", f"/api/sessions/{session['id']}/next")
            if item is None or item["done"]:
                break
            time.sleep(0.01)
            question = item["question"]
            learner.call("answer", "POST", "/api/attempts", {
                "variant_id": question["variant_id"], "answer": guess(question, rng)})
            time.sleep(0.01)
    out.put([(s.kind, s.seconds, s.status) for s in learner.samples])


# ---------------------------------------------------------------- the loads


def large_export(port: int, attempts: int) -> bytes:
    """Return a large export document: a real learner's export, its attempts repeated.

    Changed, it is no longer signed: it imports as history, which is the most an outsider
    can send (and costs the server the same to read and store).
    """
    learner = studied(port, 12)
    document = learner.call("export", "GET", "/api/export")
    if document is None or not document["attempts"]:
        raise SystemExit("could not export the learner's history")
    seeds = document["attempts"]
    rows = []
    for n in range(1, attempts + 1):
        row = dict(seeds[n % len(seeds)])
        row.update(n=n, idempotency_key=f"bench-{n}", signature=None)
        rows.append(row)
    reviews = []
    for entry in document["review_log"]:
        for _ in range(max(1, attempts // max(1, len(document["review_log"])) // 4)):
            reviews.append({**entry, "attempt": None})
    document.update(attempts=rows, review_log=reviews, signature=None, mastery=[])
    return json.dumps(document).encode()


def sandbox_flood(port: int, stop: float, _document: bytes, statuses: dict[str, int],
                  address: str | None) -> None:
    """Replay the heaviest simulation, a new browser per request."""
    while time.monotonic() < stop:
        learner = Learner(port, timeout=FLOOD_TIMEOUT, address=address)
        learner.call("me", "GET", "/api/me")
        learner.call("simulate", "POST", "/api/simulate", HEAVIEST)
        count(statuses, "sandbox", learner.samples[-1].status)


def import_flood(port: int, stop: float, document: bytes, statuses: dict[str, int],
                 address: str | None) -> None:
    """Post the large export into a new browser, again and again."""
    while time.monotonic() < stop:
        learner = Learner(port, address=address)
        learner.call("me", "GET", "/api/me")
        count(statuses, "imports", post_raw(learner, "/api/import", document))


def scheduling_flood(port: int, stop: float, document: bytes,
                     statuses: dict[str, int], address: str | None) -> None:
    """Import the large history once, then change the desired retention in a loop."""
    learner = Learner(port, timeout=FLOOD_TIMEOUT, address=address)
    learner.call("me", "GET", "/api/me")
    post_raw(learner, "/api/import", document)
    retention = 0.80
    while time.monotonic() < stop:
        retention = 0.85 if retention == 0.80 else 0.80
        learner.call("scheduling", "PUT", "/api/scheduling",
                     {"desired_retention": retention})
        count(statuses, "scheduling", learner.samples[-1].status)


def anki_flood(port: int, stop: float, _document: bytes, statuses: dict[str, int],
               address: str | None) -> None:
    """Download the bilingual deck, a new browser per request."""
    while time.monotonic() < stop:
        learner = Learner(port, address=address)
        learner.call("me", "GET", "/api/me")
        status = get_raw(learner, f"/api/lessons/{LESSON}/anki.apkg?lang=both")
        count(statuses, "anki", status)


def warm_decks(port: int, downloads: int = 8, at_once: int = 4) -> None:
    """Download the deck until it is built, as in a service that has run a while.

    A deck is built once per bank version and kept by each worker; built during a phase, the
    Anki flood would first wait seconds on the pool (behind imports, in "all") and barely
    load the service. ``downloads`` from ``at_once`` threads reach every worker in practice.
    """
    statuses: list[int] = []

    def download(number: int) -> None:
        learner = Learner(port, timeout=FLOOD_TIMEOUT, address=f"10.2.0.{number}")
        learner.call("me", "GET", "/api/me")
        statuses.append(get_raw(learner, f"/api/lessons/{LESSON}/anki.apkg?lang=both"))

    for first in range(0, downloads, at_once):
        threads = [threading.Thread(target=download, args=(n,))
                   for n in range(first, first + at_once)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if set(statuses) != {200}:
        raise SystemExit(f"building the Anki deck failed: statuses {sorted(statuses)}")


FLOODS = {"sandbox": sandbox_flood, "imports": import_flood,
          "scheduling": scheduling_flood, "anki": anki_flood}


def count(statuses: dict[str, int], load: str, status: int) -> None:
    """Count one flood reply by load and status."""
    key = f"{load} {status}"
    statuses[key] = statuses.get(key, 0) + 1


def post_raw(learner: Learner, path: str, body: bytes) -> int:
    """POST a prepared JSON body with the learner's cookies and CSRF echo; return the status."""
    return send_raw(learner, "POST", path, body, {
        "X-CSRF-Token": learner.cookies.get("csrf_token", ""),
        "Content-Type": "application/json"})


def get_raw(learner: Learner, path: str) -> int:
    """GET a binary download with the learner's cookies; return the status."""
    return send_raw(learner, "GET", path, None, {})


def send_raw(learner: Learner, method: str, path: str, body: bytes | None,
             headers: dict[str, str]) -> int:
    """Send one request with the learner's cookies on a new connection; read the reply whole
    and return its status (0: no reply)."""
    import http.client

    cookies = "; ".join(f"{k}={v}" for k, v in learner.cookies.items())
    if learner.address is not None:
        headers = {**headers, "X-Forwarded-For": learner.address}
    connection = http.client.HTTPConnection("127.0.0.1", learner.port,
                                            timeout=FLOOD_TIMEOUT)
    try:
        connection.request(method, path, body=body, headers={"Cookie": cookies, **headers})
        response = connection.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0
    finally:
        connection.close()


def flood_process(port: int, loads: list[str], flooders: int, seconds: float,
                  document: bytes, out: Any, addressed: bool) -> None:
    """Run ``flooders`` threads of each load in this (separate) process; with ``addressed``,
    each thread is a client of its own address."""
    stop = time.monotonic() + seconds
    statuses: dict[str, int] = {}
    threads = [threading.Thread(target=FLOODS[load], args=(
                   port, stop, document, statuses,
                   f"10.1.{LOADS.index(load)}.{n + 1}" if addressed else None))
               for load in loads for n in range(flooders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(statuses)


# ---------------------------------------------------------------- one phase


def phase(port: int, loads: list[str], flooders: int, seconds: float, document: bytes,
          addressed: bool) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Measure the learner while ``loads`` run; return its latencies by kind and the flood's
    statuses."""
    context = multiprocessing.get_context("spawn")
    out, flood_out = context.Queue(), context.Queue()
    flooding = None
    if loads:
        flooding = context.Process(target=flood_process, args=(
            port, loads, flooders, seconds + 3.0, document, flood_out, addressed))
        flooding.start()
        time.sleep(2.0)  # let the flood reach its pace (and the scheduling flooders import)
    learner = context.Process(target=study_loop, args=(
        port, seconds, out, LEARNER_ADDRESS if addressed else None))
    learner.start()
    samples = out.get(timeout=seconds + 300)
    learner.join()
    statuses: dict[str, int] = {}
    if flooding is not None:
        statuses = flood_out.get(timeout=seconds + 600)
        flooding.join()
    failed = [status for _, _, status in samples if not 200 <= status < 300]
    if failed:
        raise SystemExit(f"the learner's requests failed: {failed}")
    latencies: dict[str, list[float]] = {}
    for kind, seconds_, _ in samples:
        latencies.setdefault(kind, []).append(1000 * seconds_)
    return latencies, statuses


def quantile(values: list[float], q: float) -> float:
    """Return the ``q`` quantile of ``values`` (nan when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if q == 0.5:
        return statistics.median(ordered)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    """Measure the learner alone, then under each load, and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--flooders", type=int, default=2, help="threads per load")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--loads", default="sandbox,imports,scheduling,anki,all")
    parser.add_argument("--addresses", action="store_true",
                        help="keep the per-address limits as configured, each flooder thread "
                             "a client of its own address (X-Forwarded-For, one trusted hop); "
                             "by default they are lifted, every flooder a crowd of addresses")
    parser.add_argument("--import-attempts", type=int, default=8_000,
                        help="answers in the import document, which must stay under the "
                             "service's import limit (8,000: about 7.5 MB)")
    args = parser.parse_args()
    phases = [name for name in args.loads.split(",") if name]
    for name in phases:  # a load, "all", or loads joined by "+" (imports+anki)
        if name != "all" and not set(name.split("+")) <= set(LOADS):
            raise SystemExit(f"unknown load {name!r}; choose from {', '.join(LOADS)}, all")
    with tempfile.TemporaryDirectory() as folder:
        bank_dir = Path(folder) / "question_bank"
        shutil.copytree(ROOT / "question_bank", bank_dir)
        url, drop = scratch_database(args.backend, Path(folder), "quizsvc_flood")
        log = Path(folder) / "serve.log"
        try:
            process, port = start_service(url, args.workers, bank_dir, log, args.addresses)
            try:
                document = large_export(port, args.import_attempts)
                limit = from_environment()["IMPORT_MAX_CONTENT_LENGTH"]
                if len(document) > limit:  # refused unread: no import would be measured
                    raise SystemExit(
                        f"the import document ({len(document):,} bytes) is over the service's "
                        f"import limit ({limit:,}): every import and every scheduling "
                        f"flooder's history would be refused unread; pass fewer "
                        f"--import-attempts")
                warm_decks(port)
                print(f"quizsvc serve, {args.backend}, {args.workers} workers, "
                      f"{os.cpu_count()} CPUs; {args.flooders} flooder(s) per load; "
                      f"{args.seconds:.0f} s per phase; import document "
                      f"{len(document) / 1e6:.1f} MB ({args.import_attempts} answers); "
                      f"per-address limits "
                      f"{'as configured, a client per address' if args.addresses else 'lifted'}",
                      flush=True)
                print(f"{'phase':<11} {'next p50':>9} {'p99':>7} {'answer p50':>11} {'p99':>7}"
                      f"  {'p50 x':>6} {'p99 x':>6} {'n':>5}  flood replies", flush=True)
                alone, _ = phase(port, [], 0, args.seconds, document, args.addresses)
                report("alone", alone, alone, {})
                for name in phases:
                    loads = list(LOADS) if name == "all" else name.split("+")
                    latencies, statuses = phase(port, loads, args.flooders, args.seconds,
                                                document, args.addresses)
                    report(name, latencies, alone, statuses)
            finally:
                process.terminate()
                process.wait(timeout=30)
        finally:
            drop()
    return 0


def report(name: str, latencies: dict[str, list[float]], alone: dict[str, list[float]],
           statuses: dict[str, int]) -> None:
    """Print one phase: the learner's p50/p99 by kind, the worst ratio to alone, the number of
    next-question samples (the p99 of a few hundred is their third-worst: a phase of 8 s
    varies from run to run; ``--seconds`` longer steadies it), the flood."""
    figures = {kind: (quantile(latencies.get(kind, []), 0.5),
                      quantile(latencies.get(kind, []), 0.99)) for kind in ("next", "answer")}
    base = {kind: (quantile(alone.get(kind, []), 0.5), quantile(alone.get(kind, []), 0.99))
            for kind in ("next", "answer")}
    p50_ratio = max(figures[kind][0] / base[kind][0] for kind in figures)
    p99_ratio = max(figures[kind][1] / base[kind][1] for kind in figures)
    verdict = "" if name == "alone" else (
        "  within target" if p50_ratio <= 2 and p99_ratio <= 5 else "  OVER target")
    print(f"{name:<11} {figures['next'][0]:>9.1f} {figures['next'][1]:>7.1f} "
          f"{figures['answer'][0]:>11.1f} {figures['answer'][1]:>7.1f}  {p50_ratio:>6.2f} "
          f"{p99_ratio:>6.2f} {len(latencies.get('next', [])):>5}  "
          f"{dict(sorted(statuses.items())) or ''}{verdict}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
