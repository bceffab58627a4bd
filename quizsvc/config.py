"""Read the service's configuration from ``QUIZSVC_``-prefixed environment variables.

Every setting has one environment variable (listed in ``ENVIRONMENT``), so the same code runs
from ``scripts/serve``, gunicorn and ``docker-compose.yml`` with configuration only through the
environment. ``create_app(config)`` lets tests override any key after the environment is read;
a test's configuration (``TESTING``) reads no environment, only these defaults.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Setting:
    """Describe one configuration key: its environment variable, parser and default."""

    key: str
    env: str
    kind: type
    default: Any
    doc: str


ENVIRONMENT: tuple[Setting, ...] = (
    Setting("DATABASE_URL", "QUIZSVC_DATABASE_URL", str, None,
            "SQLAlchemy URL; default: SQLite file quizsvc.sqlite3 in the instance folder"),
    Setting("SECRET_KEY", "QUIZSVC_SECRET_KEY", str, None,
            "key that signs browser ids, CSRF tokens and exports; unset: one is generated "
            "into the instance folder (every server of a deployment must share it)"),
    Setting("COOKIE_SECURE", "QUIZSVC_COOKIE_SECURE", bool, False,
            "mark the identity and CSRF cookies Secure (set behind HTTPS)"),
    Setting("AUTHOR_TOKEN", "QUIZSVC_AUTHOR_TOKEN", str, None,
            "bearer token for author-only variant previews and bank export; unset = disabled"),
    Setting("LINK_CODE_TTL_SECONDS", "QUIZSVC_LINK_CODE_TTL_SECONDS", int, 600,
            "how long a browser-link code stays valid"),
    Setting("MAX_SESSION_SIZE", "QUIZSVC_MAX_SESSION_SIZE", int, 50,
            "largest `size` a study session may ask for"),
    Setting("SIMULATE_MAX_REQUESTS", "QUIZSVC_SIMULATE_MAX_REQUESTS", int, 16,
            "POST /api/simulate: most requests in one scenario"),
    Setting("SIMULATE_MAX_STEPS", "QUIZSVC_SIMULATE_MAX_STEPS", int, 200,
            "POST /api/simulate: largest config.max_steps"),
    Setting("SIMULATE_MAX_PROMPT_LEN", "QUIZSVC_SIMULATE_MAX_PROMPT_LEN", int, 4096,
            "POST /api/simulate: longest prompt (prompt_len or prompt_token_ids)"),
    Setting("SIMULATE_CPU_SECONDS", "QUIZSVC_SIMULATE_CPU_SECONDS", float, 0.25,
            "POST /api/simulate: CPU seconds one replay may take (typical: ~0.001)"),
    Setting("SIMULATE_RATE_LIMIT", "QUIZSVC_SIMULATE_RATE_LIMIT", str, "5/second;60/minute",
            "POST /api/simulate and the simulator page, per browser (Flask-Limiter syntax)"),
    Setting("SIMULATE_ADDRESS_RATE_LIMIT", "QUIZSVC_SIMULATE_ADDRESS_RATE_LIMIT", str,
            "10/second;300/minute", "the same, per client address (every browser behind it)"),
    Setting("SANDBOX_CPU_PER_BROWSER", "QUIZSVC_SANDBOX_CPU_PER_BROWSER", str,
            "250/second;5000/minute", "CPU milliseconds the sandbox may spend for one browser"),
    Setting("SANDBOX_CPU_PER_ADDRESS", "QUIZSVC_SANDBOX_CPU_PER_ADDRESS", str,
            "500/second;10000/minute", "CPU milliseconds the sandbox may spend for one address"),
    Setting("SANDBOX_CPU_FOR_ALL", "QUIZSVC_SANDBOX_CPU_FOR_ALL", str, "400/second",
            "CPU milliseconds the sandbox may spend for everyone together (of 1000 per core)"),
    Setting("LINK_RATE_LIMIT", "QUIZSVC_LINK_RATE_LIMIT", str, "10/minute;50/hour",
            "link-code redemption, per browser"),
    Setting("LINK_ADDRESS_RATE_LIMIT", "QUIZSVC_LINK_ADDRESS_RATE_LIMIT", str,
            "30/minute;200/hour", "link-code redemption, per client address"),
    Setting("IMPORT_RATE_LIMIT", "QUIZSVC_IMPORT_RATE_LIMIT", str, "3/minute;10/hour",
            "POST /api/import, per browser"),
    Setting("IMPORT_ADDRESS_RATE_LIMIT", "QUIZSVC_IMPORT_ADDRESS_RATE_LIMIT", str,
            "10/minute;50/hour", "POST /api/import, per client address"),
    Setting("RETENTION_RATE_LIMIT", "QUIZSVC_RETENTION_RATE_LIMIT", str, "6/minute;60/hour",
            "desired-retention changes (each reschedules every card), per browser"),
    Setting("RETENTION_ADDRESS_RATE_LIMIT", "QUIZSVC_RETENTION_ADDRESS_RATE_LIMIT", str,
            "30/minute;300/hour", "the same, per client address"),
    Setting("ANKI_RATE_LIMIT", "QUIZSVC_ANKI_RATE_LIMIT", str, "10/minute;60/hour",
            "Anki deck downloads, per browser"),
    Setting("ANKI_ADDRESS_RATE_LIMIT", "QUIZSVC_ANKI_ADDRESS_RATE_LIMIT", str,
            "30/minute;300/hour", "Anki deck downloads, per client address"),
    Setting("REPORT_RATE_LIMIT", "QUIZSVC_REPORT_RATE_LIMIT", str, "5/minute;30/day",
            "reports of a problem with a question, per browser"),
    Setting("REPORT_ADDRESS_RATE_LIMIT", "QUIZSVC_REPORT_ADDRESS_RATE_LIMIT", str,
            "20/minute;300/day", "reports of a problem with a question, per client address"),
    Setting("NEW_BROWSER_RATE_LIMIT", "QUIZSVC_NEW_BROWSER_RATE_LIMIT", str,
            "30/minute;300/hour;2000/day",
            "new browsers (each a new learner) one client address may create"),
    Setting("AUTHOR_RATE_LIMIT", "QUIZSVC_AUTHOR_RATE_LIMIT", str, "60/minute",
            "author views: for the author's token, and apart for each address guessing it"),
    Setting("INSTRUCTOR_RATE_LIMIT", "QUIZSVC_INSTRUCTOR_RATE_LIMIT", str, "60/minute",
            "a cohort's instructor report and gradebook (API and page), per client address"),
    Setting("PROXY_HOPS", "QUIZSVC_PROXY_HOPS", int, 0,
            "reverse proxies in front of the service whose X-Forwarded-For to trust, so "
            "limits count the client's address (0: the peer's)"),
    Setting("RATELIMIT_STORAGE_URI", "QUIZSVC_RATELIMIT_STORAGE_URI", str, "memory://",
            "where rate-limit counters live: memory:// is per worker process; a deployment "
            "of several workers or servers shares redis://host:6379"),
    Setting("MAX_CONTENT_LENGTH", "QUIZSVC_MAX_CONTENT_LENGTH", int, 1_048_576,
            "largest request body in bytes (but an import's)"),
    Setting("IMPORT_MAX_CONTENT_LENGTH", "QUIZSVC_IMPORT_MAX_CONTENT_LENGTH", int, 8_388_608,
            "largest body of POST /api/import in bytes: an export of about 8,500 answers"),
    Setting("WORKERS", "QUIZSVC_WORKERS", int, 2,
            "gunicorn worker processes for `quizsvc serve`"),
    Setting("THREADS", "QUIZSVC_THREADS", int, 8,
            "threads per gunicorn worker for `quizsvc serve`: a request waiting on the "
            "costly-work pool or the database holds a thread, never the worker"),
    Setting("WORK_PROCESSES", "QUIZSVC_WORK_PROCESSES", int, 0,
            "processes of each lane of each worker's costly-work pool (a quick lane for "
            "sandbox replays; a heavy one for decks, imports, rescheduling, reports); 0 runs "
            "that work inline on the request's thread. `quizsvc serve` makes it 1 unless set"),
    Setting("WORK_QUEUE", "QUIZSVC_WORK_QUEUE", int, 8,
            "jobs one lane of a worker's pool holds, running or waiting; past that a request "
            "is a 503 busy with Retry-After"),
    Setting("REDIS_URL", "QUIZSVC_REDIS_URL", str, None,
            "redis://host:6379/0 the service uses; /readyz says whether it answers"),
    Setting("METRICS", "QUIZSVC_METRICS", str, "",
            "Prometheus metrics at /metrics: unset or 0 = off (404); 1 = on for anyone who "
            "reaches the port; any other value = on, for `Authorization: Bearer <value>`"),
    Setting("LOG_FORMAT", "QUIZSVC_LOG_FORMAT", str, "json",
            "`quizsvc serve` logs: json (one object per line, with the request id) or text"),
    Setting("LOG_LEVEL", "QUIZSVC_LOG_LEVEL", str, "INFO",
            "`quizsvc serve` log level; INFO writes one line per request"),
)

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


def parse_value(setting: Setting, raw: str) -> Any:
    """Turn one environment string into the setting's type, naming the variable on error."""
    if setting.kind is bool:
        word = raw.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError(f"{setting.env}: expected true/false, got {raw!r}")
    if setting.kind in (int, float):
        try:
            return setting.kind(raw)
        except ValueError:
            raise ValueError(f"{setting.env}: expected a number ({setting.kind.__name__}), "
                             f"got {raw!r}") from None
    return raw


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return every setting, read from ``environ`` (default ``os.environ``) or its default."""
    environ = os.environ if environ is None else environ
    config: dict[str, Any] = {}
    for setting in ENVIRONMENT:
        raw = environ.get(setting.env)
        config[setting.key] = setting.default if raw is None else parse_value(setting, raw)
    return config


SECRET_KEY_FILE = "secret_key"
SECRET_KEY_BYTES = 32


def instance_secret_key(instance_path: str | os.PathLike[str]) -> tuple[str, bool]:
    """Return the key kept in the instance folder, generating it on first use; say if new.

    A deployment that sets no ``QUIZSVC_SECRET_KEY`` still never runs on a key anyone could
    know: it makes one, once, readable by its owner only. Every server of one deployment must
    share the key (set the variable, or share the instance folder), or one server's browser
    ids, CSRF tokens and signed exports are another's forgeries.
    """
    folder = Path(instance_path)
    path = folder / SECRET_KEY_FILE
    try:
        return path.read_text(encoding="ascii").strip(), False
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(SECRET_KEY_BYTES)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_text(encoding="ascii").strip(), False
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(key + "\n")
    return key, True


def default_database_url(instance_path: str | os.PathLike[str]) -> str:
    """Return the SQLite URL of the database file in the Flask instance folder."""
    return f"sqlite:///{Path(instance_path) / 'quizsvc.sqlite3'}"
