"""Benchmark the service under gunicorn against a bare Flask "hello" app, on SQLite and PostgreSQL.

For each backend this script migrates a scratch database, starts gunicorn twice (the service,
then a one-route Flask app) with the same worker count, and drives each from a separate client
process over loopback for a fixed time:

- graded answers: ``POST /api/attempts`` on variants served beforehand (written straight to
  the database so that preparation is not timed), half right and half wrong;
- next question: ``GET /api/sessions/{id}/next`` on fresh one-question sessions, so every
  request draws and stores a new variant;
- hello: ``GET /`` on the bare app;
- floor: the same answer requests on ``floor_app``, a one-route Flask app that only checks
  the cookie and CSRF token, parses the body and commits one INSERT: the least a durable
  answer costs on this machine, so the distance from it to the service is the service's own;
- library floor: the floor's same INSERT through the libraries the service is built on
  (flask-smorest with the service's own request and reply schemas, Flask-Limiter, SQLAlchemy
  Core), so that distance splits into what those libraries cost and what the service's own work
  (identity, grading, review, mastery) costs.

It prints requests per second, p50/p99 latency and the ratio to bare Flask, and where each
phase's CPU went (``cpu_accounting``: gunicorn workers, client, PostgreSQL), then times the
due-queue query (``quizsvc.study.progress.due_queue``) for a learner with 50,000 cards.
Targets (issue 13): graded answers at least 0.8 of the hand-written hot path of a107b29
(bench both side by side); due-queue p50 < 5 ms; due_reviews p50 < 5 ms.

    .venv/bin/python bench/api_bench.py [--seconds 5] [--clients 4] [--workers 2]
                                        [--backends sqlite,postgresql]

PostgreSQL: a scratch database ``quizsvc_bench`` is created on the server of
``QUIZSVC_BENCH_POSTGRES_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``)
and dropped afterwards.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cpu_accounting import CpuMeter, CpuShares  # noqa: E402  (the bench folder's own)

DEFAULT_PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
BENCH_DATABASE = "quizsvc_bench"


# The bench's learners all come from 127.0.0.1, standing for many clients: limits per address
# would count them as one (the per-browser limits stay as configured).
ONE_ADDRESS = {
    "QUIZSVC_NEW_BROWSER_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_SIMULATE_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_LINK_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_IMPORT_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_ANKI_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_RETENTION_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_SANDBOX_CPU_PER_ADDRESS": "1000000000/minute",
}


def hello_app() -> Any:
    """Return the bare Flask app the service is compared with (gunicorn factory)."""
    from flask import Flask

    app = Flask("hello")

    @app.route("/")
    def hello() -> str:
        return "hello"

    return app


FLOOR_TABLE = "bench_floor"


def floor_app() -> Any:
    """Return the floor app (gunicorn factory): the least a durable answer can cost here.

    One route does what any cookie-identified, CSRF-checked JSON answer must: read the
    cookie, compare the echoed CSRF token, hash the cookie, parse the JSON body, commit one
    INSERT (SQLite WAL or PostgreSQL, through the driver, from ``QUIZSVC_DATABASE_URL``)
    and reply in JSON. No identity lookup, grading, review or mastery: its ratio to bare
    Flask says how much of the budget is left for the service's own work.
    """
    import hashlib
    import hmac
    import sqlite3

    from flask import Flask, Response, request
    from sqlalchemy.engine import make_url

    url = make_url(os.environ["QUIZSVC_DATABASE_URL"])
    app = Flask("floor")
    connections: dict[int, Any] = {}

    def connection() -> Any:
        db = connections.get(os.getpid())
        if db is None:
            if url.get_backend_name() == "sqlite":
                db = sqlite3.connect(url.database, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            else:
                import psycopg

                db = psycopg.connect(url.set(drivername="postgresql").render_as_string(
                    hide_password=False), autocommit=True)
            connections[os.getpid()] = db
        return db

    @app.get("/")
    def ready() -> str:
        return "ok"

    @app.post("/api/attempts")
    def answer() -> Response:
        token = request.cookies.get("quizsvc_browser", "")
        echoed = request.headers.get("X-CSRF-Token", "")
        if not hmac.compare_digest(request.cookies.get("csrf_token", ""), echoed):
            return Response('{"code":"csrf_failed"}', 403, mimetype="application/json")
        body = json.loads(request.get_data())
        row = (hashlib.sha256(token.encode()).hexdigest(), body["variant_id"],
               json.dumps(body["answer"]))
        db = connection()
        if isinstance(db, sqlite3.Connection):
            db.execute("BEGIN IMMEDIATE")
            db.execute(f"INSERT INTO {FLOOR_TABLE} (token_hash, variant_id, answer) "
                       "VALUES (?, ?, ?)", row)
            db.execute("COMMIT")
        else:
            db.execute(f"INSERT INTO {FLOOR_TABLE} (token_hash, variant_id, answer) "
                       "VALUES (%s, %s, %s)", row)
        return Response(json.dumps({"id": 1, "correct": True}), 201,
                        mimetype="application/json")

    return app


def library_floor_app() -> Any:
    """Return the library floor app (gunicorn factory): the floor's work on our libraries.

    The same one INSERT as ``floor_app``, but through the stack the service is built on:
    flask-smorest parses the Idempotency-Key header and the body with the service's own
    request schemas (webargs, marshmallow) and dumps the reply with its ``AttemptSchema``;
    Flask-Limiter counts the route per browser; SQLAlchemy Core commits the INSERT on a
    pooled connection. No identity, grading, review or mastery: the distance from it to the
    service is what the service's own work costs, and its distance from the floor is what the
    chosen libraries cost before the service does anything.
    """
    import hashlib
    import hmac

    from flask import Flask, request
    from flask.views import MethodView
    from flask_limiter import Limiter
    from flask_smorest import Api, Blueprint
    from sqlalchemy import Column, Integer, MetaData, String, Table, Text, insert

    from quizsvc.api.schemas import AttemptSchema
    from quizsvc.http.arguments import AttemptCreateSchema, IdempotencyHeaderSchema
    from quizsvc.store.database import make_engine

    engine = make_engine(os.environ["QUIZSVC_DATABASE_URL"])
    table = Table(FLOOR_TABLE, MetaData(), Column("id", Integer, primary_key=True),
                  Column("token_hash", String), Column("variant_id", String),
                  Column("answer", Text))
    app = Flask("library_floor")
    app.config.update(API_TITLE="floor", API_VERSION="1", OPENAPI_VERSION="3.0.2")
    api = Api(app)
    limiter = Limiter(key_func=lambda: request.cookies.get("quizsvc_browser", ""),
                      app=app, storage_uri="memory://", headers_enabled=True)
    blp = Blueprint("attempts", __name__, url_prefix="/api/attempts")

    @app.get("/")
    def ready() -> str:
        return "ok"

    @blp.route("")
    class Attempts(MethodView):
        decorators: ClassVar[list[Any]] = [limiter.limit("100000/minute")]

        @blp.arguments(IdempotencyHeaderSchema, location="headers", as_kwargs=True)
        @blp.arguments(AttemptCreateSchema)
        @blp.response(201, AttemptSchema)
        def post(self, body: dict[str, Any], idempotency_key: str) -> Any:
            token = request.cookies.get("quizsvc_browser", "")
            echoed = request.headers.get("X-CSRF-Token", "")
            if not hmac.compare_digest(request.cookies.get("csrf_token", ""), echoed):
                return {"code": "csrf_failed"}, 403
            with engine.begin() as connection:
                connection.execute(insert(table).values(
                    token_hash=hashlib.sha256(token.encode()).hexdigest(),
                    variant_id=body["variant_id"], answer=json.dumps(body["answer"])))
            return {"id": 1, "variant_id": body["variant_id"], "question_id": "q",
                    "kind": "numeric", "graded": True, "correct": True, "score": 1.0,
                    "per_element": [], "closed_book": True, "practice": False,
                    "submitted_at": datetime.now(UTC), "duration_ms": 1000,
                    "explanation_required": False, "rating": None, "rating_choices": [],
                    "submitted_answer": body["answer"], "reveal": None}

    api.register_blueprint(blp)
    return app


def create_floor_table(engine: Any) -> None:
    """Create the floor app's table in the scratch database."""
    key = "INTEGER PRIMARY KEY" if engine.dialect.name == "sqlite" else "SERIAL PRIMARY KEY"
    with engine.begin() as connection:
        connection.exec_driver_sql(f"CREATE TABLE {FLOOR_TABLE} (id {key}, token_hash TEXT, "
                                   "variant_id TEXT, answer TEXT)")


# ---------------------------------------------------------------- servers


def free_port() -> int:
    """Return a free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A gunicorn process serving one app on a loopback port."""

    process: subprocess.Popen[bytes]
    port: int

    def stop(self) -> None:
        """Stop gunicorn and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=30)


def start_gunicorn(target: str, workers: int, env: dict[str, str], ready_path: str) -> Server:
    """Start gunicorn on ``target`` and wait until ``ready_path`` answers 200."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers",
         str(workers), "--preload", "--chdir", str(ROOT), "--pythonpath", str(ROOT / "bench"),
         "--log-level", "warning", target],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            status, _, _ = request(port, "GET", ready_path)
            if status == 200:
                return Server(process, port)
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"gunicorn {target} did not start")
        time.sleep(0.1)


def request(port: int, method: str, path: str, body: Any = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes, http.client.HTTPMessage]:
    """Send one request on a new connection (gunicorn's sync workers close each one)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        payload = None if body is None else json.dumps(body).encode()
        all_headers = dict(headers or {})
        if payload is not None:
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.read(), response.headers
    finally:
        connection.close()


# ---------------------------------------------------------------- load driver


@dataclass(frozen=True)
class Job:
    """One request the driver sends."""

    method: str
    path: str
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()


def drive_worker(port: int, jobs: list[Job], seconds: float, start_at: float,
                 out: Any) -> None:
    """Send ``jobs`` one after another until the time is up; report latencies and errors."""
    while time.monotonic() < start_at:
        time.sleep(0.001)
    stop = start_at + seconds
    latencies: list[float] = []
    errors: dict[int, int] = {}
    for job in jobs:
        if time.monotonic() >= stop:
            break
        began = time.perf_counter()
        status, _, _ = request(port, job.method, job.path, job.body, dict(job.headers))
        latencies.append(time.perf_counter() - began)
        if status >= 400:
            errors[status] = errors.get(status, 0) + 1
            if errors[status] == 1 and os.environ.get("QUIZSVC_BENCH_DEBUG"):
                print(job.path, status, request(port, job.method, job.path, job.body,
                                                dict(job.headers))[1][:300], flush=True)
    out.put((latencies, errors, len(latencies) == len(jobs)))


def drive_process(port: int, job_lists: list[list[Job]], seconds: float, out: Any) -> None:
    """Run one client thread per job list inside this (separate) process."""
    import threading

    start_at = time.monotonic() + 0.2
    threads = [threading.Thread(target=drive_worker, args=(port, jobs, seconds, start_at, out))
               for jobs in job_lists]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@dataclass
class Figures:
    """Throughput and latency of one measured phase."""

    name: str
    requests: int
    errors: dict[int, int]
    seconds: float
    p50_ms: float
    p99_ms: float
    exhausted: bool
    cpu: CpuShares | None = None

    @property
    def rps(self) -> float:
        """Return requests per second."""
        return self.requests / self.seconds


def measure(name: str, server: Server, job_lists: list[list[Job]], seconds: float,
            backend: str) -> Figures:
    """Drive ``server`` from a separate process with one thread per job list."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=drive_process, args=(server.port, job_lists, seconds, out))
    meter = CpuMeter(server.process.pid, count_postgres=backend == "postgresql")
    meter.start()
    began = time.monotonic()
    process.start()
    results = [out.get() for _ in job_lists]
    process.join()
    cpu = meter.stop()
    elapsed = min(seconds, time.monotonic() - began - 0.2)
    latencies = sorted(x for lat, _, _ in results for x in lat)
    exhausted = all(ran_out for _, _, ran_out in results)
    if exhausted:  # every client finished its jobs early: time the work actually done
        elapsed = max(sum(lat) for lat, _, _ in results)
    errors: dict[int, int] = {}
    for _, counts, _ in results:
        for status, n in counts.items():
            errors[status] = errors.get(status, 0) + n
    return Figures(name, len(latencies), errors, elapsed,
                   1000 * statistics.median(latencies),
                   1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
                   exhausted, cpu)


# ---------------------------------------------------------------- preparing the service


@dataclass
class Client:
    """One benchmark browser: its cookies and learner."""

    cookie: str
    csrf: str
    learner_id: int


def new_client(port: int, engine: Any) -> Client:
    """Make a browser known to the service and find its learner.

    A browser is stored from its first state change on: after ``GET /api/me`` it clears its
    (empty) self-assessments. Like a browser, it keeps every cookie the service sets, the
    signed identity cookie included (without it each request would look the browser up).
    """
    from sqlalchemy import select

    from quizsvc.store.models import Browser
    from quizsvc.study.linking import digest

    status, _, headers = request(port, "GET", "/api/me")
    assert status == 200
    jar: SimpleCookie = SimpleCookie()
    for header in headers.get_all("Set-Cookie"):
        jar.load(header)
    token, csrf = jar["quizsvc_browser"].value, jar["csrf_token"].value
    status, _, headers = request(port, "DELETE", "/api/self-assessments", headers={
        "Cookie": f"quizsvc_browser={token}; csrf_token={csrf}", "X-CSRF-Token": csrf})
    assert status == 200, status
    for header in headers.get_all("Set-Cookie") or ():
        jar.load(header)
    csrf = jar["csrf_token"].value
    with engine.connect() as connection:
        learner_id = connection.scalar(
            select(Browser.learner_id).where(Browser.token_hash == digest(token)))
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())
    return Client(cookie, csrf, learner_id)


def client_headers(client: Client, **extra: str) -> tuple[tuple[str, str], ...]:
    """Return the cookie and CSRF headers of a client (plus ``extra``)."""
    return (("Cookie", client.cookie), ("X-CSRF-Token", client.csrf), *extra.items())


def prepare_answers(engine: Any, bank: Any, clients: list[Client], per_client: int,
                    rng: random.Random) -> list[list[Job]]:
    """Write served variants for each client and return attempt jobs (half right).

    Each row carries the sealed answer key, as ``next_question`` stores it when serving.
    """
    from quizsvc.bank.answer_key import AnswerKey
    from quizsvc.bank.kinds import GRADED
    from quizsvc.store.models import ServedVariant

    graded = [q for q in bank.questions.values() if q.kind in GRADED]
    now = datetime.now(UTC)
    job_lists = []
    rows = []
    for client in clients:
        jobs = []
        for i in range(per_client):
            question = rng.choice(graded)
            seed, variant = buildable_variant(bank, question.id, rng)
            variant_id = secrets.token_urlsafe(16)
            rows.append({"id": variant_id, "learner_id": client.learner_id,
                         "question_id": question.id, "lesson": question.lesson,
                         "kind": str(question.kind), "seed": seed,
                         "bank_version": str(bank.version), "served_at": now,
                         "answered": False, "open_book": False,
                         "answer_key": AnswerKey.from_variant(variant).to_json()})
            answer = variant.answer if i % 2 == 0 else wrong(variant)
            jobs.append(Job("POST", "/api/attempts", {"variant_id": variant_id,
                                                      "answer": answer},
                            client_headers(client, **{"Idempotency-Key": variant_id})))
        job_lists.append(jobs)
    with engine.begin() as connection:
        connection.execute(ServedVariant.__table__.insert(), rows)
    return job_lists


def buildable_variant(bank: Any, question_id: str, rng: random.Random) -> tuple[int, Any]:
    """Draw seeds until the bank builds a variant (as the service does when serving one)."""
    from quizsvc.bank.errors import BankError

    while True:
        seed = rng.getrandbits(48)
        try:
            return seed, bank.variant(question_id, seed)
        except BankError:
            continue


def wrong(variant: Any) -> Any:
    """Return a parseable wrong answer for a variant."""
    for misconception in variant.misconceptions:
        if misconception.answer not in (None, variant.answer):
            return misconception.answer
    if isinstance(variant.answer, list) and all(isinstance(x, int) for x in variant.answer):
        return [x + 1 for x in variant.answer]
    if isinstance(variant.answer, list):
        return list(reversed(variant.answer)) if len(variant.answer) > 1 else []
    return next(o.id for o in variant.input.options if o.id != variant.answer)


def prepare_sessions(engine: Any, bank: Any, clients: list[Client], per_client: int,
                     rng: random.Random) -> list[list[Job]]:
    """Write one-question sessions for each client and return next-question jobs."""
    from quizsvc.store.models import SessionItem, StudySession

    questions = list(bank.questions.values())
    now = datetime.now(UTC)
    sessions, items, job_lists = [], [], []
    for client in clients:
        jobs = []
        for _ in range(per_client):
            question = rng.choice(questions)
            session_id = secrets.token_urlsafe(16)
            sessions.append({"id": session_id, "learner_id": client.learner_id,
                             "lesson": question.lesson, "mode": "review", "size": 1,
                             "created_at": now})
            items.append({"session_id": session_id, "position": 1, "question_id": question.id,
                          "reason": "new", "variant_id": None})
            jobs.append(Job("GET", f"/api/sessions/{session_id}/next",
                            headers=client_headers(client)))
        job_lists.append(jobs)
    with engine.begin() as connection:
        connection.execute(StudySession.__table__.insert(), sessions)
        connection.execute(SessionItem.__table__.insert(), items)
    return job_lists


# ---------------------------------------------------------------- due queue


def time_due_queue(engine: Any, bank: Any, cards: int, repeats: int) -> dict[str, float]:
    """Give one learner ``cards`` fsrs cards and time the due-queue queries (ms, p50)."""
    from quizsvc.memo import Memo
    from quizsvc.store.models import Browser, Learner, ReviewCard
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import progress
    from quizsvc.study.bank_index import BankIndex
    from quizsvc.study.context import Context, Identity
    from quizsvc.study.limits import Limits

    now = datetime.now(UTC)
    rng = random.Random(50_000)
    with engine.begin() as connection:
        learner_id = connection.execute(Learner.__table__.insert().values(created_at=now)
                                        ).inserted_primary_key[0]
        browser_id = connection.execute(Browser.__table__.insert().values(
            learner_id=learner_id, token_hash=secrets.token_hex(32), created_at=now)
        ).inserted_primary_key[0]
        rows = [{"learner_id": learner_id, "question_id": f"q{i:06d}", "lesson": "bench",
                 "state": 2, "step": None, "stability": 10.0, "difficulty": 5.0,
                 "due": now + timedelta(minutes=rng.randint(-60 * 24 * 30, 60 * 24 * 90)),
                 "last_review": now - timedelta(days=3), "created_at": now}
                for i in range(cards)]
        for start in range(0, cards, 10_000):
            connection.execute(ReviewCard.__table__.insert(), rows[start:start + 10_000])
    if engine.dialect.name == "postgresql":
        # As autovacuum leaves a table that has settled: statistics, and the visibility map
        # that lets the counts be index-only scans.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE review_card")
    memo = Memo()
    ctx = Context(uow=UnitOfWork(engine=engine), bank=bank, index=BankIndex.of(bank),
                  identity=Identity(learner_id, browser_id), now=now,
                  rng=random.Random(1), limits=Limits(), memo=memo)
    figures: dict[str, float] = {}
    began = time.perf_counter()
    progress.due_reviews(ctx, None, 20)  # the first: the tally is counted
    figures["due_reviews, first (tally counted)"] = 1000 * (time.perf_counter() - began)
    for name, call in (("due_queue(limit=20)", lambda: progress.due_queue(ctx, 20)),
                       ("due_reviews (counts + forecast)",
                        lambda: progress.due_reviews(ctx, None, 20)),
                       ("due_reviews, tally counted every time",
                        lambda: (memo.__init__(), progress.due_reviews(ctx, None, 20)))):
        samples = []
        for _ in range(repeats):
            began = time.perf_counter()
            call()
            samples.append(time.perf_counter() - began)
        figures[name] = 1000 * statistics.median(samples)
    ctx.uow.close()
    return figures


# ---------------------------------------------------------------- backends


def scratch_database(backend: str, folder: Path, name: str = BENCH_DATABASE
                     ) -> tuple[str, Callable[[], None]]:
    """Create an empty database ``name`` for ``backend``; return its URL and a cleanup function.

    PostgreSQL: on the server of ``QUIZSVC_BENCH_POSTGRES_URL``, dropped by the cleanup.
    """
    if backend == "sqlite":
        return f"sqlite:///{folder / f'{name}.sqlite3'}", lambda: None
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    server = make_url(os.environ.get("QUIZSVC_BENCH_POSTGRES_URL", DEFAULT_PG_SERVER))
    admin = create_engine(server, isolation_level="AUTOCOMMIT")

    def drop() -> None:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    drop()
    with admin.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")

    def cleanup() -> None:
        drop()
        admin.dispose()

    return server.set(database=name).render_as_string(hide_password=False), cleanup


def run_backend(backend: str, args: argparse.Namespace, bank: Any) -> list[str]:
    """Benchmark one backend; return printable lines."""
    from quizsvc.store import migrate
    from quizsvc.store.database import make_engine

    lines = [f"== {backend} (gunicorn sync, {args.workers} workers; {args.clients} client "
             f"threads in another process; {args.seconds:.0f} s per phase)"]
    with tempfile.TemporaryDirectory() as folder:
        url, cleanup = scratch_database(backend, Path(folder))
        try:
            engine = make_engine(url)
            with engine.connect() as connection:
                migrate.upgrade(connection, "head")
                connection.commit()
            env = {**os.environ, "QUIZSVC_DATABASE_URL": url,
                   "QUIZSVC_SECRET_KEY": secrets.token_hex(16), **ONE_ADDRESS}
            rng = random.Random(4)
            hello = start_gunicorn("api_bench:hello_app()", args.workers, env, "/")
            try:
                hellos = [Job("GET", "/")] * int(args.seconds * 5000)
                bare = measure("hello (bare Flask)", hello, [hellos] * args.clients,
                               args.seconds, backend)
            finally:
                hello.stop()
            service = start_gunicorn("quizsvc.app:serving_app()", args.workers, env, "/readyz")
            try:
                clients = [new_client(service.port, engine) for _ in range(args.clients)]
                budget = int(args.seconds * 1500)  # more than the service can do in time
                answer_jobs = prepare_answers(engine, bank, clients, budget, rng)
                create_floor_table(engine)
                floor = start_gunicorn("api_bench:floor_app()", args.workers, env, "/")
                try:  # the same requests; the floor app writes only its own table
                    floored = measure("floor: one durable JSON POST (no service)",
                                      floor, answer_jobs, args.seconds, backend)
                finally:
                    floor.stop()
                library = start_gunicorn("api_bench:library_floor_app()", args.workers, env,
                                         "/")
                try:  # the floor's one INSERT, through the libraries the service uses
                    library_floored = measure("library floor: the same on our libraries",
                                              library, answer_jobs, args.seconds, backend)
                finally:
                    library.stop()
                answers = measure("graded answers (POST /api/attempts)", service,
                                  answer_jobs, args.seconds, backend)
                nexts = measure("next question (GET /api/sessions/{id}/next)", service,
                                prepare_sessions(engine, bank, clients, budget, rng),
                                args.seconds, backend)
            finally:
                service.stop()
            for figures in (bare, floored, library_floored, answers, nexts):
                note = " (ran out of prepared requests)" if figures.exhausted else ""
                errors = f", errors by status {figures.errors}" if figures.errors else ""
                lines.append(
                    f"  {figures.name:<46} {figures.rps:8.1f} req/s  p50 {figures.p50_ms:6.2f} ms"
                    f"  p99 {figures.p99_ms:6.2f} ms  ratio {figures.rps / bare.rps:5.2f}"
                    f"{errors}{note}")
                if figures.cpu is not None:
                    lines.append(f"  {'':<46} {figures.cpu.per_request(figures.requests)}")
            lines.append(f"  graded answers / bare Flask = {answers.rps / bare.rps:.2f}")
            if floored.cpu is not None and library_floored.cpu is not None \
                    and answers.cpu is not None:
                floor_ms = floored.cpu.worker_ms(floored.requests)
                library_ms = library_floored.cpu.worker_ms(library_floored.requests)
                answer_ms = answers.cpu.worker_ms(answers.requests)
                lines.append(f"  worker CPU per request: floor {floor_ms:.2f} ms, library floor "
                             f"{library_ms:.2f} ms ({library_ms / floor_ms:.2f}x the floor), "
                             f"graded answer {answer_ms:.2f} ms ({answer_ms / floor_ms:.2f}x "
                             f"the floor, {answer_ms / library_ms:.2f}x the library floor)")
            for name, p50 in time_due_queue(engine, bank, args.cards, args.repeats).items():
                lines.append(f"  {name} with {args.cards} cards: p50 {p50:.2f} ms"
                             "  (target < 5 ms)")
            engine.dispose()
        finally:
            cleanup()
    return lines


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cards", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    import shutil

    from quizsvc.bank import load_bank

    # Serve and grade from one frozen copy of the bank: authors editing question_bank/ during
    # the run would otherwise change the bank version under the prepared variants.
    snapshot = Path(tempfile.mkdtemp()) / "question_bank"
    shutil.copytree(ROOT / "question_bank", snapshot)
    os.environ["QUIZSVC_BANK_DIR"] = str(snapshot)
    bank = load_bank(snapshot)
    print(f"quizsvc api bench: bank {bank.version} ({len(bank.questions)} questions), "
          f"{os.cpu_count()} CPUs")
    for backend in args.backends.split(","):
        for line in run_backend(backend.strip(), args, bank):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
