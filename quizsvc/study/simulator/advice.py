"""Say what to change when the warm-up cannot build the state the learner asked for.

The planner knows only *why* a prefill's warm-up step fails (``Unbuildable``); a learner needs
a change that works. This module finds one by planning changed settings — the request's C
nearest the one asked for, then the long-prefill threshold — and names the least budgets the
tokens need, so the page can say "lower its C to 7" rather than "cannot build". It is handed
the planner's "does it build?" as ``builds`` instead of importing the planner, which imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from quizsvc.errors import N_, Invalid
from quizsvc.study.simulator.budgets import (
    PREFILL_ROOM,
    admission_room,
    needed_budgets,
    short_budgets,
)
from quizsvc.study.simulator.settings import (
    GLOBAL_LIMITS,
    SimulatorSettings,
    setting_refused,
    with_request,
)

# Tells whether the warm-up of some settings can be planned (the planner's own answer).
Builds = Callable[[SimulatorSettings], bool]
THRESHOLD = "long_prefill_token_threshold"


class Unbuildable(Exception):
    """Say inside the planner why the prefill's warm-up step cannot be built.

    ``kind`` is ``no_room`` (the budgets leave it fewer than ``wanted`` tokens even without
    fillers), ``gap`` (no filler total leaves it exactly ``wanted``), ``too_many_fillers`` or
    ``over_threshold``; ``plan_scenario`` turns it into an ``errors.Invalid`` saying what to
    change (``advise``), found by planning the changed settings.
    """

    def __init__(self, kind: str, request: str, wanted: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.request = request
        self.wanted = wanted


def _computed_that_builds(settings: SimulatorSettings, rid: str, candidates: list[int],
                          builds: Builds) -> int | None:
    """Return the first C of request ``rid`` among ``candidates`` whose warm-up plans."""
    return next((c for c in candidates
                 if builds(with_request(settings, rid, num_computed_tokens=c))), None)


def _threshold_that_builds(settings: SimulatorSettings, builds: Builds) -> int | None:
    """Return the least higher long_prefill_token_threshold whose warm-up plans, else 0 (off)
    if that plans, else None. The ledger refuses a threshold above max_model_len."""
    current = settings.long_prefill_token_threshold
    highest = min(GLOBAL_LIMITS["long_prefill_token_threshold"][1], settings.max_model_len)
    candidates: list[int] = [*range(current + 1, highest + 1), 0]
    for threshold in candidates:
        if threshold != current and builds(
                replace(settings, long_prefill_token_threshold=threshold)):
            return threshold
    return None


def advise(settings: SimulatorSettings, failure: Unbuildable, builds: Builds) -> Invalid:
    """Say what to change so that the prefill's warm-up step can be built.

    A change proposed as "to V" is one ``plan_scenario`` accepts, found by planning the
    changed settings: C of the request first, the nearest to the one asked for, then the
    long-prefill threshold. "At least V" (the budgets) is what the tokens asked for need.
    When no such change is found, the reason is said alone. ``builds`` is the planner's
    own test, so a proposal is never one the planner would refuse.
    """
    rid, wanted, kind = failure.request, failure.wanted, failure.kind
    computed = f"{rid}.num_computed_tokens"
    request = next(r for r in settings.requests if r.id == rid)
    decodes_ahead = sum(1 for r in settings.active() if r.state == "running") - 1
    params: dict[str, Any] = {"request": rid, "computed": wanted,
                              "threshold": settings.long_prefill_token_threshold}

    def error(field_name: str, template: str, **more: Any) -> Invalid:
        reasons = {"no_room": "prefill_room", "gap": "filler_gap",
                   "too_many_fillers": "too_many_fillers",
                   "over_threshold": "prefill_over_threshold"}
        return setting_refused(field_name, template, reason=reasons[kind],
                               params={**params, **more})

    def threshold_advice(raise_template: str, off_template: str) -> Invalid | None:
        """Advise the least higher threshold that builds, else turning it off, else None."""
        threshold = _threshold_that_builds(settings, builds)
        if threshold:
            return error(THRESHOLD, raise_template, fix=threshold)
        return error(THRESHOLD, off_template) if threshold == 0 else None

    if kind == "no_room":
        most = admission_room(settings, decodes_ahead)
        params["most"] = max(most, 0)
        fix = _computed_that_builds(settings, rid, list(range(min(most, wanted - 1), 0, -1)),
                                    builds)
        if fix is not None:
            return error(computed, N_("at most %(most)s tokens are left for request "
                                      "%(request)s in its warm-up step with these budgets: "
                                      "lower its C to %(fix)s"), fix=fix)
        token_budget, input_budget = needed_budgets(settings, decodes_ahead, wanted)
        if input_budget <= GLOBAL_LIMITS["input_budget"][1]:
            short = short_budgets(settings, token_budget, input_budget)
            return error("input_budget" if short == "both" else short, PREFILL_ROOM[short],
                         token_budget=token_budget, input_budget=input_budget)
        return error(computed, N_("at most %(most)s tokens are left for it in its warm-up "
                                  "step with these budgets"))
    # A prefill keeps C <= N - 2 (C = N - 1 would make it a decode).
    nearest = sorted((c for c in range(1, request.num_tokens - 1) if c != wanted),
                     key=lambda c: (abs(c - wanted), c))
    if kind == "gap":
        fix = _computed_that_builds(settings, rid, nearest, builds)
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
        fix = _computed_that_builds(settings, rid, nearest, builds)
        if fix is not None:
            return error(computed, N_("the warm-up would need too many filler requests to "
                                      "build C = %(computed)s for request %(request)s: set "
                                      "its C to %(fix)s"), fix=fix)
        return error(THRESHOLD, N_("the warm-up would need too many filler requests"))
    # over_threshold: C is built in the one warm-up step whose prefill the threshold caps.
    fix = _computed_that_builds(settings, rid, list(range(wanted - 1, 0, -1)), builds)
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
