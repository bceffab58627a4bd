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

from quizsvc.errors import N_, filled

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
    """Report one simulator setting that cannot be used, naming the field and the reason.

    ``template`` is one English sentence marked ``N_`` where it is raised, ``params`` fills
    its ``%(name)s`` holes and ``message`` is the filled sentence (``str(error)`` is
    ``"field: message"``); ``reason`` is a stable word for why.
    """

    def __init__(self, field_name: str, template: str, *, reason: str,
                 params: dict[str, Any] | None = None) -> None:
        self.field = field_name
        self.template = template
        self.reason = reason
        self.params = dict(params or {})
        self.message = filled(template, self.params)
        super().__init__(f"{field_name}: {self.message}")


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
        raise SettingsError(name, N_("must be a whole number, got %(got)s"),
                            reason="not_whole_number",
                            params={"got": repr(raw.strip()[:20])}) from None
    if not low <= value <= high:
        raise SettingsError(name, N_("must be between %(min)s and %(max)s, got %(got)s"),
                            reason="range", params={"min": low, "max": high, "got": value})
    return value


def _parse_choice(
    form: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]
) -> str:
    raw = form.get(name)
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise SettingsError(name, N_("must be one of %(choices)s"), reason="one_of",
                            params={"choices": ", ".join(allowed)})
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
        raise SettingsError(unknown[0], N_("unknown field"), reason="unknown_field")
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
        raise SettingsError("accepted", N_("cannot exceed K (num_speculative_tokens = %(k)s)"),
                            reason="accepted_exceeds_k", params={"k": k})
    if settings.spec_method == "eagle_parallel" and k == 1:
        raise SettingsError("spec_method", N_("eagle_parallel needs K of at least 2"),
                            reason="eagle_parallel_k")
    if settings.token_budget > settings.input_budget:
        raise SettingsError(
            "token_budget", N_("cannot exceed input_budget (max_num_batched_tokens)"),
            reason="token_budget_exceeds_input_budget",
        )
    active = settings.active()
    if not active:
        raise SettingsError("A.state", N_("at least one request must be running or waiting"),
                            reason="no_request")
    running = [r for r in active if r.state == "running"]
    for r in active:
        prefix = r.id
        if r.num_tokens >= mml:
            raise SettingsError(
                f"{prefix}.num_tokens", N_("must be below max_model_len (%(max_model_len)s)"),
                reason="num_tokens_max_model_len", params={"max_model_len": mml},
            )
        if r.state == "waiting":
            if r.drafts:
                raise SettingsError(f"{prefix}.drafts", N_("a waiting request carries no drafts"),
                                    reason="waiting_drafts")
            continue
        if r.num_tokens < 2:
            raise SettingsError(f"{prefix}.num_tokens",
                                N_("a running request has N of at least 2"),
                                reason="running_num_tokens")
        if not 1 <= r.num_computed_tokens <= r.num_tokens - 1:
            raise SettingsError(
                f"{prefix}.num_computed_tokens",
                N_("a running request has 1 <= C <= N - 1 before the step "
                   "(C = N - 1 is a decode)"),
                reason="running_num_computed_tokens",
            )
        if r.drafts and k == 0:
            raise SettingsError(f"{prefix}.drafts",
                                N_("drafts need K (num_speculative_tokens) > 0"),
                                reason="drafts_need_k")
        if r.drafts > k:
            raise SettingsError(f"{prefix}.drafts", N_("cannot exceed K (%(k)s)"),
                                reason="drafts_exceed_k", params={"k": k})
        if r.drafts and not r.is_decode:
            raise SettingsError(
                f"{prefix}.drafts", N_("only a decoding request (C = N - 1) carries drafts"),
                reason="drafts_need_decode",
            )
    for r in running[:-1]:
        if not r.is_decode:
            raise SettingsError(
                f"{r.id}.num_computed_tokens",
                N_("only the last running request can still be in prefill: an earlier one "
                   "would have been given its whole prompt before a later one got any budget"),
                reason="prefill_not_last",
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


def _per_decode(settings: SimulatorSettings) -> int:
    """Return the tokens one warm-up decode asks for in a step (1 + K for model drafters)."""
    return 1 + (settings.num_speculative_tokens if settings.drafts_always_k else 0)


def _admission_room(settings: SimulatorSettings, decodes_ahead: int, fillers_ahead: int = 0,
                    filler_tokens: int = 0) -> int:
    """Return how many tokens a request admitted behind ``decodes_ahead`` warm-up decodes gets.

    Each warm-up decode asks for 1 + its drafts (K for model drafters, 0 for n-gram, whose
    warm-up drafts are switched off) and charges ``n + draft_slots`` to the input budget.
    """
    ds = settings.draft_slots
    per_decode = _per_decode(settings)
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


class _Unbuildable(Exception):
    """Say inside the planner why the prefill's warm-up step cannot be built.

    ``kind`` is ``no_room`` (the budgets leave it fewer than ``wanted`` tokens even without
    fillers), ``gap`` (no filler total leaves it exactly ``wanted``), ``too_many_fillers`` or
    ``over_threshold``; ``plan_scenario`` turns it into a ``SettingsError`` saying what to
    change, found by planning the changed settings.
    """

    def __init__(self, kind: str, request: str, wanted: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.request = request
        self.wanted = wanted


def _filler_sizes(
    settings: SimulatorSettings, decodes_ahead: int, wanted: int, rid: str
) -> list[int]:
    """Size the fillers so that the request admitted behind them gets exactly ``wanted`` tokens.

    Each filler also charges ``draft_slots`` to the input budget, so their count feeds back
    into the room left; a few rounds settle it. Raises ``_Unbuildable`` when they cannot.
    """
    if _admission_room(settings, decodes_ahead) < wanted:  # fillers only take room away
        raise _Unbuildable("no_room", rid, wanted)
    total = 0
    for _ in range(2 * MAX_FILLERS):
        sizes = _split_fillers(total, settings.long_prefill_token_threshold)
        if len(sizes) > MAX_FILLERS:
            raise _Unbuildable("too_many_fillers", rid, wanted)
        room = _admission_room(settings, decodes_ahead, len(sizes), total)
        if room == wanted:
            return sizes
        total += room - wanted
        if total < 0:  # the fillers' draft slots overshoot: no total lands on ``wanted``
            raise _Unbuildable("gap", rid, wanted)
    raise _Unbuildable("gap", rid, wanted)  # the filler count and total do not settle


def _needed_budgets(settings: SimulatorSettings, decodes_ahead: int, tokens: int
                    ) -> tuple[int, int]:
    """Return the least ``(token_budget, input_budget)`` that leave ``tokens`` for a request
    admitted behind ``decodes_ahead`` warm-up decodes and no fillers (``_admission_room``)."""
    ds = settings.draft_slots
    per_decode = _per_decode(settings)
    return (tokens + decodes_ahead * per_decode,
            tokens + decodes_ahead * (per_decode + ds) + ds)


# What to raise when a request's warm-up step has too little budget, by the budget(s) short
# ("both": input_budget is named first, token_budget may not exceed it). Each value is the
# least that leaves the tokens: needed, though other limits may still stand in the way.
NO_ROOM_TO_ADMIT: dict[str, str] = {
    "token_budget": N_("no budget is left to admit request %(request)s behind %(ahead)s "
                       "decoding request(s): raise token_budget to at least %(token_budget)s"),
    "input_budget": N_("no budget is left to admit request %(request)s behind %(ahead)s "
                       "decoding request(s): raise input_budget to at least %(input_budget)s"),
    "both": N_("no budget is left to admit request %(request)s behind %(ahead)s decoding "
               "request(s): raise input_budget to at least %(input_budget)s and token_budget "
               "to at least %(token_budget)s"),
}
PREFILL_ROOM: dict[str, str] = {
    "token_budget": N_("at most %(most)s tokens are left for request %(request)s in its "
                       "warm-up step with these budgets: raise token_budget to at least "
                       "%(token_budget)s"),
    "input_budget": N_("at most %(most)s tokens are left for request %(request)s in its "
                       "warm-up step with these budgets: raise input_budget to at least "
                       "%(input_budget)s"),
    "both": N_("at most %(most)s tokens are left for request %(request)s in its warm-up step "
               "with these budgets: raise input_budget to at least %(input_budget)s and "
               "token_budget to at least %(token_budget)s"),
}


def _short_budgets(settings: SimulatorSettings, token_budget: int, input_budget: int) -> str:
    """Name the budget(s) below the given ones: a key of ``NO_ROOM_TO_ADMIT``."""
    if input_budget > settings.input_budget:
        return "both" if token_budget > settings.token_budget else "input_budget"
    return "token_budget"


def _builds(settings: SimulatorSettings) -> bool:
    """Tell whether the warm-up of ``settings`` can be planned (no ``SettingsError``)."""
    try:
        _plan(settings)
    except (SettingsError, _Unbuildable):
        return False
    return True


def _computed_that_builds(settings: SimulatorSettings, rid: str,
                          candidates: list[int]) -> int | None:
    """Return the first C of request ``rid`` among ``candidates`` whose warm-up plans."""
    return next((c for c in candidates
                 if _builds(with_request(settings, rid, num_computed_tokens=c))), None)


def _threshold_that_builds(settings: SimulatorSettings) -> int | None:
    """Return the least higher long_prefill_token_threshold whose warm-up plans, else 0 (off)
    if that plans, else None. The ledger refuses a threshold above max_model_len."""
    current = settings.long_prefill_token_threshold
    highest = min(GLOBAL_LIMITS["long_prefill_token_threshold"][1], settings.max_model_len)
    candidates: list[int] = [*range(current + 1, highest + 1), 0]
    for threshold in candidates:
        if threshold != current and _builds(
                replace(settings, long_prefill_token_threshold=threshold)):
            return threshold
    return None


THRESHOLD = "long_prefill_token_threshold"


def _unbuildable_error(settings: SimulatorSettings, failure: _Unbuildable) -> SettingsError:
    """Say what to change so that the prefill's warm-up step can be built.

    A change proposed as "to V" is one ``plan_scenario`` accepts, found by planning the
    changed settings: C of the request first, the nearest to the one asked for, then the
    long-prefill threshold. "At least V" (the budgets) is what the tokens asked for need.
    When no such change is found, the reason is said alone.
    """
    rid, wanted, kind = failure.request, failure.wanted, failure.kind
    computed = f"{rid}.num_computed_tokens"
    request = next(r for r in settings.requests if r.id == rid)
    decodes_ahead = sum(1 for r in settings.active() if r.state == "running") - 1
    params: dict[str, Any] = {"request": rid, "computed": wanted,
                              "threshold": settings.long_prefill_token_threshold}

    def error(field_name: str, template: str, **more: Any) -> SettingsError:
        reasons = {"no_room": "prefill_room", "gap": "filler_gap",
                   "too_many_fillers": "too_many_fillers",
                   "over_threshold": "prefill_over_threshold"}
        return SettingsError(field_name, template, reason=reasons[kind],
                             params={**params, **more})

    def threshold_advice(raise_template: str, off_template: str) -> SettingsError | None:
        """Advise the least higher threshold that builds, else turning it off, else None."""
        threshold = _threshold_that_builds(settings)
        if threshold:
            return error(THRESHOLD, raise_template, fix=threshold)
        return error(THRESHOLD, off_template) if threshold == 0 else None

    if kind == "no_room":
        most = _admission_room(settings, decodes_ahead)
        params["most"] = max(most, 0)
        fix = _computed_that_builds(settings, rid, list(range(min(most, wanted - 1), 0, -1)))
        if fix is not None:
            return error(computed, N_("at most %(most)s tokens are left for request "
                                      "%(request)s in its warm-up step with these budgets: "
                                      "lower its C to %(fix)s"), fix=fix)
        token_budget, input_budget = _needed_budgets(settings, decodes_ahead, wanted)
        if input_budget <= GLOBAL_LIMITS["input_budget"][1]:
            short = _short_budgets(settings, token_budget, input_budget)
            return error("input_budget" if short == "both" else short, PREFILL_ROOM[short],
                         token_budget=token_budget, input_budget=input_budget)
        return error(computed, N_("at most %(most)s tokens are left for it in its warm-up "
                                  "step with these budgets"))
    # A prefill keeps C <= N - 2 (C = N - 1 would make it a decode).
    nearest = sorted((c for c in range(1, request.num_tokens - 1) if c != wanted),
                     key=lambda c: (abs(c - wanted), c))
    if kind == "gap":
        fix = _computed_that_builds(settings, rid, nearest)
        if fix is not None:
            return error(computed, N_("the warm-up cannot build C = %(computed)s for request "
                                      "%(request)s in one step with these budgets: set its C "
                                      "to %(fix)s"), fix=fix)
        advice = threshold_advice(
            N_("the warm-up cannot build C = %(computed)s for request %(request)s in one step "
               "with these budgets: raise long_prefill_token_threshold to %(fix)s"),
            N_("the warm-up cannot build C = %(computed)s for request %(request)s in one step "
               "with these budgets: set long_prefill_token_threshold to 0 (off)"))
        if advice is not None:
            return advice
        return error(computed, N_("the warm-up cannot build C = %(computed)s for request "
                                  "%(request)s in one step with these budgets"))
    if kind == "too_many_fillers":
        advice = threshold_advice(
            N_("the warm-up would need too many filler requests: raise "
               "long_prefill_token_threshold to %(fix)s"),
            N_("the warm-up would need too many filler requests: set "
               "long_prefill_token_threshold to 0 (off)"))
        if advice is not None:
            return advice
        fix = _computed_that_builds(settings, rid, nearest)
        if fix is not None:
            return error(computed, N_("the warm-up would need too many filler requests to "
                                      "build C = %(computed)s for request %(request)s: set "
                                      "its C to %(fix)s"), fix=fix)
        return error(THRESHOLD, N_("the warm-up would need too many filler requests"))
    # over_threshold: C is built in the one warm-up step whose prefill the threshold caps.
    fix = _computed_that_builds(settings, rid, list(range(wanted - 1, 0, -1)))
    if fix is not None:
        return error(computed, N_("is built in one warm-up step, so it cannot exceed the "
                                  "threshold (%(threshold)s): lower C of request %(request)s "
                                  "to %(fix)s"), fix=fix)
    advice = threshold_advice(
        N_("C of request %(request)s (%(computed)s) is built in one warm-up step, so it cannot "
           "exceed the threshold (%(threshold)s): raise long_prefill_token_threshold to "
           "%(fix)s"),
        N_("C of request %(request)s (%(computed)s) is built in one warm-up step, so it cannot "
           "exceed the threshold (%(threshold)s): set long_prefill_token_threshold to 0 "
           "(off)"))
    if advice is not None:
        return advice
    return error(computed, N_("is built in one warm-up step, so it cannot exceed the "
                              "threshold (%(threshold)s)"))


def plan_scenario(settings: SimulatorSettings) -> ScenarioPlan:
    """Build the FORMAT.md scenario (warm-up steps first) that puts the requests in their state.

    Raises ``SettingsError`` when the budgets leave no warm-up that could build the state, e.g.
    a prompt too long to prefill in one warm-up step or a decoding request too short to have been
    running since the requests listed after it arrived. The error names the input to change
    and says how (``raise token_budget to at least 9``, ``lower its C to 7``): a change it
    proposes without "at least" is one this planner accepts.
    """
    try:
        return _plan(settings)
    except _Unbuildable as failure:
        raise _unbuildable_error(settings, failure) from None


def _plan(settings: SimulatorSettings) -> ScenarioPlan:
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
        if room < 1:  # the thresholded room is at least 1: the budgets are short
            token_budget, input_budget = _needed_budgets(settings, i, 1)
            short = _short_budgets(settings, token_budget, input_budget)
            raise SettingsError(
                "input_budget" if short == "both" else short, NO_ROOM_TO_ADMIT[short],
                reason="no_room_to_admit",
                params={"request": r.id, "ahead": i, "token_budget": token_budget,
                        "input_budget": input_budget},
            )
        later = distances[i + 1] + 1 if i + 1 < len(decodes) else floor_d
        distances[i] = max(later, r.num_tokens - room)
        if distances[i] > r.num_tokens - 1:
            if later > r.num_tokens - 1:
                params = {"needed": later + 1, "steps": later}
                if later + 1 < settings.max_model_len:
                    raise SettingsError(
                        f"{r.id}.num_tokens",
                        N_("must be at least %(needed)s: it has to have been decoding for "
                           "%(steps)s warm-up steps while the requests after it arrived"),
                        reason="decode_too_short", params=params,
                    )
                raise SettingsError(
                    f"{r.id}.num_tokens",
                    N_("must be at least %(needed)s: it has to have been decoding for "
                       "%(steps)s warm-up steps while the requests after it arrived (raise "
                       "max_model_len above %(needed)s first)"),
                    reason="decode_too_short", params=params,
                )
            # Not reached: room >= 1 keeps N - room <= N - 1, and later <= N - 1 here.
            raise SettingsError(f"{r.id}.num_tokens", N_("too long for the warm-up"),
                                reason="too_long_for_warmup")
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
            raise _Unbuildable("over_threshold", prefill.id, wanted)
        if sizes and max(sizes) >= settings.max_model_len:
            raise SettingsError(
                "max_model_len",
                N_("too small for the warm-up's filler prompts: raise max_model_len to at "
                   "least %(needed)s"),
                reason="filler_too_long", params={"needed": max(sizes) + 1},
            )
        for j, size in enumerate(sizes, start=1):
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


# One way the target step differs from the settings: an N_ template and its params.
Mismatch = tuple[str, dict[str, Any]]


def reached_mismatches(trace: Mapping[str, Any], plan: ScenarioPlan) -> list[Mismatch]:
    """List every way the target step's real state differs from what the learner asked for,
    each as a template and its params for the page to say in its language.

    Only meaningful for synchronous scheduling: under async scheduling C already counts the
    step in flight, so the page explains the difference instead of calling it a mismatch.
    """
    step = next((s for s in trace.get("steps", []) if s.get("step") == plan.target_step), None)
    if step is None:
        return [(N_("the trace has no step %(step)s"), {"step": plan.target_step})]
    problems: list[Mismatch] = []
    for rid, want in plan.expected.items():
        got = step.get("requests", {}).get(rid, {}).get("before_schedule")
        if got is None:
            problems.append((N_("%(request)s is not alive at the target step"),
                             {"request": rid}))
            continue
        for key, value in want.items():
            if got.get(key) != value:
                problems.append((N_("%(request)s.%(key)s is %(got)s, not %(want)s"),
                                 {"request": rid, "key": key, "got": got.get(key),
                                  "want": value}))
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
