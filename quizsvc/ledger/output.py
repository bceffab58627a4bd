"""What one ``schedule()`` call hands to the model runner, and why each number is what it is.

``SchedulerOutput`` mirrors the token-ledger fields of vLLM 0.33.0's ``SchedulerOutput``
(vllm/v1/core/sched/output.py). ``RequestLimit`` is ours: the record of which limit bound
each request's allocation, so that every number can be explained to a learner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The limits that can decide a request's allocation, in the order the scheduler applies them.
BOUNDS: tuple[str, ...] = (
    "demand",
    "threshold",
    "token_budget",
    "input_budget",
    "max_model_len",
    "padding",
    "kv",
    "seats",
    "preempted",
    "skipped",
)


@dataclass(slots=True)
class RequestLimit:
    """Record the candidate limits for one request in one step and the one that bound it.

    ``bound`` is one of ``BOUNDS``; ``note`` adds the detail a worked solution needs
    (e.g. the KV blocks asked for, or why a request was skipped).
    """

    loop: str
    demand: int
    threshold: int | None
    token_budget: int
    input_budget_minus_draft_slots: int
    max_model_len_room: int | None
    prefix_hit: int
    scheduled: int
    bound: str
    note: str = ""
    kv_blocks_needed: int | None = None
    kv_free_blocks: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form stored in the trace under ``schedule.limits``."""
        return {
            "loop": self.loop,
            "demand": self.demand,
            "threshold": self.threshold,
            "token_budget": self.token_budget,
            "input_budget_minus_draft_slots": self.input_budget_minus_draft_slots,
            "max_model_len_room": self.max_model_len_room,
            "prefix_hit": self.prefix_hit,
            "scheduled": self.scheduled,
            "bound": self.bound,
            "note": self.note,
            "kv_blocks_needed": self.kv_blocks_needed,
            "kv_free_blocks": self.kv_free_blocks,
        }


@dataclass(slots=True)
class SchedulerOutput:
    """Hold one step's plan: who runs, how many positions each, which drafts are verified."""

    sched_step: int
    num_scheduled_tokens: dict[str, int]
    total_num_scheduled_tokens: int
    scheduled_spec_decode_tokens: dict[str, list[int]]
    new_req_ids: list[str]
    new_req_num_computed_tokens: dict[str, int]
    resumed_req_ids: list[str]
    running_req_ids: list[str]
    cached_req_num_computed_tokens: dict[str, int]
    preempted_req_ids: list[str]
    finished_req_ids: list[str]
    num_spec_tokens_to_schedule: int
    token_budget_left: int
    input_budget_left: int
    limits: dict[str, RequestLimit] = field(default_factory=dict)
    # Requests whose chunk stopped short of their known tokens (no output this step).
    partial_prefill_req_ids: frozenset[str] = frozenset()


@dataclass(slots=True)
class UpdateResult:
    """Say what ``update_from_output`` did: who finished and how each output was read."""

    finished_ids: list[str]
    finish_reasons: dict[str, str]
    accepted: dict[str, int]
    rejected: dict[str, int]
    trimmed: dict[str, int]
