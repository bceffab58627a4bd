"""Plan the warm-up steps that bring a ledger scenario to the state the learner asked for.

The learner's ``SimulatorSettings`` describe a state (each request running or waiting, its
``num_tokens`` N and ``num_computed_tokens`` C, its drafts) and the scheduler's knobs. A ledger
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
from dataclasses import dataclass, field
from typing import Any

from quizsvc.errors import N_, Invalid
from quizsvc.study.simulator.advice import Unbuildable, advise
from quizsvc.study.simulator.budgets import (
    NO_ROOM_TO_ADMIT,
    admission_room,
    needed_budgets,
    short_budgets,
)
from quizsvc.study.simulator.settings import SimulatorSettings, setting_refused, validate

MAX_FILLERS = 8


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
    into the room left; a few rounds settle it. Raises ``Unbuildable`` when they cannot.
    """
    if admission_room(settings, decodes_ahead) < wanted:  # fillers only take room away
        raise Unbuildable("no_room", rid, wanted)
    total = 0
    for _ in range(2 * MAX_FILLERS):
        sizes = _split_fillers(total, settings.long_prefill_token_threshold)
        if len(sizes) > MAX_FILLERS:
            raise Unbuildable("too_many_fillers", rid, wanted)
        room = admission_room(settings, decodes_ahead, len(sizes), total)
        if room == wanted:
            return sizes
        total += room - wanted
        if total < 0:  # the fillers' draft slots overshoot: no total lands on ``wanted``
            raise Unbuildable("gap", rid, wanted)
    raise Unbuildable("gap", rid, wanted)  # the filler count and total do not settle


def plan_scenario(settings: SimulatorSettings) -> ScenarioPlan:
    """Build the FORMAT.md scenario (warm-up steps first) that puts the requests in their state.

    Raises ``errors.Invalid`` when the budgets leave no warm-up that could build the state,
    e.g. a prompt too long to prefill in one warm-up step or a decoding request too short to
    have been running since the requests listed after it arrived. The error names the input to
    change and says how (``raise token_budget to at least 9``, ``lower its C to 7``): a change
    it proposes without "at least" is one this planner accepts.
    """
    try:
        return _plan(settings)
    except Unbuildable as failure:
        raise advise(settings, failure, _builds) from None


def _builds(settings: SimulatorSettings) -> bool:
    """Tell whether the warm-up of ``settings`` can be planned (no refusal)."""
    try:
        _plan(settings)
    except (Invalid, Unbuildable):
        return False
    return True


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
        room = admission_room(settings, decodes_ahead=i)
        if thr > 0 and i > 0:
            room = min(room, thr)
        if room < 1:  # the thresholded room is at least 1: the budgets are short
            token_budget, input_budget = needed_budgets(settings, i, 1)
            short = short_budgets(settings, token_budget, input_budget)
            raise setting_refused(
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
                    raise setting_refused(
                        f"{r.id}.num_tokens",
                        N_("must be at least %(needed)s: it has to have been decoding for "
                           "%(steps)s warm-up steps while the requests after it arrived"),
                        reason="decode_too_short", params=params,
                    )
                raise setting_refused(
                    f"{r.id}.num_tokens",
                    N_("must be at least %(needed)s: it has to have been decoding for "
                       "%(steps)s warm-up steps while the requests after it arrived (raise "
                       "max_model_len above %(needed)s first)"),
                    reason="decode_too_short", params=params,
                )
            # Not reached: room >= 1 keeps N - room <= N - 1, and later <= N - 1 here.
            raise setting_refused(f"{r.id}.num_tokens", N_("too long for the warm-up"),
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
            raise Unbuildable("over_threshold", prefill.id, wanted)
        if sizes and max(sizes) >= settings.max_model_len:
            raise setting_refused(
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
