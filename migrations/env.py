"""Run Alembic against quizsvc's metadata, on SQLite (batch mode) or PostgreSQL.

The URL comes from, in order: a connection passed in ``config.attributes["connection"]``
(tests and ``quizsvc db``), the ``sqlalchemy.url`` option, then the app's configuration
(``QUIZSVC_DATABASE_URL`` or the SQLite file in the instance folder).
"""

from alembic import context

from quizsvc.store.database import make_engine
from quizsvc.store.migrate import resolve_database_url
from quizsvc.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection) -> None:
    """Configure the context on ``connection`` and run the migrations in one transaction."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    """Emit SQL without a database (``alembic upgrade head --sql``)."""
    url = config.get_main_option("sqlalchemy.url") or resolve_database_url()
    context.configure(url=url, target_metadata=target_metadata,
                      render_as_batch=url.startswith("sqlite"), compare_type=True,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate through the given connection, or open one from the resolved URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or resolve_database_url()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            run_with(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
