"""Run the "change the variables" sandbox: plan a scenario, replay it within fixed bounds.

The ledger core validates the scenario (``ScenarioError`` names the field); this module first
refuses scenarios too big for a request — too many requests, steps, prompt tokens or blocks —
so one POST cannot occupy a worker for long. Both kinds of refusal are 422 on the field.
``plan`` turns the simulator's settings into the scenario that reaches them
(``quizsvc.study.simulator``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

from quizsvc.bank.errors import NotFound
from quizsvc.bank.examples import WorkedExample
from quizsvc.bank.teaching import Teaching
from quizsvc.errors import N_, Invalid
from quizsvc.ledger import Engine, ScenarioError, SchedulerCrash, parse_scenario, replay
from quizsvc.pool import QUICK, job_runtime
from quizsvc.study import simulator
from quizsvc.study.context import Context
from quizsvc.study.lessons import open_the_book
from quizsvc.study.limits import Limits

# The ledger's own refusals (``ScenarioError.reason``) are English sentences of a module that
# imports nothing of ours; they are passed on whole as ``detail``, under ``reason="scenario"``.
LEDGER_DETAIL = "%(detail)s"

# Budgets and cache sizes beyond these only make replay slower, never more instructive.
CONFIG_CEILINGS = {
    "max_num_batched_tokens": 65_536,
    "max_num_scheduled_tokens": 65_536,
    "max_num_seqs": 256,
    "max_model_len": 65_536,
    "num_gpu_blocks": 100_000,
    "num_speculative_tokens": 16,
}


def is_int(value: Any) -> TypeGuard[int]:
    """Tell whether a JSON value is an integer (booleans are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_bounds(scenario: Mapping[str, Any], limits: Limits) -> None:
    """Raise ``Invalid`` naming the first field over the sandbox's limits."""
    max_requests = limits.simulate_max_requests
    max_steps = limits.simulate_max_steps
    max_prompt = limits.simulate_max_prompt_len
    config = scenario.get("config")
    if isinstance(config, Mapping):
        steps = config.get("max_steps")
        if is_int(steps) and steps > max_steps:
            raise Invalid("config.max_steps", N_("the sandbox replays at most %(max)s steps"),
                          reason="too_many_steps", params={"max": max_steps})
        for key, ceiling in CONFIG_CEILINGS.items():
            value = config.get(key)
            if is_int(value) and value > ceiling:
                raise Invalid(f"config.{key}", N_("the sandbox allows at most %(max)s"),
                              reason="above_ceiling", params={"max": ceiling})
    requests = scenario.get("requests")
    if isinstance(requests, list):
        if len(requests) > max_requests:
            raise Invalid("requests", N_("the sandbox replays at most %(max)s requests"),
                          reason="too_many_requests", params={"max": max_requests})
        for i, request in enumerate(requests):
            if not isinstance(request, Mapping):
                continue
            length = request.get("prompt_len")
            if is_int(length) and length > max_prompt:
                raise Invalid(f"requests[{i}].prompt_len",
                              N_("the sandbox allows prompts of at most %(max)s tokens"),
                              reason="prompt_too_long", params={"max": max_prompt})
            ids = request.get("prompt_token_ids")
            if isinstance(ids, list) and len(ids) > max_prompt:
                raise Invalid(f"requests[{i}].prompt_token_ids",
                              N_("the sandbox allows prompts of at most %(max)s tokens"),
                              reason="prompt_too_long", params={"max": max_prompt})
            tokens = request.get("max_tokens")
            if is_int(tokens) and tokens > max_prompt:
                raise Invalid(f"requests[{i}].max_tokens",
                              N_("the sandbox allows at most %(max)s output tokens"),
                              reason="too_many_output_tokens", params={"max": max_prompt})
            arrival = request.get("arrival_step")
            if is_int(arrival) and arrival > max_steps:
                raise Invalid(f"requests[{i}].arrival_step",
                              N_("the sandbox replays at most %(max)s steps"),
                              reason="too_many_steps", params={"max": max_steps})


# Seconds a request waits for its replay on the costly-work pool: the replay's own CPU bound
# is far smaller; the rest is room for a pool busy with other learners' replays.
REPLAY_WAIT_SECONDS = 10.0
Spent = Callable[[float], None]
R = TypeVar("R")


def not_counted(cpu_seconds: float) -> None:
    """Count no CPU (a caller that keeps no sandbox budget)."""


@dataclass(frozen=True)
class Replayed(Generic[R]):
    """What one replay on the pool gives back: its result, or the refusal it met, and the
    CPU seconds it took (charged to the sandbox's budgets either way)."""

    result: R | None
    refusal: Exception | None
    cpu_seconds: float

    def unwrap(self, spent: Spent) -> R:
        """Charge the CPU, then return the result or raise the refusal."""
        spent(self.cpu_seconds)
        if self.refusal is not None:
            raise self.refusal
        assert self.result is not None
        return self.result


def timed(work: Callable[..., R], *args: Any) -> Replayed[R]:
    """Run ``work`` and time its CPU; a refusal it raises is kept, not lost with the time."""
    started = time.thread_time()
    try:
        result = work(*args)
    except Invalid as refusal:
        return Replayed(None, refusal, time.thread_time() - started)
    return Replayed(result, None, time.thread_time() - started)


def replay_job(scenario: Any, limits: Limits) -> Replayed[dict[str, Any]]:
    """Replay a scenario within the sandbox's bounds (a job for the costly-work pool)."""
    return timed(replay_bounded, scenario, limits)


def simulate(ctx: Context, scenario: Any, detail: str = "summary",
             spent: Spent = not_counted) -> dict[str, Any]:
    """Return the trace of a bounded scenario: its summary, or with ``detail="full"`` all of it.

    The replay runs on the costly-work pool (``Context.costly``); ``spent`` is told the CPU
    it took. The sandbox replays any numeric question from its shown numbers, so using it
    while closed-book questions are open makes them open-book, as reading the lesson does.
    """
    trace = ctx.costly(REPLAY_WAIT_SECONDS, replay_job, scenario, ctx.limits,
                       lane=QUICK).unwrap(spent)
    open_the_book(ctx, None)
    return trace if detail == "full" else summary(trace)


def replay_bounded(scenario: Any, limits: Limits) -> dict[str, Any]:
    """Return the ledger trace of a scenario within the sandbox's bounds (422 otherwise).

    Besides the size bounds, one replay may take at most ``limits.simulate_cpu_seconds`` of
    CPU (a typical scenario takes about a millisecond): a scenario that would take longer is
    a 422 on ``scenario``, and no client can occupy a worker for long with one request.
    """
    if not isinstance(scenario, Mapping):
        raise Invalid("_schema", N_("the scenario must be a JSON object"),
                      reason="not_an_object")
    check_bounds(scenario, limits)
    deadline = time.thread_time() + limits.simulate_cpu_seconds  # this request's thread
    try:
        engine = Engine(parse_scenario(dict(scenario))).run(
            keep_going=lambda: time.thread_time() < deadline)
    except ScenarioError as error:
        raise Invalid(error.field, LEDGER_DETAIL, reason="scenario",
                      params={"detail": error.reason}) from None
    except SchedulerCrash as error:
        raise Invalid("scenario", N_("vLLM 0.33.0 itself fails on this scenario: %(detail)s"),
                      reason="scheduler_crash", params={"detail": str(error)}) from None
    if not engine.finished:
        raise Invalid("scenario", N_("replaying it takes more than the sandbox's %(seconds)s s "
                                     "of CPU: use fewer or shorter requests, or fewer steps"),
                      reason="too_costly",
                      params={"seconds": f"{limits.simulate_cpu_seconds:g}"})
    return engine.trace()


SUMMARY_SCHEDULE = ("sched_step", "total_num_scheduled_tokens", "num_scheduled_tokens",
                    "scheduled_spec_decode_tokens", "preempted_ids")


def summary(trace: dict[str, Any]) -> dict[str, Any]:
    """Return a trace without its per-request snapshots: what each step scheduled, who
    finished, the queues and the free blocks (FORMAT.md's compared step fields)."""
    steps = []
    for step in trace["steps"]:
        schedule = step.get("schedule") or {}
        update = step.get("update") or {}
        steps.append({
            "step": step["step"], "arrivals": step.get("arrivals", []),
            "aborted": step.get("aborted", []),
            "schedule": {name: schedule[name] for name in SUMMARY_SCHEDULE if name in schedule}
            if schedule else None,
            "update": {"finished_ids": update.get("finished_ids", [])} if update else None,
            "running": step.get("running", []), "waiting": step.get("waiting", []),
            "kv_free_blocks": step.get("kv_free_blocks")})
    return {**{key: value for key, value in trace.items() if key != "steps"},
            "detail": "summary", "steps": steps}


@dataclass(frozen=True)
class SimulatorRun:
    """A simulator run: its plan, the replayed trace, and where the target state was missed."""

    plan: simulator.ScenarioPlan
    trace: dict[str, Any]
    mismatches: list[simulator.Mismatch]
    example: WorkedExample | None = None


def run_settings(ctx: Context, settings: simulator.SimulatorSettings,
                 spent: Spent = not_counted) -> SimulatorRun:
    """Plan and replay one simulator run on the costly-work pool (the simulator page's run)."""
    return ctx.costly(REPLAY_WAIT_SECONDS, settings_job, settings, lane=QUICK).unwrap(spent)


def settings_job(settings: simulator.SimulatorSettings) -> Replayed[SimulatorRun]:
    """Plan and replay one simulator run (a job for the costly-work pool)."""
    return timed(planned_run, settings)


def planned_run(settings: simulator.SimulatorSettings) -> SimulatorRun:
    """Plan and replay one simulator run through the ledger.

    A scenario the ledger rejects, or a configuration on which vLLM itself crashes, is a
    ``errors.Invalid`` naming the field; under synchronous scheduling the target step's real
    state is compared with the one asked for, so a state the warm-up missed is reported.
    """
    plan_made = simulator.plan_scenario(settings)
    try:
        trace = replay(plan_made.scenario)
    except ScenarioError as error:
        raise simulator.setting_refused(error.field, LEDGER_DETAIL, reason="scenario",
                                        params={"detail": error.reason}) from error
    except SchedulerCrash as error:
        raise simulator.setting_refused(
            "long_prefill_token_threshold",
            N_("vLLM 0.33.0's scheduler itself fails on this configuration: %(detail)s"),
            reason="scheduler_crash", params={"detail": str(error)},
        ) from error
    mismatches = (simulator.reached_mismatches(trace, plan_made) if plan_made.check_reached
                  else [])
    return SimulatorRun(plan_made, trace, mismatches)


def run_example(ctx: Context, example_id: str, spent: Spent = not_counted) -> SimulatorRun:
    """Replay one of the lesson's worked examples on the costly-work pool."""
    return ctx.costly(REPLAY_WAIT_SECONDS, example_job, example_id, lane=QUICK).unwrap(spent)


def example_job(example_id: str) -> Replayed[SimulatorRun]:
    """Replay a worked example of the bank (a job for the costly-work pool)."""
    return timed(example_run, job_runtime().bank, example_id)


def example_run(bank: Teaching, example_id: str) -> SimulatorRun:
    """Replay one of the lesson's worked examples as written (``/simulator?example=<id>``).

    The examples whose state the simulator's form cannot express (prefix caching, priority,
    ``max_tokens``, several prefills...) open their own scenario this way; the page draws its
    steps with the simulator's own rules, the example's step as the target. An unknown id is
    an ``errors.Invalid`` on ``example``.
    """
    try:
        example = bank.example(example_id)
    except NotFound:
        raise simulator.setting_refused(
            "example", N_("no worked example %(example)s"), reason="unknown_example",
            params={"example": repr(str(example_id)[:80])}) from None
    trace = replay(example.scenario)
    # The page reads the token budget from the plan's config; a scenario may leave it implicit.
    scenario = {**example.scenario, "config": {
        **example.scenario.get("config", {}),
        "max_num_scheduled_tokens": trace["effective_config"]["max_num_scheduled_tokens"]}}
    return SimulatorRun(simulator.ScenarioPlan(scenario, example.step, (), {}), trace, [],
                        example)


def plan(form: Mapping[str, str]) -> simulator.ScenarioPlan:
    """Return the scenario (warm-up steps included) for the simulator's settings.

    ``form`` holds the settings as the simulator's query fields; a setting out of range is a
    422 naming it (``location`` query).
    """
    return simulator.plan_scenario(simulator.parse_settings(form))
