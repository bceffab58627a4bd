"""A real server for tests that talk HTTP: the app on a migrated database, served on loopback.

A browser or a generated API client cannot use the rolled-back test connection, so these tests
get a database that commits: a SQLite file, or a PostgreSQL schema of their own reachable by URL
alone (``new_pg_database``), which gunicorn workers and the ``quizsvc`` CLI can reach as well.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from werkzeug.serving import make_server

from quizsvc import create_app
from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from quizsvc.store.models import ServedVariant
from tests.support.databases import create_schema, drop_schema, postgres_url, unreachable

SCHEMA_NUMBERS = itertools.count(1)
LIVE_AUTHOR_TOKEN = "live-author-token"  # the author pages' token on the live server


@dataclass(frozen=True)
class LiveDatabase:
    """A migrated database reachable by URL from other processes."""

    url: str
    engine: Engine
    schema: str | None = None


def schema_url(schema: str) -> str:
    """Return the test PostgreSQL URL with ``schema`` first on the search path."""
    url = make_url(postgres_url())
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


def migrated(url: str, schema: str | None = None) -> LiveDatabase:
    """Migrate the database at ``url`` to head and return it."""
    engine = make_engine(url)
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    return LiveDatabase(url, engine, schema)


def new_pg_database() -> LiveDatabase:
    """Create and migrate a fresh schema; skip or fail when PostgreSQL is unreachable."""
    schema = f"quizsvc_rel_{os.getpid()}_{next(SCHEMA_NUMBERS)}"
    try:
        create_schema(postgres_url(), schema)
    except OperationalError as error:
        unreachable("postgresql", error)
    return migrated(schema_url(schema), schema)


def dispose_database(database: LiveDatabase) -> None:
    """Drop a PostgreSQL schema (a SQLite file goes with its temporary folder); close the
    engine."""
    if database.schema is not None:
        drop_schema(database.engine, database.schema)
    database.engine.dispose()


@dataclass(frozen=True)
class LiveServer:
    """Name a running app: its base URL, the app, and its database (to look answers up)."""

    url: str
    app: Any
    database_url: str

    @property
    def lesson(self) -> Any:
        """Return the bank's first lesson (the one the pages default to)."""
        lessons = self.app.config["BANK"].lessons
        return next(iter(lessons.values() if isinstance(lessons, dict) else lessons))

    def variant(self, variant_id: str) -> Any:
        """Return a served variant as the server knows it, answer included (tests only)."""
        engine = make_engine(self.database_url)
        try:
            with Session(engine) as session:
                served = session.get(ServedVariant, variant_id)
                assert served is not None, variant_id
                return self.app.config["BANK"].variant(served.question_id, served.seed)
        finally:
            engine.dispose()

    def right_answer(self, variant_id: str) -> Any:
        """Return the answer of a served variant."""
        return self.variant(variant_id).answer


def closing_at_once(app: Any) -> Any:
    """Wrap a WSGI app so that each response is read whole and closed before the server sends it.

    werkzeug's development server closes a response only after draining the request socket,
    and a browser that resets the connection (Chromium does, for a favicon it already has)
    makes that drain raise first: the response is never closed, and its open file (a static
    asset's) is collected later as a ResourceWarning in whichever test runs then. The live
    server's responses are small, so reading each whole costs nothing.
    """
    def wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        iterable = app(environ, start_response)
        try:
            return [b"".join(iterable)]
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()

    return wsgi


@contextmanager
def serve(database: LiveDatabase, bank: Any, **config: Any) -> Iterator[LiveServer]:
    """Serve the app on ``database`` at 127.0.0.1 and a free port, in a thread, until the
    block ends."""
    app = create_app({"TESTING": True, "DATABASE_URL": database.url,
                      "SECRET_KEY": "live-test-secret",
                      "RANDOM_SEED": 20261108, "BANK": bank,
                      # every test learner comes from 127.0.0.1: not one client to limit
                      "NEW_BROWSER_RATE_LIMIT": "1000000/minute",
                      "REPORT_ADDRESS_RATE_LIMIT": "1000000/minute", **config})
    server = make_server("127.0.0.1", 0, closing_at_once(app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", app, database.url)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        # The app's own pool: left to the garbage collector, its PostgreSQL connections
        # would close during some later test, as a ResourceWarning there.
        app.extensions["quizsvc.db"].engine.dispose()
