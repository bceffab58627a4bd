"""quizsvc: spaced-repetition quizzes on vLLM 0.33.0's V1 scheduler ledger.

The web application factory lives in ``quizsvc.app`` (``quizsvc.create_app``) and is imported
lazily so that ``import quizsvc.ledger`` never pulls in Flask or SQLAlchemy.
"""

from typing import Any

__all__ = ["create_app"]


def create_app(config: dict[str, Any] | None = None) -> Any:
    """Build the Flask application (imported lazily to keep the ledger core dependency-free)."""
    from quizsvc.app import create_app as factory

    return factory(config)
