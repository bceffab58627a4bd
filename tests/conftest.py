"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

- ``engine`` (session scope, parametrised ``sqlite`` / ``postgresql``): a database built by
  ``alembic upgrade head``. PostgreSQL comes from ``QUIZSVC_TEST_POSTGRES_URL``; each run
  works in its own schema (``quizsvc_test_<pid>``, dropped afterwards) so that runs sharing
  the database do not collide. When PostgreSQL is unreachable the PostgreSQL half is skipped
  with the reason shown, unless ``CI`` is set, in which case the run fails.
- ``connection``: one connection per test inside an outer transaction rolled back afterwards,
  so tests never see each other's rows.
- ``app`` / ``client`` / ``db``: the app bound to that connection (a fixed ``clock``, a
  seeded random source, the ``bank``), a test client, and an ORM session for assertions.
- ``bank``: the service tests' ``FakeBank`` (tests of the real bank load it themselves).
- ``browser`` / ``new_browser`` / ``study``: API browsers (``tests.support.browsers``).

Under pytest-xdist (``scripts/test`` runs the suite on one worker per core) each worker is a
process with its own session fixtures: its own SQLite file and PostgreSQL schema (named by
its pid), live server (a free port) and Chromium. What must happen once per run happens in
the controller (``pytest_sessionstart``).

Helpers live in ``tests/support/``; this file holds fixtures and that one hook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from quizsvc.store.unit_of_work import UnitOfWork
from tests.support.browsers import ApiBrowser, Study
from tests.support.chromium import forget_old_screenshots
from tests.support.clock import FakeClock
from tests.support.databases import (
    BACKENDS,
    create_schema,
    drop_schema,
    postgres_schema,
    postgres_url,
    unreachable,
)
from tests.support.fake_bank import FakeBank
from tests.support.routing import share_url_builders

share_url_builders()  # a fresh app per test, without recompiling equal URL builders


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the run: forget the last run's screenshots (once, not in each xdist worker)."""
    if not hasattr(session.config, "workerinput"):
        forget_old_screenshots(session.config)


@pytest.fixture(scope="session", params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Engine]:
    """Yield an engine on a freshly migrated database of each backend."""
    schema = None
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "quizsvc-test.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
    else:
        schema = postgres_schema()
        try:
            create_schema(postgres_url(), schema)
        except OperationalError as error:
            unreachable(request.param, error)
        engine = make_engine(postgres_url(),
                             connect_args={"options": f"-c search_path={schema}"})
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    yield engine
    if schema is not None:
        drop_schema(engine, schema)
    engine.dispose()


@pytest.fixture
def connection(engine: Engine) -> Iterator[Connection]:
    """Yield a connection inside an outer transaction that is rolled back after the test."""
    with engine.connect() as connection:
        outer = connection.begin()
        yield connection
        if outer.is_active:
            outer.rollback()


@pytest.fixture
def uow(connection: Connection) -> UnitOfWork:
    """Return a unit of work on the test's connection (each shape a savepoint in it), for
    arranging and asserting through the repositories."""
    return UnitOfWork(bound=connection)


@pytest.fixture
def clock() -> FakeClock:
    """Return a fresh fake clock starting at ``START``."""
    return FakeClock()


@pytest.fixture(scope="session")
def bank() -> Any:
    """Return the bank the service tests run against (real when available)."""
    return FakeBank()


@pytest.fixture
def app_config(engine: Engine, bank: Any, clock: FakeClock) -> dict[str, Any]:
    """Return the configuration the ``app`` fixture passes to ``create_app``."""
    return {
        "TESTING": True,
        "DATABASE_URL": engine.url.render_as_string(hide_password=False),
        "BANK": bank,
        "CLOCK": clock,
        "RANDOM_SEED": 20261102,
        "SECRET_KEY": "test-secret",
        # Rate limits are the tests' business only where a test says so (test_simulate).
        "SIMULATE_RATE_LIMIT": "1000/second", "LINK_RATE_LIMIT": "1000/second",
        "SIMULATE_ADDRESS_RATE_LIMIT": "1000/second", "LINK_ADDRESS_RATE_LIMIT": "1000/second",
        "IMPORT_RATE_LIMIT": "1000/second", "IMPORT_ADDRESS_RATE_LIMIT": "1000/second",
        "ANKI_RATE_LIMIT": "1000/second", "ANKI_ADDRESS_RATE_LIMIT": "1000/second",
        "RETENTION_RATE_LIMIT": "1000/second", "RETENTION_ADDRESS_RATE_LIMIT": "1000/second",
        "REPORT_RATE_LIMIT": "1000/second", "REPORT_ADDRESS_RATE_LIMIT": "1000/second",
        "NEW_BROWSER_RATE_LIMIT": "1000000/second",
        "SANDBOX_CPU_PER_BROWSER": "1000000/second", "SANDBOX_CPU_PER_ADDRESS": "1000000/second",
        "SANDBOX_CPU_FOR_ALL": "1000000/second",
        # A test process's garbage collections pause for up to ~0.1 s of CPU; a replay's own
        # CPU bound is tested where a test sets it (test_bad_input).
        "SIMULATE_CPU_SECONDS": 10.0,
    }


@pytest.fixture
def app(app_config: dict[str, Any], connection: Connection) -> Any:
    """Return an app whose sessions join the test's rolled-back transaction."""
    app = create_app(app_config)
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app


@pytest.fixture
def client(app: Any) -> Any:
    """Return a test client (one browser: it keeps its cookies)."""
    return app.test_client()


@pytest.fixture
def db(connection: Connection) -> Iterator[Session]:
    """Yield an ORM session on the test's connection, for arranging and asserting rows."""
    session = Session(bind=connection, join_transaction_mode="create_savepoint")
    yield session
    session.close()


@pytest.fixture
def backend(engine: Engine) -> str:
    """Return the backend name (``sqlite`` or ``postgresql``)."""
    return engine.dialect.name


@pytest.fixture
def new_browser(app: Any) -> Callable[[], ApiBrowser]:
    """Return a factory of independent API browsers on the same app, each stored."""
    return lambda: ApiBrowser(app)


@pytest.fixture
def browser(new_browser: Callable[[], ApiBrowser]) -> ApiBrowser:
    """Return one API browser that has made its first state change (so it is stored)."""
    return new_browser()


@pytest.fixture
def study(browser: ApiBrowser, db: Any, bank: Any) -> Study:
    """Return a study helper for the default browser."""
    return Study(browser, db, bank)


@pytest.fixture
def author_app(app_config: dict[str, Any], connection: Connection) -> Any:
    """The app with the author views on (``tests.support.cohorts.AUTHOR_TOKEN``), bound to the
    test's connection like ``app``."""
    from tests.support.cohorts import AUTHOR_TOKEN

    app = create_app({**app_config, "AUTHOR_TOKEN": AUTHOR_TOKEN})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app
