"""Ask each dependency the service needs whether it answers, for ``/readyz``.

The database must answer and be migrated to the newest revision. Redis is asked only where
one is configured: ``REDIS_URL`` (``redis``), and ``RATELIMIT_STORAGE_URI`` when the rate-limit
counters live in Redis (``rate_limits``); each is pinged with a short timeout, so a probe never
hangs on an address that drops packets. A check says ``ok``, ``unreachable`` or ``behind``
(the database's schema), with a short detail: the error's class, never a URL (it may hold a
password).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis
from sqlalchemy.exc import SQLAlchemyError

from quizsvc.store.database import Database

REDIS_SCHEMES = ("redis://", "rediss://", "redis+unix://")
REDIS_TIMEOUT_SECONDS = 1.0


@dataclass(frozen=True)
class Check:
    """What one dependency answered."""

    status: str  # "ok", "unreachable" or "behind"
    detail: str | None = None

    @property
    def ok(self) -> bool:
        """Tell whether the dependency is fit to serve."""
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """Return the check as ``/readyz`` shows it."""
        return {"status": self.status, "detail": self.detail}


def check_database(database: Database, head: str) -> tuple[Check, str | None]:
    """Ask the database for ``SELECT 1`` and its revision; return the check and the revision."""
    try:
        revision = database.revision()
    except SQLAlchemyError as error:
        return Check("unreachable", type(error).__name__), None
    if revision != head:
        return Check("behind", f"at revision {revision}, not {head}: run `quizsvc db upgrade`"
                     ), revision
    return Check("ok"), revision


def check_redis(url: str) -> Check:
    """Ping the Redis at ``url`` (at most ``REDIS_TIMEOUT_SECONDS`` to connect and to answer)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                                  socket_timeout=REDIS_TIMEOUT_SECONDS)
    try:
        client.ping()
    except (redis.RedisError, OSError) as error:
        return Check("unreachable", type(error).__name__)
    finally:
        client.close()
    return Check("ok")


def redis_urls(config: Mapping[str, Any]) -> dict[str, str]:
    """Return the Redis URLs the configuration names, by the role they serve."""
    urls: dict[str, str] = {}
    if config.get("REDIS_URL"):
        urls["redis"] = str(config["REDIS_URL"])
    storage = str(config.get("RATELIMIT_STORAGE_URI") or "")
    if storage.startswith(REDIS_SCHEMES):  # limits' redis+unix:// is redis-py's unix://
        urls["rate_limits"] = storage.removeprefix("redis+")
    return urls


def check_all(config: Mapping[str, Any], database: Database, head: str
              ) -> tuple[dict[str, Check], str | None]:
    """Check the database and every configured Redis; return the checks and the revision."""
    database_check, revision = check_database(database, head)
    checks = {"database": database_check}
    for role, url in redis_urls(config).items():
        checks[role] = check_redis(url)
    return checks, revision
