"""Errors the ledger core raises for input it cannot model."""

from __future__ import annotations


class ScenarioError(ValueError):
    """Reject a malformed scenario, naming the field and the reason in one line.

    ``field`` is a dotted path into the scenario (``config.block_size``,
    ``requests[2].prompt_len``) so that a CLI or an API can point at what to fix.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class SchedulerCrash(RuntimeError):
    """Signal a state in which vLLM 0.33.0 itself raises (e.g. SPEC S20's padding assertion).

    The model refuses to continue rather than invent behaviour the real scheduler never has.
    """
