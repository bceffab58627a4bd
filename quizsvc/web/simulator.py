"""Turn a simulator run's trace into the rows the simulator page shows.

``quizsvc.study.simulator`` plans the scenario from the learner's settings; this module is
presentation only: per step, one row per request with the bar the page draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizsvc.study.simulator import ScenarioPlan


@dataclass(frozen=True)
class Bar:
    """Give the segment lengths (in token positions) of one request's picture of a step.

    In order: computed before the step, scheduled ordinary positions, scheduled drafts kept,
    scheduled drafts rolled back by the output update, and demand left unscheduled.
    """

    computed: int
    scheduled: int
    drafts_kept: int
    rolled_back: int
    unscheduled: int

    @property
    def total(self) -> int:
        """Return the bar's full length in positions."""
        return (
            self.computed + self.scheduled + self.drafts_kept + self.rolled_back
            + self.unscheduled
        )


@dataclass(frozen=True)
class RequestRow:
    """One request's line in a step's table."""

    id: str
    filler: bool
    loop: str
    demand: int | None
    scheduled: int
    drafts_verified: int
    bound: str
    computed_before: int
    computed_after_schedule: int
    computed_after_update: int
    tokens_before: int
    tokens_after: int
    gap_after: int
    status_after: str
    bar: Bar


@dataclass(frozen=True)
class StepView:
    """One engine step as the page shows it: its kind, totals and a row per request."""

    step: int  # the engine's step number: it moves with the length of the warm-up
    offset: int  # the step relative to the target step: the stable name, T-2 .. T .. T+2
    kind: str  # "warm-up", "target" or "after"
    total_scheduled: int
    token_budget: int
    rows: tuple[RequestRow, ...]
    allocation: tuple[tuple[str, int], ...]
    scale: int


def step_views(trace: Mapping[str, Any], plan: ScenarioPlan) -> list[StepView]:
    """Turn a trace into the per-step tables the simulator shows (same rules as simulator.js)."""
    token_budget = int(trace.get("effective_config", {}).get(
        "max_num_scheduled_tokens", plan.scenario["config"]["max_num_scheduled_tokens"]))
    views = []
    for step in trace.get("steps", []):
        number = step["step"]
        kind = (
            "warm-up" if number < plan.target_step
            else "target" if number == plan.target_step else "after"
        )
        schedule = step.get("schedule") or {}
        scheduled = schedule.get("num_scheduled_tokens", {})
        spec = schedule.get("scheduled_spec_decode_tokens", {})
        limits = schedule.get("limits", {})
        rows = []
        for rid, info in step.get("requests", {}).items():
            before = info.get("before_schedule") or {}
            after_schedule = info.get("after_schedule") or before
            after = info.get("after_update") or after_schedule
            n = int(scheduled.get(rid, 0))
            k = _count(spec.get(rid, 0))
            limit = limits.get(rid, {})
            c_before = int(before.get("num_computed_tokens", 0))
            c_sched = int(after_schedule.get("num_computed_tokens", c_before))
            c_after = int(after.get("num_computed_tokens", c_sched))
            rolled = max(0, min(k, c_sched - c_after)) if n else 0
            want = (
                int(before.get("num_tokens_with_spec", 0))
                + int(before.get("num_output_placeholders", 0))
                - c_before
            )
            rows.append(
                RequestRow(
                    id=rid,
                    filler=rid in plan.fillers,
                    loop=str(limit.get("loop", "")),
                    demand=limit.get("demand"),
                    scheduled=n,
                    drafts_verified=k,
                    bound=str(limit.get("bound", "")) if limit else ("" if n else "not eligible"),
                    computed_before=c_before,
                    computed_after_schedule=c_sched,
                    computed_after_update=c_after,
                    tokens_before=int(before.get("num_tokens", 0)),
                    tokens_after=int(after.get("num_tokens", 0)),
                    gap_after=int(after.get("num_tokens", 0)) - c_after,
                    status_after=str(after.get("status", "")),
                    bar=Bar(
                        computed=c_before,
                        scheduled=n - k,
                        drafts_kept=k - rolled,
                        rolled_back=rolled,
                        unscheduled=max(0, want - n),
                    ),
                )
            )
        views.append(
            StepView(
                step=number,
                offset=number - plan.target_step,
                kind=kind,
                total_scheduled=int(schedule.get("total_num_scheduled_tokens", 0)),
                token_budget=token_budget,
                rows=tuple(rows),
                allocation=tuple((rid, int(n)) for rid, n in scheduled.items()),
                scale=max([row.bar.total for row in rows] + [1]),
            )
        )
    return views


def step_name(offset: int) -> str:
    """Name a step by where it stands to the target step: ``T``, ``T+1``, ``T−2``."""
    return "T" if offset == 0 else f"T+{offset}" if offset > 0 else f"T\u2212{-offset}"


def negative_gaps(views: list[StepView]) -> bool:
    """Tell whether some request ends a step with C above N (N − C < 0), which only async
    scheduling does: C already counts the positions of the step still in flight."""
    return any(row.gap_after < 0 for view in views for row in view.rows)


def _count(value: Any) -> int:
    """Read a draft count that FORMAT.md gives as a number (or, in some traces, as a list)."""
    return len(value) if isinstance(value, list) else int(value)
