"""Numeric templates: seed -> parameters -> ledger scenario -> trace -> answer.

A numeric question folder holds ``question.yaml`` (declared parameter ranges, the prompt) and a
generator module with three functions, in the spirit of PrairieLearn's ``server.py``:

``build(p: dict) -> Build``
    Turn drawn parameters into a FORMAT.md scenario whose warm-up steps reach the state the
    question is about, name the step it asks about and the trace values that are the answer
    (``Ref``s, which become RFC 6901 JSON Pointers once the trace is known).
``describe(ctx: Context) -> dict``
    Return the values the prompt shows, read from the trace (the state before the step), so
    the text can never disagree with what the ledger replayed. Keys starting with ``_`` are
    for the solution text only and are never shown before grading. Raise ``Redraw`` for a
    draw that makes a degenerate or ambiguous question.
``misconceptions(ctx: Context) -> dict[str, answer]`` (optional)
    Return, per named wrong model, the answer it would give: by replaying a transformed
    scenario (``ctx.replay``) where that is faithful, else by a documented wrong rule applied
    to the trace.

Nothing here sets a counter by hand: every state is reached by replaying steps, so real vLLM
0.33.0 replaying the exported scenario gives the same answer.
"""

from __future__ import annotations

import copy
import importlib.util
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from quizsvc.bank import pointer
from quizsvc.bank.errors import BankError, Redraw
from quizsvc.bank.model import Text

MAX_ATTEMPTS = 64
ANSWER_PHASES = ("before_schedule", "after_schedule", "after_update")


@dataclass(frozen=True)
class Ref:
    """Name one answer value: a path inside step ``step`` of the trace (or the trace root)."""

    step: int | None
    path: tuple[str, ...]


def scheduled(step: int, rid: str) -> Ref:
    """Refer to the tokens scheduled for ``rid`` in ``step`` (0 when it got nothing)."""
    return Ref(step, ("requests", rid, "num_scheduled_tokens"))


def verified(step: int, rid: str) -> Ref:
    """Refer to the number of drafts scheduled for verification for ``rid`` in ``step``."""
    return Ref(step, ("requests", rid, "num_scheduled_spec_tokens"))


def counter(step: int, rid: str, phase: str, name: str) -> Ref:
    """Refer to one counter of ``rid``'s snapshot (``phase``) in ``step``."""
    if phase not in ANSWER_PHASES:
        raise ValueError(f"unknown snapshot phase {phase!r}")
    return Ref(step, ("requests", rid, phase, name))


def step_field(step: int, *path: str) -> Ref:
    """Refer to any other value of ``step`` (e.g. ``"kv_free_blocks"``)."""
    return Ref(step, tuple(path))


def limit(step: int, rid: str, name: str) -> Ref:
    """Refer to the ledger's per-request limit record (``schedule.limits``) in ``step``."""
    return Ref(step, ("schedule", "limits", rid, name))


@dataclass(frozen=True)
class Build:
    """A scenario plus what the question asks about it.

    ``labels`` name the elements of a vector answer (one per ``refs`` entry); a single ref
    with no labels is an integer answer.
    """

    scenario: dict[str, Any]
    step: int
    refs: tuple[Ref, ...]
    labels: tuple[str, ...] = ()

    @property
    def is_vector(self) -> bool:
        """Say whether the answer is a vector (several refs or explicit labels)."""
        return len(self.refs) > 1 or bool(self.labels)


def step_index(trace: Mapping[str, Any], step: int) -> int:
    """Return the position in ``trace["steps"]`` of the step numbered ``step``."""
    for index, entry in enumerate(trace["steps"]):
        if entry["step"] == step:
            return index
    raise KeyError(f"the trace has no step {step}")


def pointers(trace: Mapping[str, Any], refs: tuple[Ref, ...]) -> tuple[str, ...]:
    """Turn refs into JSON Pointers into ``trace``."""
    result = []
    for ref in refs:
        prefix: tuple[str | int, ...] = ()
        if ref.step is not None:
            prefix = ("steps", step_index(trace, ref.step))
        result.append(pointer.build((*prefix, *ref.path)))
    return tuple(result)


def read_answer(trace: Mapping[str, Any], refs: tuple[Ref, ...], vector: bool) -> Any:
    """Read the answer values from ``trace``; refuse anything that is not an integer."""
    return read_pointers(trace, pointers(trace, refs), vector)


def read_pointers(trace: Mapping[str, Any], refs: tuple[str, ...], vector: bool) -> Any:
    """Read integer answer values at JSON Pointers ``refs`` of ``trace``."""
    values = []
    for ref_pointer in refs:
        value = pointer.resolve(trace, ref_pointer)
        if isinstance(value, bool) or not isinstance(value, int):
            raise KeyError(f"{ref_pointer} holds {value!r}, not an integer")
        values.append(value)
    return values if vector else values[0]


class Context:
    """Give a generator read access to one replayed variant: parameters, build, trace."""

    def __init__(
        self,
        params: dict[str, Any],
        build: Build,
        trace: dict[str, Any],
        replay: Callable[..., dict[str, Any]],
    ) -> None:
        self.params = params
        self.build = build
        self.trace = trace
        self._replay = replay
        try:
            self.answer_ref = pointers(trace, build.refs)
        except KeyError as error:  # the asked step never ran: the draw is degenerate
            raise Redraw(str(error)) from None
        self._answer: Any = None
        self.model_traces: dict[str, dict[str, Any]] = {}

    @property
    def p(self) -> dict[str, Any]:
        """Return the drawn parameters (short alias for generators)."""
        return self.params

    def step(self, step: int | None = None) -> dict[str, Any]:
        """Return the trace entry of ``step`` (default: the step the question is about)."""
        target = self.build.step if step is None else step
        try:
            return cast(dict[str, Any], self.trace["steps"][step_index(self.trace, target)])
        except KeyError:
            raise Redraw(f"the replay ended before step {target}") from None

    def request(self, rid: str, step: int | None = None) -> dict[str, Any]:
        """Return ``rid``'s record in ``step``; ``Redraw`` if the request is not alive then."""
        requests = self.step(step)["requests"]
        if rid not in requests:
            raise Redraw(f"request {rid} is not alive in step {step}")
        return cast(dict[str, Any], requests[rid])

    def before(self, rid: str, name: str, step: int | None = None) -> int:
        """Return counter ``name`` of ``rid`` as ``schedule()`` found it in ``step``."""
        return cast(int, self.request(rid, step)["before_schedule"][name])

    def after_schedule(self, rid: str, name: str, step: int | None = None) -> Any:
        """Return counter ``name`` of ``rid`` right after ``schedule()`` in ``step``."""
        return self.request(rid, step)["after_schedule"][name]

    def after_update(self, rid: str, name: str, step: int | None = None) -> Any:
        """Return counter ``name`` of ``rid`` after the output update of ``step``."""
        return self.request(rid, step)["after_update"][name]

    def n(self, rid: str, step: int | None = None) -> int:
        """Return the tokens scheduled for ``rid`` in ``step`` (0 if not alive)."""
        requests = self.step(step)["requests"]
        return requests[rid]["num_scheduled_tokens"] if rid in requests else 0

    def answer(self) -> Any:
        """Return the correct answer of this variant (read once from the trace)."""
        if self._answer is None:
            self._answer = read_pointers(self.trace, self.answer_ref, self.build.is_vector)
        return self._answer

    def replay(
        self,
        scenario: dict[str, Any] | None = None,
        refs: tuple[Ref, ...] | None = None,
        wrong_rules: tuple[str, ...] = (),
        from_step: int | None = None,
        model: str | None = None,
    ) -> Any:
        """Replay a scenario through the ledger core and read the same refs from it.

        Two ways to compute a wrong model's answer: a transformed ``scenario`` where that is
        faithful (e.g. "draft_slots forgotten" is the same scenario with a method whose
        draft_slots is 0), or the ledger's own ``wrong_rules`` applied from ``from_step``
        (default: the asked step, so the warm-up the learner was shown stays real).
        ``model`` names the misconception this replay computes: its trace is kept, so that a
        reveal can show that wrong model's step beside the real one.
        """
        body = self.build.scenario if scenario is None else scenario
        try:
            if wrong_rules:
                start = self.build.step if from_step is None else from_step
                trace = self._replay(body, tuple(wrong_rules), start)
            else:
                trace = self._replay(body)
        except Exception as error:  # a wrong model the ledger cannot run: draw again
            raise Redraw(f"wrong-model replay failed: {type(error).__name__}: {error}") from None
        if model is not None:
            self.model_traces[model] = trace
        return read_answer(trace, refs or self.build.refs, self.build.is_vector)

    def scenario_copy(self) -> dict[str, Any]:
        """Return a deep copy of the scenario, for transforms."""
        return copy.deepcopy(self.build.scenario)


@dataclass(frozen=True)
class Generator:
    """The functions a numeric question folder provides."""

    build: Callable[[dict[str, Any]], Build]
    describe: Callable[[Context], dict[str, Any]]
    misconceptions: Callable[[Context], dict[str, Any]] | None = None


def load_generator(path: Path) -> Generator:
    """Import a generator module from a question folder and check its functions."""
    if not path.is_file():
        raise BankError(str(path), "generator", "file not found")
    name = "quizsvc_bank_generator_" + "_".join(path.parent.parts[-2:]).replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BankError(str(path), "generator", "cannot be imported")
    module: ModuleType = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a broken content file must name itself
        raise BankError(str(path), "generator", f"import failed: {error!r}") from error
    for required in ("build", "describe"):
        if not callable(getattr(module, required, None)):
            raise BankError(str(path), required, "generator must define this function")
    wrong = getattr(module, "misconceptions", None)
    return Generator(module.build, module.describe, wrong if callable(wrong) else None)


def draw_params(rng: random.Random, declared: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Draw every declared parameter once, in name order, from ``rng``."""
    params: dict[str, Any] = {}
    for name in sorted(declared):
        spec = declared[name]
        if "choices" in spec:
            params[name] = rng.choice(spec["choices"])
        else:
            params[name] = rng.randint(spec["min"], spec["max"])
    return params


@dataclass(frozen=True)
class NumericDraw:
    """The outcome of generating one numeric variant."""

    params: dict[str, Any]
    display: dict[str, Any]
    build: Build
    trace: dict[str, Any]
    answer: Any
    answer_ref: tuple[str, ...]
    wrong: dict[str, Any]
    attempts: int
    redraws: tuple[str, ...] = field(default=())
    # The traces of the wrong models the ledger replayed (``Context.replay(model=...)``).
    wrong_traces: dict[str, dict[str, Any]] = field(default_factory=dict)


def generate(
    question_id: str,
    seed: int,
    declared: Mapping[str, Mapping[str, Any]],
    generator: Generator,
    replay: Callable[..., dict[str, Any]],
    source: str,
) -> NumericDraw:
    """Draw parameters for ``(question_id, seed)`` until a draw is usable, and answer it.

    The random stream depends on the question id and the seed only, so the same pair always
    walks the same sequence of draws; a draw is rejected (deterministically) when the
    generator raises ``Redraw`` or when the ledger refuses the scenario or raises (e.g. the
    known 0.33.0 crash configuration, SPEC S20).
    """
    rng = random.Random(f"{question_id}|{seed}")
    redraws: list[str] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        params = draw_params(rng, declared)
        try:
            build = generator.build(dict(params))
        except Redraw as signal:
            redraws.append(f"build: {signal.reason}")
            continue
        try:
            trace = replay(build.scenario)
        except Exception as error:  # the ledger refusing a draw means: draw again
            redraws.append(f"replay: {type(error).__name__}: {error}")
            continue
        try:
            context = Context(params, build, trace, replay)
            display = generator.describe(context)
            answer = context.answer()
            wrong = generator.misconceptions(context) if generator.misconceptions else {}
        except Redraw as signal:
            redraws.append(f"describe: {signal.reason}")
            continue
        except KeyError as error:
            raise BankError(source, "answer_ref", f"seed {seed}: {error}") from error
        return NumericDraw(
            params=params,
            display=display,
            build=build,
            trace=trace,
            answer=answer,
            answer_ref=context.answer_ref,
            wrong={key: value for key, value in wrong.items() if value != answer},
            attempts=attempt,
            redraws=tuple(redraws),
            wrong_traces={key: trace for key, trace in context.model_traces.items()
                          if key in wrong and wrong[key] != answer},
        )
    last = redraws[-1] if redraws else "none"
    raise BankError(
        source, "params", f"seed {seed}: no usable draw in {MAX_ATTEMPTS}; last: {last}"
    )


def request(
    rid: str, prompt_len: int, max_tokens: int = 16, arrival_step: int = 0
) -> dict[str, Any]:
    """Write one FORMAT.md request entry given by its prompt length."""
    return {
        "id": rid,
        "prompt_len": prompt_len,
        "max_tokens": max_tokens,
        "arrival_step": arrival_step,
    }


def ngram_config(num_speculative_tokens: int) -> dict[str, Any]:
    """Return the small n-gram speculative engine the one-request draft questions run on:
    budget 64, 128-token model, 64 blocks of 4 (room enough that only drafts matter)."""
    return {
        "max_num_batched_tokens": 64,
        "max_model_len": 128,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "num_speculative_tokens": num_speculative_tokens,
        "spec_method": "ngram",
    }


def spec_warmup(p: dict[str, Any]) -> tuple[int, dict[int, dict[str, dict[str, Any]]]]:
    """Return (asked step, outcomes) of request R's speculative warm-up.

    Step 0 prefills R and proposes ``num_spec`` drafts; each of ``warmups`` spec steps
    accepts ``accepted_<i>`` of them (folded into range) and proposes ``num_spec`` again,
    except the last, which proposes ``drafts`` (folded into 1..num_spec and written back to
    ``p`` so the prompt shows the value used).
    """
    k = p["num_spec"]
    # Fold the drawn values into range instead of redrawing: cheaper, still deterministic.
    p["drafts"] = 1 + (p["drafts"] - 1) % k
    step = 1 + p["warmups"]
    outcomes: dict[int, dict[str, dict[str, Any]]] = {0: {"R": {"drafts": k}}}
    for i in range(1, step):
        outcomes[i] = {"R": {"accepted": p[f"accepted_{i}"] % (k + 1), "drafts": k}}
    outcomes[step - 1]["R"]["drafts"] = p["drafts"]
    return step, outcomes


def blocks_for(tokens: int, block_size: int) -> int:
    """Return the KV blocks ``tokens`` slots occupy (rounded up)."""
    return -(-tokens // block_size)


def first_kv_shortage(
    prompts: list[int], spare_blocks: int, block_size: int, max_step: int
) -> int | None:
    """Return the first decode step in which some request cannot get its next KV block.

    Requests prefilled ``prompts`` at step 0 (one block per ``block_size`` slots) with
    ``spare_blocks`` left over, then each decodes one token per step in list order. Used to
    place a question's asked step at the first preemption, without setting counters by hand.
    """
    held = [blocks_for(prompt, block_size) for prompt in prompts]
    free = spare_blocks
    for step in range(1, max_step + 1):
        for index, prompt in enumerate(prompts):
            need = blocks_for(prompt + step, block_size) - held[index]
            if need > free:
                return step
            held[index] += need
            free -= need
    return None


def scenario(
    name: str,
    config: dict[str, Any],
    requests: list[dict[str, Any]],
    *,
    description: str = "",
    default_outcome: dict[str, Any] | None = None,
    outcomes: dict[int, dict[str, dict[str, Any]]] | None = None,
    aborts: dict[int, list[str]] | None = None,
    max_steps: int | None = None,
) -> dict[str, Any]:
    """Write a FORMAT.md scenario; ``max_steps`` stops the replay right after the asked step.

    Stopping early keeps variants cheap to generate: nothing after the step a question asks
    about can change its answer.
    """
    body: dict[str, Any] = {"name": name, "description": description, "config": dict(config)}
    # vLLM refuses max_num_batched_tokens < max_num_seqs; keep the default 16 seats unless
    # the budget is smaller, so every exported scenario starts on the real engine.
    body["config"].setdefault(
        "max_num_seqs", min(16, body["config"].get("max_num_batched_tokens", 8192))
    )
    if max_steps is not None:
        body["config"]["max_steps"] = max_steps
    body["requests"] = requests
    if default_outcome is not None:
        body["default_outcome"] = default_outcome
    if outcomes:
        body["outcomes"] = {str(step): value for step, value in sorted(outcomes.items())}
    if aborts:
        body["aborts"] = {str(step): value for step, value in sorted(aborts.items())}
    return body


def ordinal(number: int) -> str:
    """Write an English ordinal (1st, 2nd, 3rd, 4th, 11th...) for "the 2nd token"."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


def running_list(state: list[tuple[str, int, int]], labels: dict[str, str] | None = None) -> Text:
    """Describe a running list for a prompt: each request's C and the blocks it holds.

    ``state`` holds (request id, C, blocks held) in running-list order; ``labels`` adds a
    per-request note (e.g. its priority). The English noun agrees with the block count.
    """
    labels = labels or {}
    zh, en = [], []
    for rid, computed, held in state:
        extra = labels.get(rid, "")
        zh.append(f"{rid}（{extra + '，' if extra else ''}C={computed}，持有 {held} 块）")
        blocks = "block" if held == 1 else "blocks"
        en.append(f"{rid} ({extra + ', ' if extra else ''}C={computed}, {held} {blocks})")
    return Text("、".join(zh), ", ".join(en))
