"""Errors the question bank raises, each naming where the problem is and why.

Callers map ``NotFound`` to 404 and every other ``BankError`` to a 4xx (a bad seed, a bad
question id) or, at load time, to a failed ``quizsvc bank check``; nothing here is meant to
surface as a 500.
"""

from __future__ import annotations


class BankError(Exception):
    """Report a problem with bank content or with a request to the bank.

    ``path`` is the file (or the request part) at fault, ``field`` the field inside it and
    ``reason`` a one-line explanation; ``str(error)`` joins them on one line so that a bad
    file is reported as ``path: field: reason``.
    """

    def __init__(self, path: str, field: str, reason: str) -> None:
        self.path = path
        self.field = field
        self.reason = reason
        super().__init__(f"{path}: {field}: {reason}")


class NotFound(BankError):
    """Report that a lesson or question id does not exist in the bank."""


class Redraw(Exception):
    """Signal from a generator that a draw is degenerate or ambiguous and must be redrawn."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
