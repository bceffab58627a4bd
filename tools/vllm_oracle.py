"""Replay FORMAT.md scenarios on the real vLLM 0.33.0 scheduler (a developer tool, not CI).

Run it with the Python of a separate venv that has vllm 0.33.0 installed (tools/README.md),
never with the project's own venv: the package and the tests never import this file.

    /opt/vllm-venv/bin/python tools/vllm_oracle.py SCENARIO.json [...]      # print trace(s)
    /opt/vllm-venv/bin/python tools/vllm_oracle.py --check-golden DIR        # strict compare
    /opt/vllm-venv/bin/python tools/vllm_oracle.py --time SCENARIO.json      # bench figures

It builds a ``VllmConfig`` around a weightless, hand-written HF model config (written to a
temp dir; no weights, no network), a ``KVCacheConfig`` with one full-attention group, and
drives ``Scheduler`` / ``AsyncScheduler`` through FORMAT.md's engine loop with the same
scripted fake model runner as ``quizsvc.ledger.engine``. The trace it prints has the
FORMAT.md shape, so ``quizsvc.ledger.compare.compare_traces`` can hold it against the
ledger's. ``--time`` times only the scheduler's own calls, like ``bench/ledger_bench.py``.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A fixed hash seed makes set iteration (finished, preempted and aborted ids) repeatable,
# so a fuzz disagreement replays the same way; vLLM reads the rest at import time.
if os.environ.get("PYTHONHASHSEED") != "0" and __name__ == "__main__":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from quizsvc.ledger.config import LedgerConfig  # noqa: E402  (stdlib-only parsing)
from quizsvc.ledger.errors import ScenarioError  # noqa: E402
from quizsvc.ledger.scenario import RequestSpec, Scenario, parse_scenario  # noqa: E402

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import vllm  # noqa: E402
from vllm.config import (  # noqa: E402
    CacheConfig,
    DeviceConfig,
    ModelConfig,
    ParallelConfig,
    SchedulerConfig,
    SpeculativeConfig,
    VllmConfig,
)
from vllm.exceptions import VLLMError  # noqa: E402
from vllm.sampling_params import SamplingParams  # noqa: E402
from vllm.utils.hashing import get_hash_fn_by_name  # noqa: E402
from vllm.v1.core.kv_cache_utils import (  # noqa: E402
    get_request_block_hasher,
    init_none_hash,
    resolve_kv_cache_block_sizes,
)
from vllm.v1.kv_cache_interface import (  # noqa: E402
    FullAttentionSpec,
    KVCacheConfig,
    KVCacheGroupSpec,
)
from vllm.v1.outputs import DraftTokenIds, ModelRunnerOutput  # noqa: E402
from vllm.v1.request import Request, RequestStatus  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402

TRACE_FORMAT = "vllm-sched-oracle/1"
EOS_TOKEN_ID = 2
DRAFT_TOKEN_ID = 7
VOCAB_SIZE = 1_200_000  # above every id FORMAT.md's runner can emit (200000 + 1000*i + c)
LAYER_NAME = "model.layers.0.self_attn.attn"

# FORMAT.md's method name -> (vLLM method, parallel_drafting, draft model directory).
SPEC_METHODS: dict[str, tuple[str, bool, str | None]] = {
    "ngram": ("ngram", False, None),
    "draft_model": ("draft_model", False, "draft"),
    "draft_model_parallel": ("draft_model", True, "draft"),
    "eagle": ("eagle", False, "eagle"),
    "eagle_parallel": ("eagle3", True, "eagle3"),
}
# Weightless HF configs: only what ModelConfig / SpeculativeConfig read.
MODEL_DIRS: dict[str, list[str]] = {
    "target": ["LlamaForCausalLM"],
    "draft": ["LlamaForCausalLM"],
    "eagle": ["LlamaForCausalLM"],  # vLLM wraps it as EagleLlamaForCausalLM
    "eagle3": ["LlamaForCausalLMEagle3"],  # the EAGLE-3 checkpoints' own name
}


class OracleCrash(RuntimeError):
    """Signal that the real scheduler itself raised (e.g. SPEC S20's assertion)."""


class ConfigRejected(ValueError):
    """Signal that vLLM refuses the scenario's configuration or one of its requests.

    The configuration is checked at start-up (``VllmConfig``), a request's sampling
    parameters when the engine takes it in (``SamplingParams``), before any step runs.
    """


@contextmanager
def v2_runner_env(choice: bool | None) -> Iterator[None]:
    """Set ``VLLM_USE_V2_MODEL_RUNNER`` from the scenario while vLLM resolves it.

    ``None`` leaves vLLM's own choice (V2 unless the config needs V1, e.g. parallel drafting).
    """
    previous = os.environ.pop("VLLM_USE_V2_MODEL_RUNNER", None)
    if choice is not None:
        os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "1" if choice else "0"
    try:
        yield
    finally:
        os.environ.pop("VLLM_USE_V2_MODEL_RUNNER", None)
        if previous is not None:
            os.environ["VLLM_USE_V2_MODEL_RUNNER"] = previous


def write_model_dirs(root: Path) -> dict[str, Path]:
    """Write the tiny weightless model config directories vLLM's configs are built from."""
    paths: dict[str, Path] = {}
    for name, architectures in MODEL_DIRS.items():
        path = root / name
        path.mkdir(parents=True, exist_ok=True)
        config = {
            "architectures": architectures,
            "model_type": "llama",
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_attention_heads": 2,
            "num_key_value_heads": 2,
            "num_hidden_layers": 1,
            "vocab_size": VOCAB_SIZE,
            "max_position_embeddings": 1 << 24,
            "torch_dtype": "float32",
            "bos_token_id": 1,
            "eos_token_id": EOS_TOKEN_ID,
        }
        (path / "config.json").write_text(json.dumps(config))
        paths[name] = path
    return paths


_MODEL_DIRS: dict[str, Path] | None = None


def model_dirs() -> dict[str, Path]:
    """Return the model config directories, writing them once per process."""
    global _MODEL_DIRS
    if _MODEL_DIRS is None:
        root = Path(tempfile.mkdtemp(prefix="vllm-oracle-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _MODEL_DIRS = write_model_dirs(root)
    return _MODEL_DIRS


@dataclass
class OracleScheduler:
    """Hold one real vLLM scheduler and what was resolved to build it."""

    scheduler: Any
    vllm_config: VllmConfig
    block_hasher: Any
    effective_config: dict[str, Any]


def build_vllm_config(config: LedgerConfig) -> VllmConfig:
    """Build the ``VllmConfig`` a real engine would resolve for a scenario's config."""
    dirs = model_dirs()
    try:
        model_config = ModelConfig(
            model=str(dirs["target"]),
            tokenizer=str(dirs["target"]),
            skip_tokenizer_init=True,
            max_model_len=config.max_model_len,
            dtype="float32",
            seed=0,
        )
        parallel_config = ParallelConfig()
        scheduler_config = SchedulerConfig(
            max_num_batched_tokens=config.max_num_batched_tokens,
            max_num_scheduled_tokens=config.max_num_scheduled_tokens,
            max_num_seqs=config.max_num_seqs,
            max_model_len=config.max_model_len,
            long_prefill_token_threshold=config.long_prefill_token_threshold,
            long_prefill_token_threshold_adaptive=config.long_prefill_token_threshold_adaptive,
            enable_chunked_prefill=True,
            policy=config.policy,
            scheduler_reserve_full_isl=config.scheduler_reserve_full_isl,
            watermark=config.watermark,
            async_scheduling=config.async_scheduling,
            is_encoder_decoder=False,
        )
        cache_config = CacheConfig(
            block_size=config.block_size,
            enable_prefix_caching=config.enable_prefix_caching,
        )
        speculative_config = None
        if config.num_speculative_tokens > 0:
            method, parallel, draft = SPEC_METHODS[config.spec_method]
            arguments: dict[str, Any] = {
                "method": method,
                "num_speculative_tokens": config.num_speculative_tokens,
                "target_model_config": model_config,
                "target_parallel_config": parallel_config,
            }
            if draft is not None:
                arguments["model"] = str(dirs[draft])
            if parallel:
                arguments["parallel_drafting"] = True
            speculative_config = SpeculativeConfig(**arguments)
        vllm_config = VllmConfig(
            device_config=DeviceConfig(device="cpu"),
            model_config=model_config,
            parallel_config=parallel_config,
            scheduler_config=scheduler_config,
            cache_config=cache_config,
            speculative_config=speculative_config,
        )
    except (ValueError, TypeError, NotImplementedError) as error:
        message = " ".join(str(error).split())
        raise ConfigRejected(f"{type(error).__name__}: {message}") from error
    vllm_config.cache_config.num_gpu_blocks = config.num_gpu_blocks
    return vllm_config


def build_scheduler(config: LedgerConfig) -> OracleScheduler:
    """Build the real ``Scheduler`` / ``AsyncScheduler`` for a scenario, as EngineCore does."""
    with v2_runner_env(config.use_v2_model_runner):
        return _build_scheduler(config)


def _build_scheduler(config: LedgerConfig) -> OracleScheduler:
    vllm_config = build_vllm_config(config)
    spec_config = vllm_config.speculative_config
    group = KVCacheGroupSpec(
        layer_names=[LAYER_NAME],
        kv_cache_spec=FullAttentionSpec(
            block_size=vllm_config.cache_config.block_size,
            num_kv_heads=1,
            head_size=16,
            dtype=torch.float32,
        ),
        is_eagle_group=bool(spec_config is not None and spec_config.use_eagle_block_drop()),
    )
    kv_cache_config = KVCacheConfig(
        num_blocks=config.num_gpu_blocks, kv_cache_tensors=[], kv_cache_groups=[group]
    )
    block_size, hash_block_size = resolve_kv_cache_block_sizes(kv_cache_config, vllm_config)
    scheduler = vllm_config.scheduler_config.get_scheduler_cls()(
        vllm_config=vllm_config,
        kv_cache_config=kv_cache_config,
        structured_output_manager=StructuredOutputManager(vllm_config),
        block_size=block_size,
        hash_block_size=hash_block_size,
        include_finished_set=False,
        log_stats=config.log_stats,
    )
    block_hasher = None
    if vllm_config.cache_config.enable_prefix_caching:
        hash_fn = get_hash_fn_by_name(vllm_config.cache_config.prefix_caching_hash_algo)
        init_none_hash(hash_fn)
        block_hasher = get_request_block_hasher(
            hash_block_size, hash_fn, vllm_config.num_hash_lookahead_tokens
        )
    scheduler_config = vllm_config.scheduler_config
    effective = {
        "vllm_version": vllm.__version__,
        "scheduler_class": type(scheduler).__name__,
        "max_num_batched_tokens": scheduler_config.max_num_batched_tokens,
        "max_num_scheduled_tokens": scheduler.max_num_scheduled_tokens,
        "max_num_seqs": scheduler_config.max_num_seqs,
        "max_model_len": scheduler.max_model_len,
        "long_prefill_token_threshold": scheduler_config.long_prefill_token_threshold,
        "long_prefill_token_threshold_adaptive":
            scheduler_config.long_prefill_token_threshold_adaptive,
        "enable_chunked_prefill": scheduler_config.enable_chunked_prefill,
        "async_scheduling": bool(scheduler_config.async_scheduling),
        "policy": scheduler_config.policy,
        "scheduler_reserve_full_isl": scheduler_config.scheduler_reserve_full_isl,
        "watermark": scheduler_config.watermark,
        "block_size": block_size,
        "hash_block_size": hash_block_size,
        "num_gpu_blocks": kv_cache_config.num_blocks,
        "num_free_blocks_at_start": scheduler.kv_cache_manager.block_pool.get_num_free_blocks(),
        "enable_prefix_caching": vllm_config.cache_config.enable_prefix_caching,
        "num_speculative_tokens": vllm_config.num_speculative_tokens,
        "spec_method": config.spec_method if spec_config is not None else None,
        "vllm_spec_method": spec_config.method if spec_config is not None else None,
        "parallel_drafting": bool(spec_config is not None and spec_config.parallel_drafting),
        "draft_architectures": (
            list(spec_config.draft_model_config.architectures)
            if spec_config is not None and spec_config.method != "ngram" else None
        ),
        "draft_slots": (
            spec_config.max_num_new_slots_for_drafting if spec_config is not None else 0
        ),
        "num_lookahead_tokens": vllm_config.num_lookahead_tokens,
        "num_prefill_lookahead_tokens": vllm_config.num_prefill_lookahead_tokens,
        "num_hash_lookahead_tokens": vllm_config.num_hash_lookahead_tokens,
        "use_eagle_block_drop": scheduler.use_eagle_block_drop,
        "max_concurrent_batches": vllm_config.max_concurrent_batches,
        "use_v2_model_runner": vllm_config.use_v2_model_runner,
    }
    return OracleScheduler(scheduler, vllm_config, block_hasher, effective)


def sampling_params(spec: RequestSpec) -> SamplingParams:
    """Return a request's ``SamplingParams`` as the engine's input processor makes them."""
    try:
        params = SamplingParams(max_tokens=spec.max_tokens, min_tokens=spec.min_tokens)
    except (ValueError, VLLMError) as error:  # the engine rejects the request
        raise ConfigRejected(f"requests[{spec.index}]: {error}") from error
    params.update_from_generation_config({}, eos_token_id=EOS_TOKEN_ID)
    return params


def snapshot(request: Request) -> dict[str, Any]:
    """Return a FORMAT.md per-request snapshot of a real vLLM ``Request``."""
    return {
        "status": request.status.name,
        "num_tokens": request.num_tokens,
        "num_tokens_with_spec": request.num_tokens_with_spec,
        "num_computed_tokens": request.num_computed_tokens,
        "num_output_tokens": request.num_output_tokens,
        "num_spec_token_ids": len(request.spec_token_ids),
        "num_output_placeholders": request.num_output_placeholders,
        "num_preemptions": request.num_preemptions,
    }


@dataclass
class Batch:
    """Hold one scheduled step and the fake runner's answer to it."""

    sched_step: int
    output: Any
    sampled: dict[str, list[int]]
    returned: dict[str, dict[str, Any]]
    partial: frozenset[str]


@dataclass
class FakeModelRunner:
    """Turn a scenario's scripted outcomes into sampled token ids (FORMAT.md step 5)."""

    scenario: Scenario
    index_of: dict[str, int] = field(default_factory=dict)
    num_sampled: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index_of = {spec.request_id: spec.index for spec in self.scenario.requests}

    def execute(self, sched_step: int, output: Any, partial: frozenset[str]) -> Batch:
        """Return the batch: tokens per scheduled request, judged right after ``schedule()``."""
        sampled: dict[str, list[int]] = {}
        returned: dict[str, dict[str, Any]] = {}
        spec = output.scheduled_spec_decode_tokens
        for request_id in output.num_scheduled_tokens:
            if request_id in partial:
                sampled[request_id] = []
                returned[request_id] = {"sampled": 0, "accepted": 0, "partial_prefill": True}
                continue
            outcome = self.scenario.outcome(sched_step, request_id)
            num_drafts = len(spec.get(request_id, ()))
            tokens = self.tokens(request_id, outcome, num_drafts)
            sampled[request_id] = tokens
            returned[request_id] = {
                "sampled": len(tokens),
                "accepted": min(max(len(tokens) - 1, 0), num_drafts),
                "partial_prefill": False,
            }
        return Batch(sched_step, output, sampled, returned, partial)

    def tokens(self, request_id: str, outcome: dict[str, Any], num_drafts: int) -> list[int]:
        """Return the token ids one request gets back for one step."""
        if "token_ids" in outcome:
            tokens = list(outcome["token_ids"])
        else:
            if "sampled" in outcome:
                count = outcome["sampled"]
            else:
                accepted = outcome.get("accepted", 0)
                accepted = num_drafts if accepted == "all" else min(accepted, num_drafts)
                count = 1 + accepted
            from_drafts = min(max(count - 1, 0), num_drafts)
            tokens = [DRAFT_TOKEN_ID] * from_drafts
            index = self.index_of[request_id]
            for _ in range(count - from_drafts):
                c = self.num_sampled.get(request_id, 0)
                self.num_sampled[request_id] = c + 1
                tokens.append(200000 + 1000 * index + (c % 1000))
        if tokens and outcome.get("eos"):
            tokens[-1] = EOS_TOKEN_ID
        eos_index = outcome.get("eos_index")
        if eos_index is not None and eos_index < len(tokens):
            tokens[eos_index] = EOS_TOKEN_ID
        return tokens

    def drafts(self, batch: Batch, num_spec_tokens: int, method: str) -> dict[str, int]:
        """Return how many drafts each request scheduled in ``batch`` proposes (sync only)."""
        proposed: dict[str, int] = {}
        for request_id in batch.output.num_scheduled_tokens:
            if request_id in batch.partial:
                proposed[request_id] = 0
            elif method == "ngram":
                wanted = self.scenario.outcome(batch.sched_step, request_id).get(
                    "drafts", num_spec_tokens
                )
                proposed[request_id] = min(wanted, num_spec_tokens)
            else:
                proposed[request_id] = num_spec_tokens
        return proposed


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


@dataclass
class CallTimer:
    """Accumulate the time spent inside the scheduler's own calls (``--time``).

    ``clock`` is ``time.perf_counter`` like bench/ledger_bench.py, or ``time.thread_time``
    (``--clock cpu``), which other processes on a busy two-core machine cannot inflate.
    """

    clock: Any = time.perf_counter
    seconds: float = 0.0
    steps: int = 0
    scheduled: int = 0


class OracleEngine:
    """Drive a real vLLM scheduler through FORMAT.md's engine loop, recording the trace."""

    def __init__(self, scenario: Scenario, tracing: bool = True) -> None:
        self.scenario = scenario
        self.config = scenario.config
        self.tracing = tracing
        built = build_scheduler(scenario.config)
        self.scheduler = built.scheduler
        self.vllm_config = built.vllm_config
        self.block_hasher = built.block_hasher
        self.effective_config = built.effective_config
        self.queue_size = built.effective_config["max_concurrent_batches"]
        self.runner = FakeModelRunner(scenario)
        self.sampling_params = {spec.request_id: sampling_params(spec) for spec in
                                scenario.requests}
        self.pending = sorted(scenario.requests, key=lambda s: (s.arrival_step, s.index))
        self.by_id: dict[str, Request] = {}
        self.finished_step: dict[str, int] = {}
        self.batch_queue: deque[Batch] = deque()
        self.sched_step = 0
        self.steps: list[dict[str, Any]] = []
        self.crash: dict[str, Any] | None = None
        # Outcomes that returned more tokens than 1 + the drafts scheduled (no real runner
        # can): vLLM's arithmetic then runs outside its design, so flag them in the trace.
        self.overfull: list[dict[str, Any]] = []
        self.timer: CallTimer | None = None

    # ---- the loop -------------------------------------------------------------------------
    def run(self) -> OracleEngine:
        """Step until nothing is left or ``max_steps`` is reached; stop early on a crash."""
        for step in range(self.config.max_steps):
            try:
                if not self.step(step):
                    break
            except OracleCrash:
                break
        return self

    def step(self, step: int) -> bool:
        """Run one engine-loop iteration; return False once the scenario has ended."""
        scheduler = self.scheduler
        arrivals = self.add_arrivals(step)
        alive = list(scheduler.requests.values())
        abort_ids = list(self.scenario.aborts.get(step, ()))
        aborted: list[str] = []
        if abort_ids:
            finished = scheduler.finish_requests(abort_ids, RequestStatus.FINISHED_ABORTED)
            finished_ids = {request.request_id for request in finished}
            aborted = [rid for rid in dict.fromkeys(abort_ids) if rid in finished_ids]
            for request_id in aborted:
                self.finished_step[request_id] = step
        if not self.pending and not self.batch_queue and not scheduler.has_requests():
            return False
        record: dict[str, Any] | None = None
        if self.tracing:
            record = {
                "step": step,
                "arrivals": arrivals,
                "aborted": aborted,
                "schedule": None,
                "update": None,
                "requests": {request.request_id: {} for request in alive},
            }
        try:
            if self.config.async_scheduling:
                self.step_async(step, record)
            else:
                self.step_sync(step, record)
        finally:
            if record is not None:
                for request in alive:
                    entry = record["requests"][request.request_id]
                    entry.setdefault("num_scheduled_tokens", 0)
                    entry.setdefault("num_scheduled_spec_tokens", 0)
                    entry["after_update"] = snapshot(request)
                record["running"] = [r.request_id for r in scheduler.running]
                record["waiting"] = [r.request_id for r in scheduler.kv_holding_waiting] + [
                    r.request_id for r in scheduler.waiting
                ]
                record["kv_free_blocks"] = (
                    scheduler.kv_cache_manager.block_pool.get_num_free_blocks()
                )
                self.steps.append(record)
        return True

    def add_arrivals(self, step: int) -> list[str]:
        """Add every request whose arrival step has come, in (arrival_step, index) order."""
        arrivals: list[str] = []
        while self.pending and self.pending[0].arrival_step <= step:
            spec = self.pending.pop(0)
            request = Request(
                request_id=spec.request_id,
                prompt_token_ids=list(spec.prompt_token_ids),
                sampling_params=self.sampling_params[spec.request_id],
                pooling_params=None,
                arrival_time=spec.arrival_time,
                priority=spec.priority,
                block_hasher=self.block_hasher,
            )
            self.by_id[spec.request_id] = request
            self.scheduler.add_request(request)
            arrivals.append(spec.request_id)
        return arrivals

    def schedule(self, step: int, record: dict[str, Any] | None) -> Batch:
        """Call ``schedule()``, run the fake runner on it and record both."""
        scheduler = self.scheduler
        live = list(scheduler.requests.values()) if record is not None else []
        if record is not None:
            for request in live:
                record["requests"].setdefault(request.request_id, {})["before_schedule"] = (
                    snapshot(request)
                )
        try:
            if self.timer is None:
                output = scheduler.schedule()
            else:
                start = self.timer.clock()
                output = scheduler.schedule()
                self.timer.seconds += self.timer.clock() - start
                self.timer.steps += 1
                self.timer.scheduled += len(output.num_scheduled_tokens)
        except Exception as error:  # the real scheduler's own assertion (SPEC S20)
            self.crash = {
                "step": step,
                "sched_step": self.sched_step,
                "phase": "schedule",
                "error": f"{type(error).__name__}: {error}",
            }
            raise OracleCrash(self.crash["error"]) from error
        partial = frozenset(
            request_id for request_id in output.num_scheduled_tokens
            if scheduler.requests[request_id].is_prefill_chunk
        )
        batch = self.runner.execute(self.sched_step, output, partial)
        self.sched_step += 1
        if record is not None:
            spec = output.scheduled_spec_decode_tokens
            for request in live:
                entry = record["requests"][request.request_id]
                entry["after_schedule"] = snapshot(request)
                entry["num_scheduled_tokens"] = output.num_scheduled_tokens.get(
                    request.request_id, 0
                )
                entry["num_scheduled_spec_tokens"] = len(spec.get(request.request_id, ()))
            record["schedule"] = schedule_record(batch)
        return batch

    def apply(self, step: int, batch: Batch, record: dict[str, Any] | None) -> None:
        """Feed one batch's tokens to ``update_from_output`` and record what finished."""
        output = batch.output
        request_ids = list(output.num_scheduled_tokens)
        spec = output.scheduled_spec_decode_tokens
        # vLLM trims these lists in place at a stop, so judge "overfull" beforehand.
        overfull = [rid for rid in request_ids
                    if len(batch.sampled[rid]) > 1 + len(spec.get(rid, ()))]
        self.overfull.extend({"step": step, "sched_step": batch.sched_step, "request": rid}
                             for rid in overfull)
        runner_output = ModelRunnerOutput(
            req_ids=request_ids,
            req_id_to_index={rid: index for index, rid in enumerate(request_ids)},
            sampled_token_ids=[list(batch.sampled[rid]) for rid in request_ids],
        )
        try:
            if self.timer is None:
                engine_outputs = self.scheduler.update_from_output(output, runner_output)
            else:
                start = self.timer.clock()
                engine_outputs = self.scheduler.update_from_output(output, runner_output)
                self.timer.seconds += self.timer.clock() - start
        except Exception as error:  # e.g. more tokens returned than drafts were scheduled
            self.crash = {
                "step": step,
                "sched_step": batch.sched_step,
                "phase": "update_from_output",
                "error": f"{type(error).__name__}: {error}",
                "overfull": overfull,
            }
            raise OracleCrash(self.crash["error"]) from error
        reasons: dict[str, str] = {}
        for outputs in engine_outputs.values():
            for item in outputs.outputs:
                if item.finish_reason is not None:
                    reasons[item.request_id] = str(item.finish_reason)
        for request_id in reasons:
            self.finished_step.setdefault(request_id, step)
        if record is not None:
            record["update"] = {
                "sched_step": batch.sched_step,
                "returned": batch.returned,
                "finished_ids": sorted(reasons),
                "finish_reasons": {rid: reasons[rid] for rid in sorted(reasons)},
            }

    def step_sync(self, step: int, record: dict[str, Any] | None) -> None:
        """Run ``EngineCore.step`` then ``post_step``: schedule, execute, update, drafts."""
        if not self.scheduler.has_requests():
            return
        batch = self.schedule(step, record)
        self.apply(step, batch, record)
        num_spec = self.config.num_speculative_tokens
        if num_spec > 0 and batch.output.total_num_scheduled_tokens > 0:
            proposed = self.runner.drafts(batch, num_spec, self.config.spec_method)
            drafts = DraftTokenIds(
                req_ids=list(proposed),
                draft_token_ids=[[DRAFT_TOKEN_ID] * count for count in proposed.values()],
            )
            if self.timer is None:
                self.scheduler.update_draft_token_ids(drafts)
            else:
                start = self.timer.clock()
                self.scheduler.update_draft_token_ids(drafts)
                self.timer.seconds += self.timer.clock() - start
            if record is not None:
                for request_id, count in proposed.items():
                    if request_id in record["requests"]:
                        record["requests"][request_id]["drafts_proposed"] = count

    def step_async(self, step: int, record: dict[str, Any] | None) -> None:
        """Run ``EngineCore.step_with_batch_queue`` with FORMAT.md's queue of two."""
        queue = self.batch_queue
        if self.scheduler.has_requests():
            batch = self.schedule(step, record)
            queue.appendleft(batch)
            model_executed = batch.output.total_num_scheduled_tokens > 0
            if len(queue) < self.queue_size and (
                model_executed or self.scheduler.has_requests()
            ):
                return
        elif not queue:
            return
        self.apply(step, queue.pop(), record)

    # ---- results --------------------------------------------------------------------------
    def final(self) -> dict[str, dict[str, Any]]:
        """Return each request's end state, as the trace's ``final`` object."""
        final: dict[str, dict[str, Any]] = {}
        for spec in self.scenario.requests:
            request = self.by_id.get(spec.request_id)
            if request is None:
                final[spec.request_id] = {
                    "status": "NOT_ARRIVED", "num_prompt_tokens": len(spec.prompt_token_ids),
                    "num_output_tokens": 0, "num_preemptions": 0, "finished_step": None,
                }
                continue
            final[spec.request_id] = {
                "status": request.status.name,
                "num_prompt_tokens": request.num_prompt_tokens,
                "num_output_tokens": request.num_output_tokens,
                "num_preemptions": request.num_preemptions,
                "finished_step": self.finished_step.get(spec.request_id),
            }
        return final

    def trace(self) -> dict[str, Any]:
        """Return the FORMAT.md trace (with ``crash`` when vLLM itself raised)."""
        trace: dict[str, Any] = {
            "format": TRACE_FORMAT,
            "scenario": self.scenario.name,
            "effective_config": self.effective_config,
            "steps": self.steps,
            "final": self.final(),
        }
        if self.crash is not None:
            trace["crash"] = self.crash
        if self.overfull:
            trace["overfull_outcomes"] = self.overfull
        return trace


def schedule_record(batch: Batch) -> dict[str, Any]:
    """Return the trace's ``schedule`` object for one real ``SchedulerOutput``."""
    output = batch.output
    cached = output.scheduled_cached_reqs
    return {
        "sched_step": batch.sched_step,
        "total_num_scheduled_tokens": output.total_num_scheduled_tokens,
        "num_scheduled_tokens": dict(output.num_scheduled_tokens),
        "scheduled_spec_decode_tokens": {
            rid: len(drafts) for rid, drafts in output.scheduled_spec_decode_tokens.items()
        },
        "new_req_ids": [new.req_id for new in output.scheduled_new_reqs],
        "new_req_num_computed_tokens": {
            new.req_id: new.num_computed_tokens for new in output.scheduled_new_reqs
        },
        "resumed_req_ids": [rid for rid in cached.req_ids if rid in cached.resumed_req_ids],
        "preempted_ids": sorted(output.preempted_req_ids or ()),
        "finished_ids_notified": sorted(output.finished_req_ids),
        "sampling_req_ids": [
            rid for rid in output.num_scheduled_tokens if rid not in batch.partial
        ],
    }


def replay(raw: dict[str, Any] | Scenario) -> dict[str, Any]:
    """Replay one FORMAT.md scenario on the real scheduler and return its trace."""
    scenario = raw if isinstance(raw, Scenario) else parse_scenario(raw)
    return OracleEngine(scenario).run().trace()


def measure(raw: dict[str, Any], clock: str = "wall") -> dict[str, Any]:
    """Replay ``raw`` with tracing off and time only the scheduler's own calls."""
    engine = OracleEngine(parse_scenario(raw), tracing=False)
    timer = CallTimer(clock=CLOCKS[clock])
    engine.timer = timer
    engine.run()
    seconds = timer.seconds
    return {
        "scenario": raw.get("name", "scenario"),
        "implementation": f"vllm {vllm.__version__} {engine.effective_config['scheduler_class']}",
        "steps": timer.steps,
        "seconds": round(seconds, 4),
        "steps_per_s": round(timer.steps / seconds, 1) if seconds else None,
        "us_per_scheduled_request": round(1e6 * seconds / timer.scheduled, 2)
        if timer.scheduled else None,
        "scheduled_requests": timer.scheduled,
        "clock": clock,
        "crashed": engine.crash is not None,
    }


def check_golden(directory: Path) -> int:
    """Replay every golden scenario and compare strictly; print one line each; return status."""
    from quizsvc.ledger.compare import compare_traces

    pairs: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for path in sorted(directory.glob("*.json")):
        if path.name.endswith(".trace.json"):
            continue
        raw = json.loads(path.read_text())
        golden = json.loads(path.with_name(path.stem + ".trace.json").read_text())
        if isinstance(raw, list):
            pairs.extend(
                (f"{path.stem}[{i}]", item, golden[i]) for i, item in enumerate(raw)
            )
        else:
            pairs.append((path.stem, raw, golden))
    failures = 0
    for name, raw, golden in pairs:
        trace = replay(raw)
        compared = compare_traces(golden, trace)
        strict = compare_traces(golden, trace, strict=True)
        config_diff = {
            key: (value, trace["effective_config"].get(key))
            for key, value in golden.get("effective_config", {}).items()
            if trace["effective_config"].get(key) != value
        }
        ok = not compared and not strict and not config_diff
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: compared {len(compared)}, strict "
              f"{len(strict)}, effective_config {len(config_diff)}")
        extra = [f"effective_config {config_diff}"] if config_diff else []
        for line in [*strict, *extra][:8]:
            print(f"     {line}")
    print(f"{len(pairs) - failures} agree, {failures} differ (of {len(pairs)})")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    """Replay, time or golden-check scenarios on the real vLLM scheduler."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", type=Path, help="scenario files (- for stdin)")
    parser.add_argument("--time", action="store_true", help="time the scheduler's own calls")
    parser.add_argument("--repeat", type=int, default=3, help="--time runs; fastest reported")
    parser.add_argument("--json", action="store_true", help="--time: one JSON object a line")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="--time: wall (perf_counter, as bench/ledger_bench.py) or cpu "
                             "(this thread's CPU time, steadier on a busy machine)")
    parser.add_argument("--check-golden", type=Path, metavar="DIR",
                        help="replay DIR's scenarios and compare with their recorded traces")
    args = parser.parse_args(argv)
    if args.check_golden:
        return check_golden(args.check_golden)
    if not args.scenarios:
        args.scenarios = [Path("-")]
    try:
        return run_files(args)
    except (ScenarioError, ConfigRejected) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def run_files(args: argparse.Namespace) -> int:
    """Replay or time every scenario (or array of scenarios) in ``args.scenarios``."""
    for path in args.scenarios:
        text = sys.stdin.read() if str(path) == "-" else path.read_text()
        raw = json.loads(text)
        if args.time:
            items = raw if isinstance(raw, list) else [raw]
            for item in items:
                runs = [measure(item, args.clock) for _ in range(max(args.repeat, 1))]
                best = min(runs, key=lambda r: r["seconds"])
                if args.json:
                    print(json.dumps(best), flush=True)
                else:
                    for key, value in best.items():
                        print(f"{key:>26}: {value}")
            continue
        result: Any = [replay(item) for item in raw] if isinstance(raw, list) else replay(raw)
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
