"""Look up and wipe a test browser's learner and history, as a database restore would."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from quizsvc.store.models import (
    Attempt,
    Browser,
    Mastery,
    ReviewCard,
    ReviewLog,
    SelfAssessment,
    ServedVariant,
    StudySession,
)
from quizsvc.study.linking import digest


def learner_and_browser(db: Any, browser: Any) -> tuple[int, int]:
    """Return the learner id and browser id behind ``browser``'s cookie."""
    db.expire_all()
    token = browser.client.get_cookie("quizsvc_browser").value
    row = db.execute(select(Browser.learner_id, Browser.id)
                     .where(Browser.token_hash == digest(token))).one()
    return row.learner_id, row.id


def learner_of(db: Any, browser: Any) -> int:
    """Return the learner id behind ``browser``'s cookie."""
    return learner_and_browser(db, browser)[0]


def attempt_ids(db: Any, browser: Any) -> list[int]:
    """Return the ids of the attempts of ``browser``'s learner, oldest first."""
    learner = learner_of(db, browser)
    return list(db.scalars(select(Attempt.id).where(Attempt.learner_id == learner)
                           .order_by(Attempt.id)))


def forget_history(db: Any, browser: Any) -> None:
    """Delete everything the browser's learner has studied (its row and browser stay).

    What a learner finds after its data were lost, say after a restore of an older backup:
    the learner, with an empty history.
    """
    learner = learner_of(db, browser)
    browsers = select(Browser.id).where(Browser.learner_id == learner)
    db.execute(delete(SelfAssessment).where(SelfAssessment.browser_id.in_(browsers)))
    for model in (Mastery, ReviewLog, ReviewCard, Attempt, StudySession, ServedVariant):
        db.execute(delete(model).where(model.learner_id == learner))
    db.commit()


def comparable(document: dict[str, Any], secret_key: str = "test-secret") -> dict[str, Any]:
    """Return an export as two exports of the same data compare: seals opened (each seal
    draws a fresh nonce), the signature and time left out."""
    from quizsvc.study import seal

    attempts = [{**a, "sealed": seal.unseal(secret_key, a["sealed"]) if a["sealed"] else None}
                for a in document["attempts"]]
    return {**{k: v for k, v in document.items() if k not in ("signature", "exported_at")},
            "attempts": attempts}
