"""Which database errors mean "unreachable, retry" (503) and which are bugs (500)."""

from __future__ import annotations

from sqlalchemy import exc as sa_exc

from quizsvc.http.errors import database_unreachable


def test_a_connection_invalidated_mid_transaction_counts_as_unreachable() -> None:
    error = sa_exc.PendingRollbackError(
        "Can't reconnect until invalid transaction is rolled back.", None, None
    )
    assert database_unreachable(error)


def test_an_operational_error_anywhere_in_the_cause_chain_counts() -> None:
    try:
        try:
            raise sa_exc.OperationalError("SELECT 1", {}, Exception("server closed"))
        except sa_exc.OperationalError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert database_unreachable(outer)


def test_a_flush_rollback_without_a_disconnect_is_a_bug() -> None:
    error = sa_exc.PendingRollbackError(
        "This Session's transaction has been rolled back due to a previous exception "
        "during flush.", None, None
    )
    assert not database_unreachable(error)
    assert not database_unreachable(ValueError("not a database error"))
