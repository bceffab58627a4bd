"""Per-request ledger state, mirroring the fields of vLLM 0.33.0's ``vllm/v1/request.py``.

Only what the token ledger needs is kept: token ids (so stop checks and prefix-cache hashes
are exact), the counters the lesson teaches (``num_tokens``, ``num_tokens_with_spec``,
``num_computed_tokens``, ``num_output_placeholders``) and the status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

EOS_TOKEN_ID = 2


class RequestStatus(StrEnum):
    """Name a request's place in its life cycle, as the trace spells it."""

    WAITING = "WAITING"
    RUNNING = "RUNNING"
    PREEMPTED = "PREEMPTED"
    FINISHED_STOPPED = "FINISHED_STOPPED"
    FINISHED_LENGTH_CAPPED = "FINISHED_LENGTH_CAPPED"
    FINISHED_ABORTED = "FINISHED_ABORTED"

    @property
    def is_finished(self) -> bool:
        """Return True for the three finished statuses."""
        return self in FINISHED_STATUSES

    @property
    def finish_reason(self) -> str | None:
        """Return vLLM's finish-reason string ("stop", "length", "abort") or None."""
        return _FINISH_REASONS.get(self)


FINISHED_STATUSES = frozenset(
    {
        RequestStatus.FINISHED_STOPPED,
        RequestStatus.FINISHED_LENGTH_CAPPED,
        RequestStatus.FINISHED_ABORTED,
    }
)

_FINISH_REASONS = {
    RequestStatus.FINISHED_STOPPED: "stop",
    RequestStatus.FINISHED_LENGTH_CAPPED: "length",
    RequestStatus.FINISHED_ABORTED: "abort",
}


@dataclass(slots=True, eq=False)
class Request:
    """Hold one request's ledger: tokens, counters and status.

    ``all_token_ids`` is the prompt followed by committed outputs, so ``num_tokens`` is its
    length; drafts live apart in ``spec_token_ids`` (``-1`` placeholders under async).
    """

    request_id: str
    prompt_token_ids: list[int]
    max_tokens: int
    arrival_time: float
    min_tokens: int = 0
    priority: int = 0
    eos_token_id: int | None = EOS_TOKEN_ID
    all_token_ids: list[int] = field(default_factory=list)
    spec_token_ids: list[int] = field(default_factory=list)
    num_computed_tokens: int = 0
    num_output_placeholders: int = 0
    num_in_flight_tokens: int = 0
    num_stale_output_tokens: int = 0
    num_preemptions: int = 0
    status: RequestStatus = RequestStatus.WAITING
    is_prefill_chunk: bool = False
    block_hashes: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.all_token_ids:
            self.all_token_ids = list(self.prompt_token_ids)

    @property
    def num_prompt_tokens(self) -> int:
        """Return P, the prompt length."""
        return len(self.prompt_token_ids)

    @property
    def num_tokens(self) -> int:
        """Return N = prompt + committed outputs."""
        return len(self.all_token_ids)

    @property
    def num_output_tokens(self) -> int:
        """Return O, the committed output tokens."""
        return len(self.all_token_ids) - len(self.prompt_token_ids)

    @property
    def num_tokens_with_spec(self) -> int:
        """Return N + S: committed tokens plus drafts waiting to be verified."""
        return len(self.all_token_ids) + len(self.spec_token_ids)

    @property
    def output_token_ids(self) -> list[int]:
        """Return the committed output tokens."""
        return self.all_token_ids[len(self.prompt_token_ids) :]

    @property
    def is_finished(self) -> bool:
        """Return True once the request has stopped, hit a length cap or was aborted."""
        return self.status in FINISHED_STATUSES

    def snapshot(self) -> dict[str, int | str]:
        """Return the trace snapshot of this request's counters."""
        num_tokens = len(self.all_token_ids)
        num_spec = len(self.spec_token_ids)
        return {
            "status": self.status.value,
            "num_tokens": num_tokens,
            "num_tokens_with_spec": num_tokens + num_spec,
            "num_computed_tokens": self.num_computed_tokens,
            "num_output_tokens": num_tokens - len(self.prompt_token_ids),
            "num_spec_token_ids": num_spec,
            "num_output_placeholders": self.num_output_placeholders,
            "num_preemptions": self.num_preemptions,
        }
