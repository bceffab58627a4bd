"""Read the service's configuration from ``QUIZSVC_``-prefixed environment variables.

Every setting has one environment variable (listed in ``ENVIRONMENT``), so the same code runs
from ``scripts/serve``, gunicorn and ``docker-compose.yml`` with configuration only through the
environment. ``create_app(config)`` lets tests override any key after the environment is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The secret signs the CSRF token. This fallback is for development only: any deployment must
# set QUIZSVC_SECRET_KEY (docker-compose.yml does), otherwise tokens are forgeable.
DEV_SECRET_KEY = "dev-only-insecure-secret-key"


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
    Setting("SECRET_KEY", "QUIZSVC_SECRET_KEY", str, DEV_SECRET_KEY,
            "key that signs CSRF tokens (dev default is insecure)"),
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
    Setting("MAX_CONTENT_LENGTH", "QUIZSVC_MAX_CONTENT_LENGTH", int, 1_048_576,
            "largest request body in bytes (imports included)"),
    Setting("WORKERS", "QUIZSVC_WORKERS", int, 2,
            "gunicorn worker processes for `quizsvc serve`"),
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
    if setting.kind is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{setting.env}: expected an integer, got {raw!r}") from None
    return raw


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return every setting, read from ``environ`` (default ``os.environ``) or its default."""
    environ = os.environ if environ is None else environ
    config: dict[str, Any] = {}
    for setting in ENVIRONMENT:
        raw = environ.get(setting.env)
        config[setting.key] = setting.default if raw is None else parse_value(setting, raw)
    return config


def default_database_url(instance_path: str | os.PathLike[str]) -> str:
    """Return the SQLite URL of the database file in the Flask instance folder."""
    return f"sqlite:///{Path(instance_path) / 'quizsvc.sqlite3'}"
