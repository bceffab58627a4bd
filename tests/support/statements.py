"""Count what a request sends the database: the statements, as the driver receives them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event

# What the test's outer transaction adds around each shape (a savepoint per shape).
SAVEPOINTS = ("SAVEPOINT", "RELEASE", "ROLLBACK")


def sent(connection: Any, run: Callable[[], Any], savepoints: bool = False
         ) -> tuple[Any, list[str]]:
    """Return ``run()`` and the statements it sent, savepoints left out unless asked for (an
    executemany is one statement, as it is one call to the driver)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if savepoints or not statement.lstrip().upper().startswith(SAVEPOINTS):
            seen.append(" ".join(statement.split()))

    event.listen(connection, "before_cursor_execute", record)
    try:
        result = run()
    finally:
        event.remove(connection, "before_cursor_execute", record)
    return result, seen
