"""Define, once, every size limit the use cases enforce and the schemas document.

The API's schemas, the web forms and the use cases all read their bounds from here, so that a
limit is never written twice (``MAX_SESSION_SIZE`` comes from the configuration).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Characters of a free-text answer: the explain kind checks it, the schemas document it.
from quizsvc.bank.kinds.explain import MAX_TEXT_ANSWER as MAX_TEXT_ANSWER

MAX_EXPLANATION = 4000  # characters of a wrong answer's explanation
MAX_IDEMPOTENCY_KEY = 200  # characters of an Idempotency-Key
MAX_NOTE = 2000  # characters of a self-assessment note
MAX_REPORT_TEXT = 500  # characters of a report of a problem with a question
MAX_SEARCH = 200  # characters of a card browser search
MAX_BROWSE_PAGE = 10_000  # pages of the card browser a request may name
MAX_REPORTS_LISTED = 500  # reports one author listing returns
MAX_REF = 200  # characters of a question or section id
MAX_VARIANT_ID = 64  # characters of a served variant's id
MAX_LINK_CODE = 64  # characters a typed link code may take (with spaces and dashes)
MAX_SESSION_SIZE = 50  # questions in one session (the default of the setting)
MAX_OPEN_SESSIONS = 20  # unfinished sessions kept per learner; starting more drops the oldest
MAX_OPEN_LINK_CODES = 5  # unused, unexpired link codes per learner


@dataclass(frozen=True)
class Limits:
    """The configurable limits of one deployment."""

    max_session_size: int = MAX_SESSION_SIZE
    link_code_ttl_seconds: int = 600
    simulate_max_requests: int = 16
    simulate_max_steps: int = 200
    simulate_max_prompt_len: int = 4096
    simulate_cpu_seconds: float = 0.25

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Limits:
        """Read the limits from an app's configuration (missing keys keep their defaults)."""
        defaults = cls()
        return cls(
            max_session_size=int(config.get("MAX_SESSION_SIZE", defaults.max_session_size)),
            link_code_ttl_seconds=int(config.get("LINK_CODE_TTL_SECONDS",
                                                 defaults.link_code_ttl_seconds)),
            simulate_max_requests=int(config.get("SIMULATE_MAX_REQUESTS",
                                                 defaults.simulate_max_requests)),
            simulate_max_steps=int(config.get("SIMULATE_MAX_STEPS",
                                              defaults.simulate_max_steps)),
            simulate_max_prompt_len=int(config.get("SIMULATE_MAX_PROMPT_LEN",
                                                   defaults.simulate_max_prompt_len)),
            simulate_cpu_seconds=float(config.get("SIMULATE_CPU_SECONDS",
                                                  defaults.simulate_cpu_seconds)),
        )
