"""The V1 scheduler's token ledger: ``schedule()``, ``update_from_output()`` and drafts.

A model of vLLM 0.33.0's ``Scheduler`` / ``AsyncScheduler`` (vllm/v1/core/sched/scheduler.py,
async_scheduler.py) for text-only models, written from ``shared/ledger/SPEC.md`` and the
source. Each step: the running loop (demand ``N + S + ph - C``, threshold, the two budgets,
the ``max_model_len`` clamp, KV allocation with preemption), then — only if nothing was
preempted — the waiting loop (seats, prefix hit, padding, threshold, budgets, the admission
gate); then ``_update_after_schedule`` advances ``num_computed_tokens`` optimistically.
``update_from_output`` appends sampled tokens, rolls back rejected drafts and stops requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from quizsvc.ledger.config import LedgerConfig
from quizsvc.ledger.errors import SchedulerCrash
from quizsvc.ledger.kv_cache import KVCacheManager
from quizsvc.ledger.output import RequestLimit, SchedulerOutput, UpdateResult
from quizsvc.ledger.queues import FcfsQueue, PriorityQueue
from quizsvc.ledger.request import FINISHED_STATUSES, Request, RequestStatus

# vLLM's num_sampled_tokens_per_step for generative models.
NUM_SAMPLED_TOKENS_PER_STEP = 1


class WrongRule(StrEnum):
    """Name a common wrong model of the scheduler that the ledger can run on purpose.

    The real vLLM 0.33.0 behaviour is the default (no wrong rule). Running a scenario under
    one of these shows a learner what their mistaken model would predict, computed by the
    same machinery rather than by a formula written beside it.
    """

    DRAFTS_COUNTED_TWICE = "drafts_counted_twice"  # demand N + 2S + ph - C
    WAITING_BEFORE_RUNNING = "waiting_before_running"  # admissions before the running loop
    THRESHOLD_FOR_LONE_REQUEST = "threshold_for_lone_request"  # threshold even when E <= 1
    KV_SHRINKS_CHUNK = "kv_shrinks_chunk"  # a KV shortage cuts n instead of preempting


@dataclass(slots=True)
class _StepState:
    """Carry one ``schedule()`` call's budgets and partial output between its two loops."""

    token_budget: int
    input_budget: int
    threshold: int
    num_scheduled_tokens: dict[str, int] = field(default_factory=dict)
    scheduled_spec_decode_tokens: dict[str, list[int]] = field(default_factory=dict)
    scheduled_running: list[Request] = field(default_factory=list)
    preempted: list[Request] = field(default_factory=list)
    limits: dict[str, RequestLimit] = field(default_factory=dict)
    cached_num_computed: dict[str, int] = field(default_factory=dict)
    new_req_ids: list[str] = field(default_factory=list)
    resumed_req_ids: list[str] = field(default_factory=list)
    new_num_computed: dict[str, int] = field(default_factory=dict)
    prefill_scheduled: bool = False


class Scheduler:
    """Keep the books of one vLLM 0.33.0 V1 scheduler (sync or async).

    Set ``explain`` to False to skip recording ``RequestLimit`` reasons (benchmarks);
    ``wrong_rules`` runs a deliberately mistaken model (``WrongRule``) for misconception
    feedback and is empty for the real scheduler.
    """

    def __init__(
        self,
        config: LedgerConfig,
        explain: bool = True,
        wrong_rules: frozenset[WrongRule] = frozenset(),
    ) -> None:
        self.config = config
        self.explain = explain
        self.wrong_rules = frozenset(wrong_rules)
        self.is_async = config.async_scheduling
        self.is_priority = config.policy == "priority"
        self.num_spec_tokens = config.num_speculative_tokens
        self.draft_slots = config.draft_slots
        self.num_lookahead_tokens = config.num_lookahead_tokens
        self.num_prefill_lookahead_tokens = config.num_prefill_lookahead_tokens
        self.max_model_len = config.max_model_len
        self.resumed_as_new = config.uses_v2_model_runner
        self.kv = KVCacheManager(
            num_gpu_blocks=config.num_gpu_blocks,
            block_size=config.block_size,
            max_model_len=config.max_model_len,
            enable_caching=config.enable_prefix_caching,
            watermark_blocks=config.watermark_blocks,
            num_hash_lookahead_tokens=config.num_hash_lookahead_tokens,
        )
        self.requests: dict[str, Request] = {}
        self.running: list[Request] = []
        self.waiting: FcfsQueue | PriorityQueue = (
            PriorityQueue() if self.is_priority else FcfsQueue()
        )
        self.finished_req_ids: list[str] = []
        self.preempted_since_last_step: list[str] = []
        self.sched_step = -1

    # ---- requests in and out ------------------------------------------------------------
    def add_request(self, request: Request) -> None:
        """Queue a new request as WAITING."""
        if request.request_id in self.requests:
            raise ValueError(f"duplicate request id {request.request_id!r}")
        self.kv.update_block_hashes(request)
        self.requests[request.request_id] = request
        self.waiting.add(request)

    def finish_requests(self, request_ids: list[str], status: RequestStatus) -> list[str]:
        """Finish requests from outside (an abort); return the ids that were still alive.

        An id named twice is finished once: vLLM takes the ids as a set and skips one that is
        no longer alive, so a repeated abort is a no-op, not a second free.
        """
        finished: list[Request] = []
        for request_id in dict.fromkeys(request_ids):
            request = self.requests.get(request_id)
            if request is None or request.is_finished:
                continue
            finished.append(request)
        running_ids = {id(r) for r in finished if r.status == RequestStatus.RUNNING}
        if running_ids:
            self.running = [r for r in self.running if id(r) not in running_ids]
        waiting = [r for r in finished if r.status != RequestStatus.RUNNING]
        if waiting:
            self.waiting.remove_many(waiting)
        for request in finished:
            request.status = status
            self._free_request(request)
        return [r.request_id for r in finished]

    def _free_request(self, request: Request) -> None:
        """Release a finished request's blocks and announce it in the next output."""
        self.finished_req_ids.append(request.request_id)
        self.kv.free(request)
        del self.requests[request.request_id]

    def has_unfinished_requests(self) -> bool:
        """Return True while anything is running or waiting."""
        return bool(self.running) or len(self.waiting) > 0

    def has_requests(self) -> bool:
        """Return True if ``schedule()`` has anything to do (work or finished ids to announce)."""
        return self.has_unfinished_requests() or bool(self.finished_req_ids)

    # ---- schedule -----------------------------------------------------------------------
    def schedule(self) -> SchedulerOutput:
        """Plan one step: the running loop, then (unless something was preempted) admissions."""
        self.sched_step += 1
        config = self.config
        num_eligible = len(self.running) + len(self.waiting)
        threshold = config.long_prefill_token_threshold
        if num_eligible <= 1 and WrongRule.THRESHOLD_FOR_LONE_REQUEST not in self.wrong_rules:
            threshold = 0
        if threshold > 0 and config.long_prefill_token_threshold_adaptive:
            threshold = max(threshold, config.input_budget // max(num_eligible, 1))
        state = _StepState(config.token_budget, config.input_budget, threshold)
        if WrongRule.WAITING_BEFORE_RUNNING in self.wrong_rules:
            self._schedule_waiting(state)
            self._schedule_running(state)
        else:
            self._schedule_running(state)
            if not state.preempted:
                self._schedule_waiting(state)
            elif self.explain:
                self._explain_no_admissions(state)
        new_req_ids = state.new_req_ids
        resumed_req_ids = state.resumed_req_ids
        if self.resumed_as_new:
            # The V2 model runner (vLLM's default) gets resumed requests as new ones, after
            # the fresh admissions.
            new_req_ids = new_req_ids + resumed_req_ids
            resumed_req_ids = []
        num_scheduled_tokens = state.num_scheduled_tokens
        total = sum(num_scheduled_tokens.values())
        if total > config.token_budget or state.token_budget < 0 or state.input_budget < 0:
            raise SchedulerCrash("budget overspent")  # vLLM asserts the same
        output = SchedulerOutput(
            sched_step=self.sched_step,
            num_scheduled_tokens=num_scheduled_tokens,
            total_num_scheduled_tokens=total,
            scheduled_spec_decode_tokens=state.scheduled_spec_decode_tokens,
            new_req_ids=new_req_ids,
            new_req_num_computed_tokens=state.new_num_computed,
            resumed_req_ids=resumed_req_ids,
            running_req_ids=[r.request_id for r in state.scheduled_running],
            cached_req_num_computed_tokens=state.cached_num_computed,
            preempted_req_ids=self.preempted_since_last_step
            + [r.request_id for r in state.preempted],
            finished_req_ids=self.finished_req_ids,
            num_spec_tokens_to_schedule=self.num_spec_tokens,
            token_budget_left=state.token_budget,
            input_budget_left=state.input_budget,
            limits=state.limits,
        )
        self._update_after_schedule(output)
        return output

    def _schedule_running(self, state: _StepState) -> None:
        """Walk ``running`` in order: demand, threshold, budgets, model length, then KV."""
        explain = self.explain
        wrong_rules = self.wrong_rules
        draft_slots = self.draft_slots
        max_model_len = self.max_model_len
        lookahead = self.num_lookahead_tokens
        prefill_lookahead = self.num_prefill_lookahead_tokens
        kv = self.kv
        threshold = state.threshold
        token_budget = state.token_budget
        input_budget = state.input_budget
        num_scheduled_tokens = state.num_scheduled_tokens
        scheduled_spec_decode_tokens = state.scheduled_spec_decode_tokens
        scheduled_running = state.scheduled_running
        limits = state.limits
        drafts_counted_twice = WrongRule.DRAFTS_COUNTED_TWICE in wrong_rules
        kv_shrinks_chunk = WrongRule.KV_SHRINKS_CHUNK in wrong_rules
        admitted_first = WrongRule.WAITING_BEFORE_RUNNING in wrong_rules

        running = self.running
        req_index = 0
        while req_index < len(running) and token_budget > 0:
            request = running[req_index]
            if input_budget <= draft_slots:
                break
            if admitted_first and request.request_id in num_scheduled_tokens:
                req_index += 1
                continue
            placeholders = request.num_output_placeholders
            computed = request.num_computed_tokens
            if (
                placeholders > 0
                and computed + 2 - placeholders
                >= request.num_prompt_tokens + request.max_tokens
            ):
                if explain:
                    limits[request.request_id] = RequestLimit(
                        "running", 0, threshold or None, token_budget,
                        input_budget - draft_slots, None, 0, 0, "skipped",
                        "async max-tokens skip: the step in flight already reaches max_tokens",
                    )
                req_index += 1
                continue
            num_tokens = len(request.all_token_ids)
            num_drafts = len(request.spec_token_ids)
            demand = num_tokens + num_drafts + placeholders - computed
            if drafts_counted_twice:
                demand += num_drafts
            num_new = demand
            bound = "demand"
            if 0 < threshold < num_new:
                num_new = threshold
                bound = "threshold"
            room_in_inputs = input_budget - draft_slots
            if token_budget < num_new or room_in_inputs < num_new:
                if token_budget <= room_in_inputs:
                    num_new = token_budget
                    bound = "token_budget"
                else:
                    num_new = room_in_inputs
                    bound = "input_budget"
            model_len_room = max_model_len - computed - NUM_SAMPLED_TOKENS_PER_STEP
            if model_len_room < num_new:
                num_new = model_len_room
                bound = "max_model_len"
            if prefill_lookahead:
                remaining = num_tokens - computed - num_new
                if 0 < remaining < prefill_lookahead:
                    num_new = max(num_new - (prefill_lookahead - remaining), 0)
            if kv_shrinks_chunk:
                fitting = self._tokens_that_fit(request, lookahead)
                if fitting < num_new:
                    num_new = max(fitting, 0)
                    bound = "kv"
            limit = None
            if explain:
                limit = RequestLimit(
                    "running", demand, threshold or None, token_budget, room_in_inputs,
                    model_len_room, 0, num_new, bound,
                )
                limits[request.request_id] = limit
            if num_new <= 0:
                if num_new < 0:
                    raise SchedulerCrash(
                        f"{request.request_id}: negative allocation {num_new} at max_model_len"
                    )
                if limit is not None and bound != "kv":
                    limit.bound = "skipped"
                    limit.note = "no room left before max_model_len"
                req_index += 1
                continue
            allocated = False
            while True:
                if kv.allocate_slots(request, num_new, num_lookahead_tokens=lookahead):
                    allocated = True
                    break
                if limit is not None:
                    limit.kv_blocks_needed = kv.last_blocks_needed
                    limit.kv_free_blocks = kv.num_free_blocks
                if self.is_priority:
                    victim = max(running, key=lambda r: (r.priority, r.arrival_time))
                    victim_index = running.index(victim)
                    del running[victim_index]
                    if victim_index < req_index:
                        req_index -= 1
                    if victim in scheduled_running:
                        scheduled_running.remove(victim)
                        restored = num_scheduled_tokens.pop(victim.request_id)
                        token_budget += restored
                        input_budget += restored + draft_slots
                        scheduled_spec_decode_tokens.pop(victim.request_id, None)
                        state.cached_num_computed.pop(victim.request_id, None)
                else:
                    victim = running.pop()
                self._preempt(victim)
                state.preempted.append(victim)
                if explain:
                    self._explain_preemption(state, victim, request, token_budget, input_budget)
                if victim is request:
                    break
            if not allocated:
                if self.is_priority and request.status == RequestStatus.PREEMPTED:
                    continue
                break
            scheduled_running.append(request)
            state.prefill_scheduled |= request.is_prefill_chunk
            request_id = request.request_id
            num_scheduled_tokens[request_id] = num_new
            state.cached_num_computed[request_id] = computed
            token_budget -= num_new
            input_budget -= num_new + draft_slots
            req_index += 1
            if request.spec_token_ids:
                num_drafts_covered = num_new + computed - num_tokens - placeholders
                if num_drafts_covered > 0:
                    scheduled_spec_decode_tokens[request_id] = request.spec_token_ids[
                        :num_drafts_covered
                    ]
                request.spec_token_ids = []
        state.token_budget = token_budget
        state.input_budget = input_budget
        if explain:
            self._explain_unreached_running(state, req_index)

    def _tokens_that_fit(self, request: Request, lookahead: int) -> int:
        """Return how many new tokens the free KV blocks could hold (a wrong-rule helper)."""
        kv = self.kv
        capacity = (kv.num_free_blocks + kv.num_held_blocks(request.request_id)) * kv.block_size
        capacity = min(capacity, self.max_model_len)
        return capacity - request.num_computed_tokens - lookahead

    def _explain_preemption(
        self, state: _StepState, victim: Request, request: Request, token_budget: int,
        input_budget: int,
    ) -> None:
        """Record that ``victim`` was preempted so that ``request`` could get KV blocks."""
        victim_limit = state.limits.get(victim.request_id)
        if victim is request and victim_limit is not None:
            victim_limit.scheduled = 0
            victim_limit.bound = "preempted"
            victim_limit.note = "preempted itself: no KV blocks left to take"
            return
        state.limits[victim.request_id] = RequestLimit(
            "running", 0, state.threshold or None, token_budget,
            input_budget - self.draft_slots, None, 0, 0, "preempted",
            f"preempted to free KV blocks for {request.request_id}",
        )

    def _explain_no_admissions(self, state: _StepState) -> None:
        """Record that waiting requests got nothing because the step preempted."""
        for request in self.waiting:
            state.limits.setdefault(
                request.request_id,
                RequestLimit(
                    "waiting", request.num_tokens, state.threshold or None, state.token_budget,
                    state.input_budget - self.draft_slots, None, 0, 0, "preempted",
                    "no admissions in a step that preempted",
                ),
            )

    def _explain_unreached_running(self, state: _StepState, req_index: int) -> None:
        """Record why running requests the loop never reached got nothing."""
        draft_slots = self.draft_slots
        token_budget = state.token_budget
        input_budget = state.input_budget
        for request in self.running[req_index:]:
            if request.request_id in state.limits:
                continue
            if token_budget <= 0:
                bound, note = "token_budget", "token_budget spent before its turn"
            elif input_budget <= draft_slots:
                bound, note = "input_budget", "input_budget <= draft_slots: the loop stopped"
            else:
                bound, note = "kv", "the running loop stopped after a KV preemption"
            state.limits[request.request_id] = RequestLimit(
                "running",
                request.num_tokens_with_spec + request.num_output_placeholders
                - request.num_computed_tokens,
                state.threshold or None, token_budget, input_budget - draft_slots, None, 0, 0,
                bound, note,
            )

    def _schedule_waiting(self, state: _StepState) -> None:
        """Admit waiting requests in queue order until a limit stops the loop."""
        config = self.config
        explain = self.explain
        draft_slots = self.draft_slots
        num_spec_tokens = self.num_spec_tokens
        prefill_lookahead = self.num_prefill_lookahead_tokens
        block_size = config.block_size
        waiting = self.waiting
        kv = self.kv
        limits = state.limits
        threshold = state.threshold
        token_budget = state.token_budget
        input_budget = state.input_budget
        scheduled_any_running = bool(state.scheduled_running)
        kv_shrinks_chunk = WrongRule.KV_SHRINKS_CHUNK in self.wrong_rules
        skipped: list[Request] = []
        stop_reason: tuple[str, str] | None = None
        while token_budget > 0:
            if len(waiting) == 0:
                break
            if input_budget <= draft_slots:
                stop_reason = ("input_budget", "input_budget <= draft_slots: admissions stop")
                break
            if len(self.running) >= config.max_num_seqs:
                stop_reason = ("seats", f"max_num_seqs = {config.max_num_seqs} seats taken")
                break
            request = waiting.peek()
            if request.num_stale_output_tokens:
                skipped.append(waiting.pop())
                if explain:
                    limits[request.request_id] = RequestLimit(
                        "waiting", 0, threshold or None, token_budget,
                        input_budget - draft_slots, None, 0, 0, "skipped",
                        "preempted output still in flight",
                    )
                continue
            hit_blocks = []
            num_computed = request.num_computed_tokens
            if num_computed == 0:
                hit_blocks = kv.find_prefix_hit(request)
                num_computed = len(hit_blocks) * block_size
            request_token_budget = min(token_budget, input_budget - draft_slots)
            num_tokens = request.num_tokens
            demand = num_tokens - num_computed
            num_new = demand
            bound = "demand"
            pad_spec_decode = False
            if (
                num_spec_tokens > 0
                and num_new == 1
                and not state.prefill_scheduled
                and (scheduled_any_running or num_computed > 0)
            ):
                padded = 1 + num_spec_tokens
                if num_computed + padded + NUM_SAMPLED_TOKENS_PER_STEP <= self.max_model_len:
                    if padded > request_token_budget:
                        stop_reason = ("padding", "padded to 1+K, which does not fit the budget")
                        break
                    num_new = padded
                    pad_spec_decode = True
                    bound = "padding"
            if 0 < threshold < num_new:
                num_new = threshold
                bound = "threshold"
            if request_token_budget < num_new:
                num_new = request_token_budget
                bound = "token_budget" if token_budget <= input_budget - draft_slots else (
                    "input_budget"
                )
            if prefill_lookahead:
                remaining = num_tokens - num_computed - num_new
                if 0 < remaining < prefill_lookahead:
                    num_new = max(num_new - (prefill_lookahead - remaining), 0)
                    if num_new == 0:
                        skipped.append(waiting.pop())
                        continue
            if kv_shrinks_chunk:
                fitting = (kv.num_free_blocks + len(hit_blocks)) * block_size - num_computed
                fitting -= self.num_lookahead_tokens
                if fitting < num_new:
                    num_new = fitting
                    bound = "kv"
                    if num_new <= 0:
                        stop_reason = ("kv", "no free KV blocks left")
                        break
            limit = None
            if explain:
                limit = RequestLimit(
                    "waiting", demand, threshold or None, token_budget,
                    input_budget - draft_slots, None, num_computed, num_new, bound,
                )
                limits[request.request_id] = limit
            allocated = kv.allocate_slots(
                request,
                num_new,
                hit_blocks=hit_blocks,
                num_lookahead_tokens=self.num_lookahead_tokens,
                full_sequence_must_fit=config.scheduler_reserve_full_isl and not kv_shrinks_chunk,
                has_scheduled_reqs=bool(self.running),
            )
            if not allocated:
                if limit is not None:
                    limit.scheduled = 0
                    limit.bound = "kv"
                    limit.kv_blocks_needed = kv.last_blocks_needed
                    limit.kv_free_blocks = kv.num_free_blocks
                    limit.note = (
                        "admission gate: the whole sequence must fit in free KV blocks"
                        if kv.last_failure == "gate"
                        else "step allocation (with lookahead) does not fit in free KV blocks"
                    )
                stop_reason = ("kv", "an earlier request in the queue could not get KV blocks")
                break
            if pad_spec_decode and num_new != 1 + num_spec_tokens:
                raise SchedulerCrash(
                    "vLLM 0.33.0 asserts here (SPEC S20): a padded spec decode was cut by "
                    "the long-prefill threshold"
                )
            waiting.pop()
            self.running.append(request)
            request_id = request.request_id
            if request.status == RequestStatus.WAITING:
                state.new_req_ids.append(request_id)
            else:
                state.resumed_req_ids.append(request_id)
            state.new_num_computed[request_id] = num_computed
            state.num_scheduled_tokens[request_id] = num_new
            token_budget -= num_new
            input_budget -= num_new + draft_slots
            request.status = RequestStatus.RUNNING
            request.num_computed_tokens = num_computed
            if pad_spec_decode:
                state.scheduled_spec_decode_tokens[request_id] = [-1] * num_spec_tokens
        if explain:
            if stop_reason is None and token_budget <= 0:
                stop_reason = ("token_budget", "token_budget spent before its turn")
            if stop_reason is not None:
                bound, note = stop_reason
                for request in waiting:
                    if request.request_id not in limits:
                        limits[request.request_id] = RequestLimit(
                            "waiting", request.num_tokens, threshold or None, token_budget,
                            input_budget - draft_slots, None, 0, 0, bound, note,
                        )
        if skipped:
            waiting.prepend_many(skipped)
        state.token_budget = token_budget
        state.input_budget = input_budget

    def _preempt(self, request: Request) -> None:
        """Send a running request back to waiting: C = 0, blocks freed, outputs kept."""
        self.kv.free(request)
        request.status = RequestStatus.PREEMPTED
        request.num_computed_tokens = 0
        request.spec_token_ids = []
        request.num_stale_output_tokens = request.num_in_flight_tokens
        request.num_output_placeholders = 0
        request.num_preemptions += 1
        self.waiting.prepend(request)

    def _update_after_schedule(self, output: SchedulerOutput) -> None:
        """Advance C by n at dispatch; under async, add placeholders for the coming outputs."""
        partial: set[str] = set()
        requests = self.requests
        for request_id, num_new in output.num_scheduled_tokens.items():
            request = requests[request_id]
            request.num_computed_tokens += num_new
            request.num_in_flight_tokens += num_new
            request.is_prefill_chunk = request.num_computed_tokens < (
                len(request.all_token_ids) + request.num_output_placeholders
            )
            if request.is_prefill_chunk:
                partial.add(request_id)
        output.partial_prefill_req_ids = frozenset(partial)
        self.finished_req_ids = []
        self.preempted_since_last_step = []
        if self.is_async:
            placeholders = [-1] * output.num_spec_tokens_to_schedule
            spec = output.scheduled_spec_decode_tokens
            for request_id in output.num_scheduled_tokens:
                request = requests[request_id]
                if request.is_prefill_chunk:
                    continue
                request.num_output_placeholders += NUM_SAMPLED_TOKENS_PER_STEP + len(
                    spec.get(request_id, ())
                )
                request.spec_token_ids = list(placeholders)

    # ---- output update ------------------------------------------------------------------
    def update_from_output(
        self, output: SchedulerOutput, sampled_token_ids: dict[str, list[int]]
    ) -> UpdateResult:
        """Apply one step's sampled tokens: roll back rejected drafts, append, check stops."""
        result = UpdateResult([], {}, {}, {}, {})
        requests = self.requests
        stopped_running: list[Request] = []
        stopped_waiting: list[Request] = []
        spec = output.scheduled_spec_decode_tokens
        cache_after_output = self.kv.enable_caching
        for request_id, num_new in output.num_scheduled_tokens.items():
            request = requests.get(request_id)
            if request is None:
                continue
            is_stale = False
            request.num_in_flight_tokens -= num_new
            if request.num_stale_output_tokens > 0:
                is_stale = True
                request.num_stale_output_tokens -= num_new
            if request.status in FINISHED_STATUSES:
                continue
            generated = sampled_token_ids.get(request_id)
            if not generated:
                continue
            generated = list(generated)
            drafts = spec.get(request_id)
            if drafts and generated:
                num_accepted = max(len(generated) - NUM_SAMPLED_TOKENS_PER_STEP, 0)
                num_rejected = len(drafts) - num_accepted
                result.accepted[request_id] = num_accepted
                result.rejected[request_id] = num_rejected
                if not is_stale:
                    if request.num_computed_tokens > 0:
                        request.num_computed_tokens -= num_rejected
                    if request.num_output_placeholders > 0:
                        request.num_output_placeholders -= num_rejected
            status_before = request.status
            had_placeholders = request.num_output_placeholders > 0
            stopped = self._append_and_check_stop(request, generated, is_stale, result)
            if (
                cache_after_output
                and not is_stale
                and status_before == RequestStatus.RUNNING
                and (had_placeholders or self.num_spec_tokens > 0)
            ):
                self.kv.cache_blocks(
                    request, request.num_computed_tokens - request.num_in_flight_tokens
                )
            if stopped:
                result.finished_ids.append(request_id)
                result.finish_reasons[request_id] = request.status.finish_reason or ""
                self._free_request(request)
                if status_before == RequestStatus.RUNNING:
                    stopped_running.append(request)
                else:
                    stopped_waiting.append(request)
        if stopped_running:
            doomed = set(map(id, stopped_running))
            self.running = [r for r in self.running if id(r) not in doomed]
        if stopped_waiting:
            self.waiting.remove_many(stopped_waiting)
        return result

    def _append_and_check_stop(
        self, request: Request, generated: list[int], is_stale: bool, result: UpdateResult
    ) -> bool:
        """Append tokens one by one; on a stop, trim the rest and roll C back to match."""
        num_generated = len(generated)
        stopped = False
        max_model_len = self.max_model_len
        tokens = request.all_token_ids
        num_prompt = len(request.prompt_token_ids)
        num_after = len(tokens) + num_generated
        if (
            num_after < max_model_len
            and num_after - num_prompt < request.max_tokens
            and request.eos_token_id not in generated
        ):
            # No token of this batch can stop the request: append them all at once.
            tokens.extend(generated)
            generated = []
        for position, token_id in enumerate(generated, 1):
            tokens.append(token_id)
            status = None
            if token_id == request.eos_token_id:
                status = RequestStatus.FINISHED_STOPPED
            elif len(tokens) >= max_model_len or len(tokens) - num_prompt >= request.max_tokens:
                status = RequestStatus.FINISHED_LENGTH_CAPPED
            if status is not None:
                request.status = status
                stopped = True
                trimmed = num_generated - position
                if trimmed:
                    result.trimmed[request.request_id] = trimmed
                if not is_stale:
                    request.num_computed_tokens -= trimmed
                break
        self.kv.update_block_hashes(request)
        if not is_stale and request.num_output_placeholders > 0:
            request.num_output_placeholders -= num_generated
            if request.num_output_placeholders < 0:
                # vLLM asserts here: the runner returned more tokens than were in flight.
                raise SchedulerCrash(
                    f"{request.request_id}: {num_generated} tokens returned but fewer were "
                    "in flight (vLLM 0.33.0 asserts num_output_placeholders >= 0)"
                )
        return stopped

    def update_draft_token_ids(self, drafts: dict[str, list[int]]) -> None:
        """Store the drafter's proposals (sync mode); prefill chunks get none."""
        requests = self.requests
        for request_id, draft_token_ids in drafts.items():
            request = requests.get(request_id)
            if request is None or request.status in FINISHED_STATUSES:
                continue
            if request.is_prefill_chunk:
                request.spec_token_ids = []
                continue
            request.spec_token_ids = list(draft_token_ids)
