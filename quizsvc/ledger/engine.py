"""The engine loop of FORMAT.md: arrivals, aborts, schedule, fake model runner, output update.

Sync mode follows ``EngineCore.step`` (schedule -> execute -> update -> drafts); async mode
follows ``EngineCore.step_with_batch_queue`` with a queue of two batches, so each
``schedule()`` sees one step in flight. The fake model runner turns a scenario's scripted
outcomes into sampled token ids. ``Engine.trace`` is the FORMAT.md trace.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from quizsvc.ledger.output import SchedulerOutput, UpdateResult
from quizsvc.ledger.request import EOS_TOKEN_ID, Request, RequestStatus
from quizsvc.ledger.scenario import Scenario, parse_scenario
from quizsvc.ledger.scheduler import Scheduler, WrongRule

TRACE_FORMAT = "vllm-sched-oracle/1"
DRAFT_TOKEN_ID = 7


class FakeModelRunner:
    """Return scripted tokens for each scheduled request, as FORMAT.md's harness does."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.index_of = {spec.request_id: spec.index for spec in scenario.requests}
        self.num_sampled: dict[str, int] = {}

    def execute(
        self, output: SchedulerOutput
    ) -> tuple[dict[str, list[int]], dict[str, dict[str, Any]]]:
        """Return (sampled token ids per request, what was returned, for the trace)."""
        sampled: dict[str, list[int]] = {}
        returned: dict[str, dict[str, Any]] = {}
        spec = output.scheduled_spec_decode_tokens
        for request_id in output.num_scheduled_tokens:
            if request_id in output.partial_prefill_req_ids:
                sampled[request_id] = []
                returned[request_id] = {"sampled": 0, "accepted": 0, "partial_prefill": True}
                continue
            outcome = self.scenario.outcome(output.sched_step, request_id)
            num_drafts = len(spec.get(request_id, ()))
            tokens = self._tokens(request_id, outcome, num_drafts)
            sampled[request_id] = tokens
            accepted = min(max(len(tokens) - 1, 0), num_drafts)
            returned[request_id] = {
                "sampled": len(tokens),
                "accepted": accepted,
                "partial_prefill": False,
            }
        return sampled, returned

    def _tokens(self, request_id: str, outcome: dict[str, Any], num_drafts: int) -> list[int]:
        if "token_ids" in outcome:
            tokens = list(outcome["token_ids"])
        else:
            if "sampled" in outcome:
                count = outcome["sampled"]
            else:
                accepted = outcome.get("accepted", 0)
                accepted = num_drafts if accepted == "all" else min(accepted, num_drafts)
                count = 1 + accepted
            num_from_drafts = min(max(count - 1, 0), num_drafts)
            tokens = [DRAFT_TOKEN_ID] * num_from_drafts
            index = self.index_of[request_id]
            for _ in range(count - num_from_drafts):
                c = self.num_sampled.get(request_id, 0)
                self.num_sampled[request_id] = c + 1
                tokens.append(200000 + 1000 * index + (c % 1000))
        if tokens and outcome.get("eos"):
            tokens[-1] = EOS_TOKEN_ID
        eos_index = outcome.get("eos_index")
        if eos_index is not None and eos_index < len(tokens):
            tokens[eos_index] = EOS_TOKEN_ID
        return tokens

    def drafts(self, output: SchedulerOutput, num_spec_tokens: int, method: str) -> dict[str, int]:
        """Return how many drafts to propose for each request scheduled in ``output``."""
        proposed: dict[str, int] = {}
        for request_id in output.num_scheduled_tokens:
            if request_id in output.partial_prefill_req_ids:
                proposed[request_id] = 0
            elif method == "ngram":
                wanted = self.scenario.outcome(output.sched_step, request_id).get(
                    "drafts", num_spec_tokens
                )
                proposed[request_id] = min(wanted, num_spec_tokens)
            else:
                proposed[request_id] = num_spec_tokens
        return proposed


class Engine:
    """Replay a scenario step by step, recording the FORMAT.md trace (unless ``tracing`` off)."""

    def __init__(
        self,
        scenario: Scenario,
        tracing: bool = True,
        wrong_rules: Iterable[WrongRule] = (),
        wrong_from_step: int = 0,
    ) -> None:
        self.scenario = scenario
        self.config = scenario.config
        self.tracing = tracing
        self.wrong_rules = frozenset(wrong_rules)
        self.wrong_from_step = wrong_from_step
        self.scheduler = Scheduler(scenario.config, explain=tracing)
        self.runner = FakeModelRunner(scenario)
        self.pending = sorted(scenario.requests, key=lambda s: (s.arrival_step, s.index))
        self.by_id: dict[str, Request] = {}
        self.finished_step: dict[str, int] = {}
        self.batch_queue: deque[tuple[SchedulerOutput, dict[str, list[int]],
                                      dict[str, Any]]] = deque()
        self.step_index = 0
        self.steps: list[dict[str, Any]] = []
        self.done = False

    # ---- the loop -------------------------------------------------------------------------
    def run(self, keep_going: Callable[[], bool] | None = None) -> Engine:
        """Step until the scenario ends or ``max_steps`` is reached.

        ``keep_going`` (asked before each step) lets a caller stop early, e.g. on a CPU
        budget; ``finished`` then says whether the scenario ran to its end.
        """
        while not self.done and self.step_index < self.config.max_steps:
            if keep_going is not None and not keep_going():
                break
            self.step()
        return self

    @property
    def finished(self) -> bool:
        """Tell whether the scenario ran to its end (or to ``max_steps``)."""
        return self.done or self.step_index >= self.config.max_steps

    def step(self) -> dict[str, Any] | None:
        """Run one engine-loop iteration; return its trace record (None once finished)."""
        step = self.step_index
        scheduler = self.scheduler
        arrivals = self._admit_arrivals(step)
        alive = list(scheduler.requests.values())
        aborted = scheduler.finish_requests(
            list(self.scenario.aborts.get(step, ())), RequestStatus.FINISHED_ABORTED
        )
        for request_id in aborted:
            self.finished_step[request_id] = step
        if not self.pending and not self.batch_queue and not scheduler.has_requests():
            self.done = True
            return None
        self.step_index += 1
        if self.wrong_rules and step >= self.wrong_from_step:
            scheduler.wrong_rules = self.wrong_rules
        record: dict[str, Any] | None = None
        listed: list[Request] = []
        if self.tracing:
            # FORMAT.md lists every request alive before the step, arriving or aborted in it:
            # an abort naming a request that had already finished lists it too, unchanged.
            alive_ids = {r.request_id for r in alive}
            listed = alive + [self.by_id[rid]
                              for rid in dict.fromkeys(self.scenario.aborts.get(step, ()))
                              if rid in self.by_id and rid not in alive_ids]
            record = {
                "step": step,
                "arrivals": arrivals,
                "aborted": aborted,
                "schedule": None,
                "update": None,
                "requests": {r.request_id: {} for r in listed},
            }
        if self.config.async_scheduling:
            self._step_async(step, record)
        else:
            self._step_sync(step, record)
        if record is not None:
            for request in listed:
                entry = record["requests"][request.request_id]
                entry.setdefault("num_scheduled_tokens", 0)
                entry.setdefault("num_scheduled_spec_tokens", 0)
                entry["after_update"] = request.snapshot()
            record["running"] = [r.request_id for r in scheduler.running]
            record["waiting"] = [r.request_id for r in scheduler.waiting]
            record["kv_free_blocks"] = scheduler.kv.num_free_blocks
            self.steps.append(record)
        return record

    def _admit_arrivals(self, step: int) -> list[str]:
        arrivals: list[str] = []
        while self.pending and self.pending[0].arrival_step <= step:
            spec = self.pending.pop(0)
            request = Request(
                request_id=spec.request_id,
                prompt_token_ids=list(spec.prompt_token_ids),
                max_tokens=spec.max_tokens,
                arrival_time=spec.arrival_time,
                min_tokens=spec.min_tokens,
                priority=spec.priority,
            )
            self.by_id[spec.request_id] = request
            self.scheduler.add_request(request)
            arrivals.append(spec.request_id)
        return arrivals

    def _schedule(self, record: dict[str, Any] | None) -> SchedulerOutput:
        scheduler = self.scheduler
        if record is None:
            return scheduler.schedule()
        requests = record["requests"]
        alive = list(scheduler.requests.values())
        for request in alive:
            requests.setdefault(request.request_id, {})["before_schedule"] = request.snapshot()
        output = scheduler.schedule()
        spec = output.scheduled_spec_decode_tokens
        for request in alive:
            entry = requests[request.request_id]
            entry["after_schedule"] = request.snapshot()
            entry["num_scheduled_tokens"] = output.num_scheduled_tokens.get(request.request_id, 0)
            entry["num_scheduled_spec_tokens"] = len(spec.get(request.request_id, ()))
        record["schedule"] = schedule_record(output)
        return output

    def _apply(
        self,
        step: int,
        output: SchedulerOutput,
        sampled: dict[str, list[int]],
        returned: dict[str, dict[str, Any]],
        record: dict[str, Any] | None,
    ) -> UpdateResult:
        result = self.scheduler.update_from_output(output, sampled)
        for request_id in result.finished_ids:
            self.finished_step[request_id] = step
        if record is not None:
            record["update"] = {
                "sched_step": output.sched_step,
                "returned": returned,
                "finished_ids": sorted(result.finished_ids),
                "finish_reasons": result.finish_reasons,
                "rolled_back": result.rejected,
                "trimmed": result.trimmed,
            }
        return result

    def _step_sync(self, step: int, record: dict[str, Any] | None) -> None:
        scheduler = self.scheduler
        if not scheduler.has_requests():
            return
        output = self._schedule(record)
        sampled, returned = self.runner.execute(output)
        self._apply(step, output, sampled, returned, record)
        config = self.config
        if config.num_speculative_tokens > 0 and output.total_num_scheduled_tokens > 0:
            proposed = self.runner.drafts(
                output, config.num_speculative_tokens, config.spec_method
            )
            scheduler.update_draft_token_ids(
                {rid: [DRAFT_TOKEN_ID] * count for rid, count in proposed.items()}
            )
            if record is not None:
                for request_id, count in proposed.items():
                    if request_id in record["requests"]:
                        record["requests"][request_id]["drafts_proposed"] = count

    def _step_async(self, step: int, record: dict[str, Any] | None) -> None:
        scheduler = self.scheduler
        queue = self.batch_queue
        if scheduler.has_requests():
            output = self._schedule(record)
            sampled, returned = self.runner.execute(output)
            queue.appendleft((output, sampled, returned))
            model_executed = output.total_num_scheduled_tokens > 0
            if len(queue) < self.config.max_concurrent_batches and (
                model_executed or scheduler.has_requests()
            ):
                return
        elif not queue:
            return
        output, sampled, returned = queue.pop()
        self._apply(step, output, sampled, returned, record)

    # ---- results --------------------------------------------------------------------------
    def final(self) -> dict[str, dict[str, Any]]:
        """Return each request's end state, as the trace's ``final`` object."""
        final: dict[str, dict[str, Any]] = {}
        for spec in self.scenario.requests:
            request = self.by_id.get(spec.request_id)
            if request is None:
                final[spec.request_id] = {"status": "NOT_ARRIVED", "num_prompt_tokens":
                                          len(spec.prompt_token_ids), "num_output_tokens": 0,
                                          "num_preemptions": 0, "finished_step": None}
                continue
            final[spec.request_id] = {
                "status": request.status.value,
                "num_prompt_tokens": request.num_prompt_tokens,
                "num_output_tokens": request.num_output_tokens,
                "num_preemptions": request.num_preemptions,
                "finished_step": self.finished_step.get(spec.request_id),
            }
        return final

    def trace(self) -> dict[str, Any]:
        """Return the FORMAT.md trace of everything run so far."""
        trace: dict[str, Any] = {
            "format": TRACE_FORMAT,
            "scenario": self.scenario.name,
            "effective_config": self.config.effective(),
            "steps": self.steps,
            "final": self.final(),
        }
        if self.wrong_rules:
            # Never mistaken for a real vLLM trace: say which wrong model produced it.
            trace["wrong_rules"] = sorted(rule.value for rule in self.wrong_rules)
            trace["wrong_from_step"] = self.wrong_from_step
        return trace


def schedule_record(output: SchedulerOutput) -> dict[str, Any]:
    """Return the trace's ``schedule`` object for one ``SchedulerOutput``."""
    return {
        "sched_step": output.sched_step,
        "total_num_scheduled_tokens": output.total_num_scheduled_tokens,
        "num_scheduled_tokens": dict(output.num_scheduled_tokens),
        "scheduled_spec_decode_tokens": {
            rid: len(drafts) for rid, drafts in output.scheduled_spec_decode_tokens.items()
        },
        "new_req_ids": list(output.new_req_ids),
        "new_req_num_computed_tokens": dict(output.new_req_num_computed_tokens),
        "resumed_req_ids": list(output.resumed_req_ids),
        "preempted_ids": sorted(output.preempted_req_ids),
        "finished_ids_notified": sorted(output.finished_req_ids),
        "sampling_req_ids": [
            rid for rid in output.num_scheduled_tokens
            if rid not in output.partial_prefill_req_ids
        ],
        "token_budget_left": output.token_budget_left,
        "input_budget_left": output.input_budget_left,
        "limits": {rid: limit.to_dict() for rid, limit in output.limits.items()},
    }


def replay(
    scenario: dict[str, Any] | Scenario,
    wrong_rules: Iterable[WrongRule | str] = (),
    wrong_from_step: int = 0,
) -> dict[str, Any]:
    """Replay one FORMAT.md scenario and return its trace (raises ``ScenarioError``).

    ``wrong_rules`` replays it under deliberately mistaken models (misconception feedback),
    from loop step ``wrong_from_step`` on: the warm-up before the asked step stays real, so
    the wrong model is applied to the very state the learner was shown.
    """
    parsed = scenario if isinstance(scenario, Scenario) else parse_scenario(scenario)
    rules = [WrongRule(rule) for rule in wrong_rules]
    return Engine(parsed, wrong_rules=rules, wrong_from_step=wrong_from_step).run().trace()
