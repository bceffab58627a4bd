"""Scheduler configuration: the knobs a scenario may set and the numbers vLLM derives from them.

The speculative-method table fixes ``draft_slots`` (extra input rows charged per scheduled
request), the KV lookahead ``L`` and the prefill lookahead ``PL``, as vLLM 0.33.0 resolves them
(config/speculative.py ``max_num_new_slots_for_drafting``; config/vllm.py
``num_lookahead_tokens``, ``num_prefill_lookahead_tokens``, ``num_hash_lookahead_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from quizsvc.ledger.errors import ScenarioError

SPEC_METHODS: tuple[str, ...] = (
    "ngram",
    "draft_model",
    "draft_model_parallel",
    "eagle",
    "eagle_parallel",
)
EAGLE_METHODS = frozenset({"eagle", "eagle_parallel"})
# Parallel drafting is not supported by vLLM 0.33.0's V2 model runner: it falls back to V1.
PARALLEL_DRAFTING_METHODS = frozenset({"draft_model_parallel", "eagle_parallel"})
POLICIES = ("fcfs", "priority")


def draft_slots_for(spec_method: str, num_speculative_tokens: int) -> int:
    """Return ``draft_slots`` for a method and K (the first column of the table above).

    A function of the method and K alone, so that a caller holding no whole configuration
    (the simulator's form, planning its warm-up) charges the rows the scheduler charges.
    """
    k = num_speculative_tokens
    if k <= 0:  # no method is in force (``effective_spec_method`` is None)
        return 0
    if spec_method == "draft_model":
        return 1
    if spec_method == "draft_model_parallel":
        return k
    if spec_method == "eagle_parallel":
        return k - 1
    return 0


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    """Hold one scenario's scheduler configuration (FORMAT.md defaults)."""

    max_num_batched_tokens: int = 8192
    max_num_seqs: int = 16
    max_model_len: int = 1024
    long_prefill_token_threshold: int = 0
    long_prefill_token_threshold_adaptive: bool = False
    block_size: int = 16
    num_gpu_blocks: int = 10000
    enable_prefix_caching: bool = False
    num_speculative_tokens: int = 0
    spec_method: str = "ngram"
    async_scheduling: bool = False
    policy: str = "fcfs"
    scheduler_reserve_full_isl: bool = True
    watermark: float = 0.0
    max_num_scheduled_tokens: int | None = None
    use_v2_model_runner: bool | None = None
    log_stats: bool = True
    max_steps: int = 200

    # ---- numbers vLLM derives -------------------------------------------------------------
    @property
    def token_budget(self) -> int:
        """Return the per-step ``token_budget`` (``max_num_scheduled_tokens``, default = IB0)."""
        if self.max_num_scheduled_tokens is None:
            return self.max_num_batched_tokens
        return self.max_num_scheduled_tokens

    @property
    def input_budget(self) -> int:
        """Return the per-step ``input_budget`` (``max_num_batched_tokens``)."""
        return self.max_num_batched_tokens

    @property
    def effective_spec_method(self) -> str | None:
        """Return the speculative method in force, or None when K = 0."""
        return self.spec_method if self.num_speculative_tokens > 0 else None

    @property
    def draft_slots(self) -> int:
        """Return ``draft_slots``: input rows each scheduled request reserves for drafting."""
        return draft_slots_for(self.spec_method, self.num_speculative_tokens)

    @property
    def num_lookahead_tokens(self) -> int:
        """Return ``L``: KV slots reserved past the scheduled tokens for the drafter."""
        method = self.effective_spec_method
        if method is None or method == "ngram":
            return 0
        return self.num_speculative_tokens

    @property
    def num_prefill_lookahead_tokens(self) -> int:
        """Return ``PL``: 1 for EAGLE-family drafters, else 0."""
        return 1 if self.effective_spec_method in EAGLE_METHODS else 0

    @property
    def num_hash_lookahead_tokens(self) -> int:
        """Return how many tokens after each block its prefix-cache hash also covers."""
        if self.effective_spec_method in EAGLE_METHODS and self.enable_prefix_caching:
            return 1
        return 0

    @property
    def watermark_blocks(self) -> int:
        """Return the KV blocks kept free when admitting (``int(watermark * num_gpu_blocks)``)."""
        return int(self.watermark * self.num_gpu_blocks)

    @property
    def uses_v2_model_runner(self) -> bool:
        """Return whether vLLM runs the V2 model runner (its default unless parallel drafting)."""
        if self.use_v2_model_runner is not None:
            return self.use_v2_model_runner
        return self.effective_spec_method not in PARALLEL_DRAFTING_METHODS

    @property
    def max_concurrent_batches(self) -> int:
        """Return the engine's batch-queue size: 2 under async scheduling, else 1."""
        return 2 if self.async_scheduling else 1

    def effective(self) -> dict[str, Any]:
        """Return what the scheduler resolved, in the trace's ``effective_config`` shape."""
        method = self.effective_spec_method
        return {
            "vllm_version": "0.33.0",
            "scheduler_class": "AsyncScheduler" if self.async_scheduling else "Scheduler",
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "max_num_scheduled_tokens": self.token_budget,
            "max_num_seqs": self.max_num_seqs,
            "max_model_len": self.max_model_len,
            "long_prefill_token_threshold": self.long_prefill_token_threshold,
            "long_prefill_token_threshold_adaptive": self.long_prefill_token_threshold_adaptive,
            "enable_chunked_prefill": True,
            "async_scheduling": self.async_scheduling,
            "policy": self.policy,
            "scheduler_reserve_full_isl": self.scheduler_reserve_full_isl,
            "watermark": self.watermark,
            "block_size": self.block_size,
            "hash_block_size": self.block_size,
            "num_gpu_blocks": self.num_gpu_blocks,
            "num_free_blocks_at_start": self.num_gpu_blocks - 1,
            "enable_prefix_caching": self.enable_prefix_caching,
            "num_speculative_tokens": self.num_speculative_tokens,
            "spec_method": method,
            "draft_slots": self.draft_slots,
            "num_lookahead_tokens": self.num_lookahead_tokens,
            "num_prefill_lookahead_tokens": self.num_prefill_lookahead_tokens,
            "num_hash_lookahead_tokens": self.num_hash_lookahead_tokens,
            "max_concurrent_batches": self.max_concurrent_batches,
            "use_v2_model_runner": self.uses_v2_model_runner,
        }

    @classmethod
    def from_dict(cls, raw: Any, where: str = "config") -> LedgerConfig:
        """Build a config from a scenario's ``config`` object, rejecting unknown or bad keys."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise ScenarioError(where, "must be an object")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in known:
                raise ScenarioError(f"{where}.{key}", "unknown key")
            values[key] = _check_config_value(f"{where}.{key}", key, value)
        config = cls(**values)
        _check_config_consistency(config, where)
        return config


_INT_LIMITS: dict[str, tuple[int, int]] = {
    "max_num_batched_tokens": (1, 10_000_000),
    "max_num_seqs": (1, 100_000),
    "max_model_len": (2, 10_000_000),
    "long_prefill_token_threshold": (0, 10_000_000),
    "block_size": (1, 4096),
    "num_gpu_blocks": (2, 100_000_000),
    "num_speculative_tokens": (0, 64),
    "max_num_scheduled_tokens": (1, 10_000_000),
    "max_steps": (1, 1_000_000),
}
_BOOL_KEYS = frozenset(
    {
        "long_prefill_token_threshold_adaptive",
        "enable_prefix_caching",
        "async_scheduling",
        "scheduler_reserve_full_isl",
        "log_stats",
    }
)


def _check_config_value(field: str, key: str, value: Any) -> Any:
    """Validate one config value's type and range; return it normalised."""
    if key in _INT_LIMITS:
        if key == "max_num_scheduled_tokens" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScenarioError(field, "must be an integer")
        low, high = _INT_LIMITS[key]
        if not low <= value <= high:
            raise ScenarioError(field, f"must be between {low} and {high}")
        return value
    if key in _BOOL_KEYS:
        if not isinstance(value, bool):
            raise ScenarioError(field, "must be true or false")
        return value
    if key == "use_v2_model_runner":
        if value is not None and not isinstance(value, bool):
            raise ScenarioError(field, "must be true, false or null")
        return value
    if key == "spec_method":
        if value not in SPEC_METHODS:
            raise ScenarioError(field, f"must be one of {', '.join(SPEC_METHODS)}")
        return value
    if key == "policy":
        if value not in POLICIES:
            raise ScenarioError(field, "must be 'fcfs' or 'priority'")
        return value
    if key == "watermark":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(field, "must be a number")
        if not 0.0 <= value < 1.0:
            raise ScenarioError(field, "must be in [0, 1)")
        return float(value)
    raise ScenarioError(field, "unknown key")  # pragma: no cover - guarded by caller


def _check_config_consistency(config: LedgerConfig, where: str) -> None:
    """Reject the combinations vLLM 0.33.0 itself refuses at start-up.

    A scenario the real engine would not start has no real trace, so the ledger refuses it
    too (config/scheduler.py and config/vllm.py validation).
    """
    if config.token_budget > config.max_num_batched_tokens:
        raise ScenarioError(
            f"{where}.max_num_scheduled_tokens", "must not exceed max_num_batched_tokens"
        )
    if config.max_num_batched_tokens < config.max_num_seqs:
        raise ScenarioError(
            f"{where}.max_num_batched_tokens",
            f"must be at least max_num_seqs ({config.max_num_seqs}); vLLM refuses less",
        )
    if config.long_prefill_token_threshold > config.max_model_len:
        raise ScenarioError(
            f"{where}.long_prefill_token_threshold",
            f"must not exceed max_model_len ({config.max_model_len})",
        )
    lookahead = config.num_lookahead_tokens
    if lookahead and config.max_num_batched_tokens <= lookahead:
        raise ScenarioError(
            f"{where}.max_num_batched_tokens",
            f"must exceed the speculative lookahead ({lookahead}) to schedule a token",
        )
    method = config.effective_spec_method
    if method == "eagle_parallel" and config.use_v2_model_runner is True:
        raise ScenarioError(
            f"{where}.use_v2_model_runner",
            "vLLM 0.33.0's V2 model runner does not support parallel EAGLE drafting",
        )
    if method == "ngram" and config.async_scheduling and config.use_v2_model_runner is False:
        raise ScenarioError(
            f"{where}.async_scheduling",
            "async scheduling with n-gram drafts needs the V2 model runner",
        )
