"""Turn the simulator's "change the variables" settings into a ledger scenario.

A learner describes the state they want to look at (each request running or waiting, its
``num_tokens`` N and ``num_computed_tokens`` C, its drafts) plus the scheduler's knobs. A ledger
scenario cannot start in that state: requests always arrive as prompts. So ``plan_scenario`` adds
*warm-up steps* that drive the real scheduler model into it:

- a decoding request (C = N - 1) arrives alone in its own warm-up step with a prompt of
  ``N - d`` tokens, prefills it in that step and then decodes one token per step for the ``d``
  steps before the target step; later-listed requests arrive later, so the running order is the
  listed order;
- a request still in prefill (C < N - 1) must be the last running one: it arrives in the step
  just before the target step behind *fillers*, throw-away one-token requests whose prompts soak
  up exactly the budget it must not get, so that it is admitted with exactly C tokens;
- waiting requests arrive in the target step itself.

Nothing here imitates the scheduler: the page replays the scenario through the ledger and then
``reached_mismatches`` compares the target step's real ``before_schedule`` state with what the
learner asked for, so a state the warm-up could not build is reported, never faked.

The page's JavaScript does not rebuild any of this: it asks ``GET /api/simulator/plan`` for the
scenario, posts it to ``POST /api/simulate`` and draws the trace with the same rules as
``quizsvc.web.simulator.step_views`` (a browser test checks the two tables agree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

REQUEST_IDS: tuple[str, ...] = ("A", "B", "C", "D")
STATES: tuple[str, ...] = ("off", "running", "waiting")
SPEC_METHODS: tuple[str, ...] = (
    "ngram",
    "draft_model",
    "draft_model_parallel",
    "eagle",
    "eagle_parallel",
)
SCHEDULING_MODES: tuple[str, ...] = ("sync", "async")
MAX_FILLERS = 8
MAX_STEPS_AFTER = 8


def draft_slots_for(spec_method: str, num_speculative_tokens: int) -> int:
    """Return ``draft_slots`` for a method and K, from FORMAT.md's method table.

    The input budget reserves these slots per scheduled request, so the warm-up needs them to
    know how much room a newly admitted request gets.
    """
    k = num_speculative_tokens
    if k == 0:
        return 0
    return {
        "ngram": 0,
        "draft_model": 1,
        "draft_model_parallel": k,
        "eagle": 0,
        "eagle_parallel": k - 1,
    }[spec_method]


class SettingsError(ValueError):
    """Report one simulator setting that cannot be used, naming the field and the reason."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


@dataclass(frozen=True)
class RequestSetting:
    """Describe one request as the learner wants it at the target step.

    ``state`` is "running", "waiting" or "off" (not in the scenario). For a running request
    ``num_computed_tokens`` (C) is between 1 and N - 1: C = N - 1 is a decode, anything lower a
    request still in (chunked) prefill. ``drafts`` are the drafts it carries into the step.
    """

    id: str
    state: str = "off"
    num_tokens: int = 10
    num_computed_tokens: int = 0
    drafts: int = 0

    @property
    def is_decode(self) -> bool:
        """Say whether this running request has finished its prompt (C = N - 1)."""
        return self.state == "running" and self.num_computed_tokens == self.num_tokens - 1


@dataclass(frozen=True)
class SimulatorSettings:
    """Hold every variable the simulator page lets the learner change."""

    requests: tuple[RequestSetting, ...]
    token_budget: int = 8
    input_budget: int = 8
    long_prefill_token_threshold: int = 0
    block_size: int = 4
    num_gpu_blocks: int = 64
    max_model_len: int = 64
    num_speculative_tokens: int = 0
    spec_method: str = "ngram"
    accepted: int = 0
    scheduling: str = "sync"
    steps_after: int = 1

    @property
    def draft_slots(self) -> int:
        """Return the input-budget slots each scheduled request reserves for drafting."""
        return draft_slots_for(self.spec_method, self.num_speculative_tokens)

    @property
    def drafts_always_k(self) -> bool:
        """Say whether every decode carries K drafts (model drafters, or async placeholders)."""
        return self.num_speculative_tokens > 0 and (
            self.spec_method != "ngram" or self.scheduling == "async"
        )

    def active(self) -> tuple[RequestSetting, ...]:
        """Return the requests that take part, in the listed order."""
        return tuple(r for r in self.requests if r.state != "off")


def _requests(*rows: RequestSetting) -> tuple[RequestSetting, ...]:
    by_id = {r.id: r for r in rows}
    return tuple(by_id.get(rid, RequestSetting(rid)) for rid in REQUEST_IDS)


# The lesson's two worked examples, reproduced exactly (golden traces a_budget_split and
# b_spec_decode check the same numbers against the real scheduler).
PRESETS: dict[str, SimulatorSettings] = {
    "mixed-161": SimulatorSettings(
        requests=_requests(
            RequestSetting("A", "running", 10, 9),
            RequestSetting("B", "running", 10, 4),
            RequestSetting("C", "waiting", 5, 0),
        ),
    ),
    "spec-11-10-3": SimulatorSettings(
        requests=_requests(RequestSetting("A", "running", 11, 10, drafts=3)),
        token_budget=32,
        input_budget=32,
        num_speculative_tokens=3,
        accepted=1,
    ),
}
PRESET_TITLES: dict[str, dict[str, str]] = {
    "mixed-161": {"zh": "普通混合调度 [1,6,1]", "en": "Ordinary mixed step [1,6,1]"},
    "spec-11-10-3": {"zh": "投机 N=11/C=10/3 draft", "en": "Speculative N=11/C=10/3 drafts"},
}
DEFAULT_SETTINGS = PRESETS["mixed-161"]

# (name, lowest, highest) for every whole-number setting; the page uses them for its inputs.
GLOBAL_LIMITS: dict[str, tuple[int, int]] = {
    "token_budget": (1, 256),
    "input_budget": (1, 256),
    "long_prefill_token_threshold": (0, 256),
    "block_size": (1, 64),
    "num_gpu_blocks": (2, 1024),
    "max_model_len": (4, 512),
    "num_speculative_tokens": (0, 8),
    "accepted": (0, 8),
    "steps_after": (0, MAX_STEPS_AFTER),
}
# Where the page's sliders end (the number fields beside them accept the whole range).
SLIDER_MAX: dict[str, int] = {
    "token_budget": 64, "input_budget": 64, "long_prefill_token_threshold": 32,
    "block_size": 32, "num_gpu_blocks": 128, "max_model_len": 128,
    "num_speculative_tokens": 8, "accepted": 8, "steps_after": MAX_STEPS_AFTER,
    "num_tokens": 64, "num_computed_tokens": 63, "drafts": 8,
}
REQUEST_LIMITS: dict[str, tuple[int, int]] = {
    "num_tokens": (1, 511),
    "num_computed_tokens": (0, 510),
    "drafts": (0, 8),
}


def _parse_int(form: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = form.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingsError(name, f"must be a whole number, got {raw.strip()[:20]!r}") from None
    if not low <= value <= high:
        raise SettingsError(name, f"must be between {low} and {high}, got {value}")
    return value


def _parse_choice(
    form: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]
) -> str:
    raw = form.get(name)
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise SettingsError(name, f"must be one of {', '.join(allowed)}")
    return raw


def known_fields() -> frozenset[str]:
    """Return every query/form field the simulator understands."""
    names = {*GLOBAL_LIMITS, "spec_method", "scheduling"}
    for rid in REQUEST_IDS:
        names.update(f"{rid}.{key}" for key in ("state", *REQUEST_LIMITS))
    return frozenset(names)


def parse_settings(form: Mapping[str, str]) -> SimulatorSettings:
    """Read simulator settings from a query string or form, defaulting to the [1,6,1] preset.

    Unknown fields, numbers out of range and combinations the warm-up cannot build raise
    ``SettingsError`` naming the field, so the page can answer 422 with the reason.
    """
    unknown = sorted(set(form) - known_fields())
    if unknown:
        raise SettingsError(unknown[0], "unknown field")
    base = DEFAULT_SETTINGS
    values: dict[str, Any] = {
        name: _parse_int(form, name, getattr(base, name), low, high)
        for name, (low, high) in GLOBAL_LIMITS.items()
    }
    values["spec_method"] = _parse_choice(form, "spec_method", base.spec_method, SPEC_METHODS)
    values["scheduling"] = _parse_choice(form, "scheduling", base.scheduling, SCHEDULING_MODES)
    rows = []
    for default in base.requests:
        rid = default.id
        rows.append(
            RequestSetting(
                rid,
                _parse_choice(form, f"{rid}.state", default.state, STATES),
                *(
                    _parse_int(form, f"{rid}.{key}", getattr(default, key), low, high)
                    for key, (low, high) in REQUEST_LIMITS.items()
                ),
            )
        )
    settings = SimulatorSettings(requests=tuple(rows), **values)
    validate(settings)
    return settings


def validate(settings: SimulatorSettings) -> None:
    """Reject settings that no scheduler state (or no warm-up) could have, naming the field."""
    k = settings.num_speculative_tokens
    mml = settings.max_model_len
    if settings.accepted > k:
        raise SettingsError("accepted", f"cannot exceed K (num_speculative_tokens = {k})")
    if settings.spec_method == "eagle_parallel" and k == 1:
        raise SettingsError("spec_method", "eagle_parallel needs K of at least 2")
    if settings.token_budget > settings.input_budget:
        raise SettingsError(
            "token_budget", "cannot exceed input_budget (max_num_batched_tokens)"
        )
    active = settings.active()
    if not active:
        raise SettingsError("A.state", "at least one request must be running or waiting")
    running = [r for r in active if r.state == "running"]
    for r in active:
        prefix = r.id
        if r.num_tokens >= mml:
            raise SettingsError(
                f"{prefix}.num_tokens", f"must be below max_model_len ({mml})"
            )
        if r.state == "waiting":
            if r.drafts:
                raise SettingsError(f"{prefix}.drafts", "a waiting request carries no drafts")
            continue
        if r.num_tokens < 2:
            raise SettingsError(f"{prefix}.num_tokens", "a running request has N of at least 2")
        if not 1 <= r.num_computed_tokens <= r.num_tokens - 1:
            raise SettingsError(
                f"{prefix}.num_computed_tokens",
                "a running request has 1 <= C <= N - 1 before the step (C = N - 1 is a decode)",
            )
        if r.drafts and k == 0:
            raise SettingsError(f"{prefix}.drafts", "drafts need K (num_speculative_tokens) > 0")
        if r.drafts > k:
            raise SettingsError(f"{prefix}.drafts", f"cannot exceed K ({k})")
        if r.drafts and not r.is_decode:
            raise SettingsError(
                f"{prefix}.drafts", "only a decoding request (C = N - 1) carries drafts"
            )
    for r in running[:-1]:
        if not r.is_decode:
            raise SettingsError(
                f"{r.id}.num_computed_tokens",
                "only the last running request can still be in prefill: an earlier one would "
                "have been given its whole prompt before a later one got any budget",
            )


@dataclass(frozen=True)
class ScenarioPlan:
    """Carry a built scenario and what the page needs to read its trace.

    ``target_step`` is the engine-loop step the learner set up; ``fillers`` the ids of the
    warm-up-only requests; ``expected`` the learner's ``{id: {num_tokens, num_computed_tokens,
    num_spec_token_ids}}`` at that step (running requests only); ``check_reached`` whether
    that state can be checked exactly (synchronous scheduling: under async scheduling C
    already counts the step in flight).
    """

    scenario: dict[str, Any]
    target_step: int
    fillers: tuple[str, ...]
    expected: dict[str, dict[str, int]]
    check_reached: bool = True

    def to_dict(self) -> dict[str, Any]:
        """Return the plan as JSON-able data (what ``/simulator/plan`` sends to the page)."""
        return {
            "scenario": self.scenario,
            "target_step": self.target_step,
            "fillers": list(self.fillers),
            "expected": self.expected,
            "check_reached": self.check_reached,
        }


@dataclass
class _Arrival:
    id: str
    prompt_len: int
    max_tokens: int
    arrival_step: int


@dataclass
class _Warmup:
    arrivals: list[_Arrival] = field(default_factory=list)
    outcomes: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)


def _admission_room(settings: SimulatorSettings, decodes_ahead: int, fillers_ahead: int = 0,
                    filler_tokens: int = 0) -> int:
    """Return how many tokens a request admitted behind ``decodes_ahead`` warm-up decodes gets.

    Each warm-up decode asks for 1 + its drafts (K for model drafters, 0 for n-gram, whose
    warm-up drafts are switched off) and charges ``n + draft_slots`` to the input budget.
    """
    ds = settings.draft_slots
    per_decode = 1 + (settings.num_speculative_tokens if settings.drafts_always_k else 0)
    token_room = settings.token_budget - decodes_ahead * per_decode - filler_tokens
    input_room = (
        settings.input_budget
        - decodes_ahead * (per_decode + ds)
        - filler_tokens
        - fillers_ahead * ds
        - ds
    )
    return min(token_room, input_room)


def _split_fillers(total: int, threshold: int) -> list[int]:
    """Split ``total`` filler tokens into prompts the long-prefill threshold will not cut."""
    if total <= 0:
        return []
    count = 1 if threshold <= 0 else math.ceil(total / threshold)
    base, extra = divmod(total, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def _filler_sizes(
    settings: SimulatorSettings, decodes_ahead: int, wanted: int, rid: str
) -> list[int]:
    """Size the fillers so that the request admitted behind them gets exactly ``wanted`` tokens.

    Each filler also charges ``draft_slots`` to the input budget, so their count feeds back
    into the room left; a few rounds settle it.
    """
    total = 0
    for _ in range(2 * MAX_FILLERS):
        sizes = _split_fillers(total, settings.long_prefill_token_threshold)
        if len(sizes) > MAX_FILLERS:
            break
        room = _admission_room(settings, decodes_ahead, len(sizes), total)
        if room == wanted:
            return sizes
        total += room - wanted
        if total < 0:
            most = _admission_room(settings, decodes_ahead)
            raise SettingsError(
                f"{rid}.num_computed_tokens",
                f"at most {max(most, 0)} tokens are left for it in its warm-up step "
                "with these budgets",
            )
    raise SettingsError(
        "long_prefill_token_threshold", "the warm-up would need too many filler requests"
    )


def plan_scenario(settings: SimulatorSettings) -> ScenarioPlan:
    """Build the FORMAT.md scenario (warm-up steps first) that puts the requests in their state.

    Raises ``SettingsError`` when the budgets leave no warm-up that could build the state, e.g.
    a prompt too long to prefill in one warm-up step or a decoding request too short to have been
    running since the requests listed after it arrived.
    """
    validate(settings)
    active = settings.active()
    running = [r for r in active if r.state == "running"]
    waiting = [r for r in active if r.state == "waiting"]
    prefill = running[-1] if running and not running[-1].is_decode else None
    decodes = running[:-1] if prefill else running
    thr = settings.long_prefill_token_threshold
    k = settings.num_speculative_tokens

    # d[i] = steps between decode i's arrival and the target step; its prompt is N - d[i].
    # Later requests arrive later (running order = admission order), so d strictly decreases.
    floor_d = 2 if prefill else 1
    distances: list[int] = [0] * len(decodes)
    for i in range(len(decodes) - 1, -1, -1):
        r = decodes[i]
        room = _admission_room(settings, decodes_ahead=i)
        if thr > 0 and i > 0:
            room = min(room, thr)
        if room < 1:
            raise SettingsError(
                f"{r.id}.state",
                f"no budget is left to admit it behind {i} decoding request(s): raise the budgets",
            )
        later = distances[i + 1] + 1 if i + 1 < len(decodes) else floor_d
        distances[i] = max(later, r.num_tokens - room)
        if distances[i] > r.num_tokens - 1:
            if later > r.num_tokens - 1:
                raise SettingsError(
                    f"{r.id}.num_tokens",
                    f"must be at least {later + 1}: it has to have been decoding for {later} "
                    "warm-up steps while the requests after it arrived",
                )
            raise SettingsError(f"{r.id}.num_tokens", "too long for the warm-up")
    target = distances[0] if decodes else (1 if prefill else 0)
    steps_after = settings.steps_after
    # Enough output room that nothing stops on max_tokens inside the steps shown.
    spare = (steps_after + 1) * (1 + k) + 1

    warm = _Warmup()
    for i, r in enumerate(decodes):
        d = distances[i]
        warm.arrivals.append(_Arrival(r.id, r.num_tokens - d, d + spare, target - d))
        for step in range(target - d, target if k else target - d):
            # Warm-up decodes accept nothing and (n-gram) propose no drafts, so each adds one
            # token a step; the step before the target proposes the drafts the learner set.
            outcome: dict[str, Any] = {"accepted": 0}
            if k and settings.spec_method == "ngram":
                outcome["drafts"] = r.drafts if step == target - 1 else 0
            warm.outcomes.setdefault(step, {})[r.id] = outcome

    fillers: list[str] = []
    if prefill is not None:
        step = target - 1
        wanted = prefill.num_computed_tokens
        sizes = _filler_sizes(settings, len(decodes), wanted, prefill.id)
        if thr > 0 and wanted > thr and (decodes or sizes):
            raise SettingsError(
                f"{prefill.id}.num_computed_tokens",
                f"is built in one warm-up step, so it cannot exceed the threshold ({thr})",
            )
        for j, size in enumerate(sizes, start=1):
            if size >= settings.max_model_len:
                raise SettingsError("max_model_len", "too small for the warm-up's filler prompts")
            fid = f"f{j}"
            fillers.append(fid)
            warm.arrivals.append(_Arrival(fid, size, 1, step))
        warm.arrivals.append(_Arrival(prefill.id, prefill.num_tokens, spare, step))
    for r in waiting:
        warm.arrivals.append(_Arrival(r.id, r.num_tokens, spare, target))

    config: dict[str, Any] = {
        "max_num_batched_tokens": settings.input_budget,
        "max_num_scheduled_tokens": settings.token_budget,
        # vLLM refuses fewer batched tokens than seats: keep 16 seats unless the budget is less.
        "max_num_seqs": min(16, settings.input_budget),
        "max_model_len": settings.max_model_len,
        "long_prefill_token_threshold": thr,
        "block_size": settings.block_size,
        "num_gpu_blocks": settings.num_gpu_blocks,
        "enable_prefix_caching": False,
        "num_speculative_tokens": k,
        "async_scheduling": settings.scheduling == "async",
        "max_steps": target + 1 + steps_after,
    }
    if k:
        config["spec_method"] = settings.spec_method
    scenario: dict[str, Any] = {
        "name": "simulator",
        "description": _describe(settings, target, fillers),
        "config": config,
        "requests": [
            {"id": a.id, "prompt_len": a.prompt_len, "max_tokens": a.max_tokens,
             "arrival_step": a.arrival_step}
            for a in warm.arrivals
        ],
    }
    if k:
        scenario["default_outcome"] = {"accepted": settings.accepted}
    if warm.outcomes:
        scenario["outcomes"] = {
            str(step): dict(sorted(per.items())) for step, per in sorted(warm.outcomes.items())
        }
    expected = {
        r.id: {
            "num_tokens": r.num_tokens,
            "num_computed_tokens": r.num_computed_tokens,
            "num_spec_token_ids": (k if settings.drafts_always_k else r.drafts)
            if r.is_decode else 0,
        }
        for r in running
    }
    return ScenarioPlan(scenario, target, tuple(fillers), expected,
                        check_reached=settings.scheduling == "sync")


def _describe(settings: SimulatorSettings, target: int, fillers: list[str]) -> str:
    parts = [f"Simulator: target step {target}."]
    if target:
        parts.append(f"Steps 0..{target - 1} are warm-up steps that build the requests' state.")
    if fillers:
        parts.append(f"Fillers {', '.join(fillers)} soak up budget in the last warm-up step.")
    return " ".join(parts)


def reached_mismatches(trace: Mapping[str, Any], plan: ScenarioPlan) -> list[str]:
    """List every way the target step's real state differs from what the learner asked for.

    Only meaningful for synchronous scheduling: under async scheduling C already counts the
    step in flight, so the page explains the difference instead of calling it a mismatch.
    """
    step = next((s for s in trace.get("steps", []) if s.get("step") == plan.target_step), None)
    if step is None:
        return [f"the trace has no step {plan.target_step}"]
    problems = []
    for rid, want in plan.expected.items():
        got = step.get("requests", {}).get(rid, {}).get("before_schedule")
        if got is None:
            problems.append(f"{rid} is not alive at step {plan.target_step}")
            continue
        for key, value in want.items():
            if got.get(key) != value:
                problems.append(f"{rid}.{key} is {got.get(key)}, not {value}")
    return problems


def settings_query(settings: SimulatorSettings) -> dict[str, str]:
    """Return the settings as the query-string fields ``parse_settings`` reads back."""
    query = {
        name: str(getattr(settings, name)) for name in GLOBAL_LIMITS
    }
    query["spec_method"] = settings.spec_method
    query["scheduling"] = settings.scheduling
    for r in settings.requests:
        query[f"{r.id}.state"] = r.state
        for key in REQUEST_LIMITS:
            query[f"{r.id}.{key}"] = str(getattr(r, key))
    return query


def with_request(settings: SimulatorSettings, rid: str, **changes: Any) -> SimulatorSettings:
    """Return ``settings`` with one request's fields changed (used by tests and presets)."""
    rows = tuple(replace(r, **changes) if r.id == rid else r for r in settings.requests)
    return replace(settings, requests=rows)
