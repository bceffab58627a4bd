"""Parse and validate FORMAT.md scenarios into typed, immutable values.

A malformed scenario raises ``ScenarioError`` naming the field (``requests[1].prompt_len``)
and the reason, so the CLI and the API can answer in one line instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quizsvc.ledger.config import LedgerConfig
from quizsvc.ledger.errors import ScenarioError

MAX_PROMPT_TOKENS = 1_000_000
OUTCOME_KEYS = frozenset({"accepted", "sampled", "token_ids", "eos", "eos_index", "drafts"})
REQUEST_KEYS = frozenset(
    {"id", "prompt_len", "prompt_token_ids", "max_tokens", "arrival_step", "priority",
     "min_tokens"}
)


@dataclass(frozen=True, slots=True)
class RequestSpec:
    """Describe one request of a scenario: its tokens, limits and arrival."""

    index: int
    request_id: str
    prompt_token_ids: tuple[int, ...]
    max_tokens: int
    arrival_step: int
    priority: int
    min_tokens: int

    @property
    def arrival_time(self) -> float:
        """Return vLLM's arrival time as FORMAT.md defines it (step + 0.001 * index)."""
        return self.arrival_step + 0.001 * self.index


@dataclass(frozen=True, slots=True)
class Scenario:
    """Hold a whole validated scenario."""

    name: str
    description: str
    config: LedgerConfig
    requests: tuple[RequestSpec, ...]
    default_outcome: dict[str, Any]
    outcomes: dict[int, dict[str, dict[str, Any]]]
    aborts: dict[int, tuple[str, ...]]

    def outcome(self, sched_step: int, request_id: str) -> dict[str, Any]:
        """Return the model-runner outcome for ``request_id`` at ``sched_step``."""
        override = self.outcomes.get(sched_step, {}).get(request_id)
        if override is None:
            return self.default_outcome
        return {**self.default_outcome, **override}


def _int(value: Any, field: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(field, "must be an integer")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"between {low} and {high}"
        raise ScenarioError(field, f"must be {bounds}")
    return value


def default_prompt_ids(index: int, length: int) -> tuple[int, ...]:
    """Return FORMAT.md's prompt ids for request ``index``: ``100 + 1000*i + (j % 900)``."""
    base = 100 + 1000 * index
    return tuple(base + (j % 900) for j in range(length))


def _parse_request(raw: Any, index: int, max_model_len: int) -> RequestSpec:
    where = f"requests[{index}]"
    if not isinstance(raw, dict):
        raise ScenarioError(where, "must be an object")
    for key in raw:
        if key not in REQUEST_KEYS:
            raise ScenarioError(f"{where}.{key}", "unknown key")
    request_id = raw.get("id")
    if not isinstance(request_id, str) or not request_id or len(request_id) > 64:
        raise ScenarioError(f"{where}.id", "must be a non-empty string of at most 64 characters")
    if ("prompt_len" in raw) == ("prompt_token_ids" in raw):
        raise ScenarioError(
            f"{where}.prompt_len", "give exactly one of prompt_len, prompt_token_ids"
        )
    if "prompt_len" in raw:
        length = _int(raw["prompt_len"], f"{where}.prompt_len", 0, MAX_PROMPT_TOKENS)
        prompt = default_prompt_ids(index, length)
        prompt_field = f"{where}.prompt_len"
    else:
        ids = raw["prompt_token_ids"]
        prompt_field = f"{where}.prompt_token_ids"
        if not isinstance(ids, list) or len(ids) > MAX_PROMPT_TOKENS:
            raise ScenarioError(prompt_field, "must be a list of token ids")
        prompt = tuple(_int(t, f"{prompt_field}[{j}]", 0, 2**31 - 1) for j, t in enumerate(ids))
    if not prompt:
        raise ScenarioError(prompt_field, "the prompt is empty (the engine rejects it)")
    if len(prompt) >= max_model_len:
        raise ScenarioError(
            prompt_field,
            f"a prompt of {len(prompt)} tokens does not fit max_model_len {max_model_len}"
            " (the engine rejects it)",
        )
    max_tokens = _int(raw.get("max_tokens", 16), f"{where}.max_tokens", 1, 10_000_000)
    min_tokens = _int(raw.get("min_tokens", 0), f"{where}.min_tokens", 0, 10_000_000)
    if min_tokens > max_tokens:
        raise ScenarioError(f"{where}.min_tokens", f"must not exceed max_tokens ({max_tokens})")
    return RequestSpec(
        index=index,
        request_id=request_id,
        prompt_token_ids=prompt,
        max_tokens=max_tokens,
        arrival_step=_int(raw.get("arrival_step", 0), f"{where}.arrival_step", 0, 10_000_000),
        priority=_int(raw.get("priority", 0), f"{where}.priority", -(2**31), 2**31 - 1),
        min_tokens=min_tokens,
    )


def _parse_outcome(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(where, "must be an object")
    outcome: dict[str, Any] = {}
    for key, value in raw.items():
        field = f"{where}.{key}"
        if key not in OUTCOME_KEYS:
            raise ScenarioError(field, "unknown key")
        if key == "accepted":
            outcome[key] = "all" if value == "all" else _int(value, field, 0, 1024)
        elif key in ("sampled", "drafts", "eos_index"):
            outcome[key] = _int(value, field, 0, 1024)
        elif key == "eos":
            if not isinstance(value, bool):
                raise ScenarioError(field, "must be true or false")
            outcome[key] = value
        else:  # token_ids
            if not isinstance(value, list) or len(value) > 1024:
                raise ScenarioError(field, "must be a list of at most 1024 token ids")
            outcome[key] = [_int(t, f"{field}[{j}]", 0, 2**31 - 1) for j, t in enumerate(value)]
    return outcome


def _step_key(key: Any, field: str) -> int:
    try:
        step = int(key)
    except (TypeError, ValueError):
        raise ScenarioError(field, "keys must be step numbers") from None
    if step < 0 or str(step) != str(key).strip():
        raise ScenarioError(field, "keys must be non-negative step numbers")
    return step


def parse_scenario(raw: Any) -> Scenario:
    """Validate a FORMAT.md scenario (a JSON object) and return it typed."""
    if not isinstance(raw, dict):
        raise ScenarioError("scenario", "must be a JSON object")
    config = LedgerConfig.from_dict(raw.get("config"))
    name = raw.get("name", "scenario")
    if not isinstance(name, str):
        raise ScenarioError("name", "must be a string")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise ScenarioError("description", "must be a string")
    raw_requests = raw.get("requests")
    if not isinstance(raw_requests, list) or not raw_requests:
        raise ScenarioError("requests", "must be a non-empty list")
    requests = tuple(
        _parse_request(item, index, config.max_model_len)
        for index, item in enumerate(raw_requests)
    )
    seen: set[str] = set()
    for spec in requests:
        if spec.request_id in seen:
            raise ScenarioError(f"requests[{spec.index}].id", f"duplicate id {spec.request_id!r}")
        seen.add(spec.request_id)
    default_outcome = _parse_outcome(raw.get("default_outcome", {}), "default_outcome")
    raw_outcomes = raw.get("outcomes", {})
    if not isinstance(raw_outcomes, dict):
        raise ScenarioError("outcomes", "must be an object keyed by step")
    outcomes: dict[int, dict[str, dict[str, Any]]] = {}
    for key, per_request in raw_outcomes.items():
        step = _step_key(key, f"outcomes.{key}")
        if not isinstance(per_request, dict):
            raise ScenarioError(f"outcomes.{key}", "must be an object keyed by request id")
        parsed: dict[str, dict[str, Any]] = {}
        for request_id, outcome in per_request.items():
            if request_id not in seen:
                raise ScenarioError(f"outcomes.{key}.{request_id}", "no such request")
            parsed[request_id] = _parse_outcome(outcome, f"outcomes.{key}.{request_id}")
        outcomes[step] = parsed
    raw_aborts = raw.get("aborts", {})
    if not isinstance(raw_aborts, dict):
        raise ScenarioError("aborts", "must be an object keyed by step")
    aborts: dict[int, tuple[str, ...]] = {}
    for key, ids in raw_aborts.items():
        step = _step_key(key, f"aborts.{key}")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ScenarioError(f"aborts.{key}", "must be a list of request ids")
        for request_id in ids:
            if request_id not in seen:
                raise ScenarioError(f"aborts.{key}", f"no such request {request_id!r}")
        aborts[step] = tuple(ids)
    if "expect" in raw and not isinstance(raw["expect"], list):
        raise ScenarioError("expect", "must be a list")
    return Scenario(name, description, config, requests, default_outcome, outcomes, aborts)
