"""Hold a numeric prompt to what it states: every value it names is in it, the rest cannot bind.

A numeric template declares ``states``: the scenario settings its prompt names (``SETTINGS``
keys). For every drawn variant ``quizsvc bank check`` then proves three things:

- the prompt says, in one phrase (``AMPLE``), that every other limit is ample, and it names
  the mode of the run (``MODES``: sync or async, which speculation, if any);
- every stated value is written in the prompt, in both languages (a number as a number, a
  switch in the words the prompts use for it);
- every setting the prompt leaves unsaid cannot change the answer: the scenario is replayed
  with that one setting loosened (a limit raised to a value that cannot bind, a switch set to
  its other value), and then with every unsaid setting loosened at once; each replay must read
  the same answer at the variant's ``answer_ref``.

So a learner who takes "every other limit is ample" at its word computes the bank's answer.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from quizsvc.bank.model import Text, Variant
from quizsvc.bank.numeric import read_pointers
from quizsvc.ledger.config import LedgerConfig

AMPLE = Text("其余限制都足够宽松", "every other limit is ample")
MODES = ("async_scheduling", "num_speculative_tokens", "spec_method")

Scenario = dict[str, Any]
Patterns = dict[str, tuple[str, ...]]  # language -> regular expressions, any of which shows it


def _number(value: Any) -> str:
    """Match ``value`` written as a whole number (not a part of a longer one)."""
    return rf"(?<![\d.]){re.escape(str(value))}(?![\d])"


def _both(*patterns: str) -> Patterns:
    return {"zh": patterns, "en": patterns}


@dataclass(frozen=True)
class Shape:
    """What a scenario's settings come to: its config, its requests, and the sizes bounds use."""

    config: LedgerConfig
    requests: tuple[dict[str, Any], ...]

    @property
    def prompts(self) -> list[int]:
        """Return each request's prompt length."""
        return [len(r["prompt_token_ids"]) if "prompt_token_ids" in r else r["prompt_len"]
                for r in self.requests]

    @property
    def max_tokens(self) -> list[int]:
        """Return each request's max_tokens (FORMAT.md's default 16 where unset)."""
        return [r.get("max_tokens", 16) for r in self.requests]

    @property
    def spare(self) -> int:
        """Return the positions beyond N a request can ask for in one step: drafts, output
        placeholders, the KV lookahead, the sampled token, with room to spare."""
        return 3 * self.config.num_speculative_tokens + 4

    def longest(self) -> int:
        """Return the most positions any request can ever reach (prompt + outputs + spare)."""
        return max(p + m for p, m in zip(self.prompts, self.max_tokens, strict=True)) + self.spare


def shape_of(scenario: Scenario) -> Shape:
    """Resolve a scenario's config (FORMAT.md defaults filled in) and list its requests."""
    return Shape(LedgerConfig.from_dict(scenario.get("config") or {}),
                 tuple(scenario.get("requests") or ()))


def _with_config(scenario: Scenario, key: str, value: Any) -> Scenario:
    changed = copy.deepcopy(scenario)
    changed.setdefault("config", {})[key] = value
    return changed


# ---- loosening: the scenario with one setting made unable to bind (None: nothing to loosen)

def _raise_budget(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Raise max_num_batched_tokens past every token the requests can ever ask for at once."""
    cfg = shape.config
    most = sum(p + m + shape.spare + cfg.draft_slots
               for p, m in zip(shape.prompts, shape.max_tokens, strict=True))
    ample = max(most, cfg.max_num_seqs, cfg.num_lookahead_tokens + 1)
    if cfg.max_num_batched_tokens >= ample:
        return None
    return _with_config(scenario, "max_num_batched_tokens", ample)


def _raise_token_budget(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Unset max_num_scheduled_tokens: token_budget becomes max_num_batched_tokens, its most."""
    if shape.config.max_num_scheduled_tokens is None:
        return None
    return _with_config(scenario, "max_num_scheduled_tokens", None)


def _raise_seats(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Give every request a seat, as far as vLLM allows (max_num_seqs <= the budget)."""
    cfg = shape.config
    ample = min(cfg.max_num_batched_tokens, len(shape.requests))
    if cfg.max_num_seqs >= ample:
        return None
    return _with_config(scenario, "max_num_seqs", ample)


def _raise_model_len(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Raise max_model_len past the longest sequence any request can reach (and its clamp)."""
    ample = shape.longest() + 1
    if shape.config.max_model_len >= ample:
        return None
    return _with_config(scenario, "max_model_len", ample)


def _raise_blocks(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Give the KV cache every block all the requests could hold at once, plus the null block."""
    cfg = shape.config
    reach = min(shape.longest(), cfg.max_model_len)
    ample = 1 + len(shape.requests) * math.ceil(reach / cfg.block_size)
    if cfg.num_gpu_blocks >= ample:
        return None
    return _with_config(scenario, "num_gpu_blocks", ample)


def _threshold_off(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Turn the long-prefill threshold off (0: it cuts nothing)."""
    if shape.config.long_prefill_token_threshold == 0:
        return None
    return _with_config(scenario, "long_prefill_token_threshold", 0)


def _watermark_off(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Keep no KV blocks back at admission."""
    if shape.config.watermark == 0:
        return None
    return _with_config(scenario, "watermark", 0.0)


def _raise_max_tokens(scenario: Scenario, shape: Shape) -> Scenario | None:
    """Raise every request's max_tokens to where max_model_len would stop it first."""
    targets = [max(m, shape.config.max_model_len - p)
               for p, m in zip(shape.prompts, shape.max_tokens, strict=True)]
    if targets == shape.max_tokens:
        return None
    changed = copy.deepcopy(scenario)
    for request, target in zip(changed["requests"], targets, strict=True):
        request["max_tokens"] = target
    return changed


def _flip(key: str, other: Callable[[Any], Any],
          applies: Callable[[Shape], bool] = lambda _: True,
          ) -> Callable[[Scenario, Shape], Scenario | None]:
    def flip(scenario: Scenario, shape: Shape) -> Scenario | None:
        if not applies(shape):
            return None
        return _with_config(scenario, key, other(getattr(shape.config, key)))
    flip.__doc__ = f"Set {key} to its other value."
    return flip


# ---- how each value is written in a prompt

def _written_number(key: str) -> Callable[[Shape], Patterns]:
    return lambda shape: _both(_number(getattr(shape.config, key)))


def _written_token_budget(shape: Shape) -> Patterns:
    return _both(_number(shape.config.token_budget))


def _written_blocks(shape: Shape) -> Patterns:
    blocks = shape.config.num_gpu_blocks  # the prompts may give the usable count instead
    return _both(f"{_number(blocks)}|{_number(blocks - 1)}")


def _written_threshold(shape: Shape) -> Patterns:
    value = shape.config.long_prefill_token_threshold
    if value:
        return _both(_number(value))
    return {"zh": (r"(?:阈值|long_prefill_token_threshold)\s*关闭",),
            "en": (r"(?i)threshold\)? off",)}


def _written_adaptive(shape: Shape) -> Patterns:
    if shape.config.long_prefill_token_threshold_adaptive:
        return _both(r"adaptive\s*=\s*true")
    return {"zh": ("非自适应",), "en": (r"not adaptive",)}


def _written_async(shape: Shape) -> Patterns:
    if shape.config.async_scheduling:
        return {"zh": ("异步",), "en": (r"(?i)\basync",)}
    return {"zh": ("同步",), "en": (r"(?i)\bsync\b",)}


NO_SPECULATION: Patterns = {"zh": ("无投机",), "en": (r"(?i)no speculati(?:on|ve decoding)",)}
METHOD_WORDS = {
    "ngram": r"n-gram",
    "draft_model": r"\bdraft_model\b",
    "draft_model_parallel": r"PARD|parallel draft_model",
    "eagle": r"(?i)\beagle\b",
    "eagle_parallel": r"P-EAGLE|(?i:parallel eagle)",
}


def _written_k(shape: Shape) -> Patterns:
    k = shape.config.num_speculative_tokens
    return _both(rf"\bK\s*=\s*{k}(?![\d])") if k else NO_SPECULATION


def _written_method(shape: Shape) -> Patterns:
    method = shape.config.effective_spec_method
    return _both(METHOD_WORDS[method]) if method else NO_SPECULATION


def _written_policy(shape: Shape) -> Patterns:
    return _both(r"(?i)\bfcfs\b" if shape.config.policy == "fcfs" else r"\bpriority\b")


def _written_prefix_caching(shape: Shape) -> Patterns:
    if shape.config.enable_prefix_caching:
        return {"zh": ("前缀缓存开启",), "en": (r"prefix caching on",)}
    return {"zh": ("前缀缓存关闭",), "en": (r"prefix caching off",)}


def _written_full_isl(shape: Shape) -> Patterns:
    return _both(rf"(?i)scheduler_reserve_full_isl\s*=\s*{shape.config.scheduler_reserve_full_isl}")


def _written_max_tokens(shape: Shape) -> Patterns:
    # Every request's own max_tokens must be there; the check reads each pattern separately.
    return _both(*(_number(m) for m in sorted(set(shape.max_tokens))))


@dataclass(frozen=True)
class Setting:
    """One value of a scenario that can change an answer.

    ``written`` says how a prompt that states it writes it (every pattern of a language must
    match); ``loosen`` returns the scenario with the value made unable to bind (None when it
    already cannot). A mode has no ``loosen``: every prompt must state it.
    """

    key: str
    written: Callable[[Shape], Patterns]
    loosen: Callable[[Scenario, Shape], Scenario | None] | None = None


# In the order the all-at-once loosening applies them: max_tokens before the limits whose
# ample values are measured from it.
SETTINGS: tuple[Setting, ...] = (
    Setting("async_scheduling", _written_async),
    Setting("num_speculative_tokens", _written_k),
    Setting("spec_method", _written_method),
    Setting("max_tokens", _written_max_tokens, _raise_max_tokens),
    Setting("max_model_len", _written_number("max_model_len"), _raise_model_len),
    Setting("max_num_batched_tokens", _written_number("max_num_batched_tokens"), _raise_budget),
    Setting("max_num_scheduled_tokens", _written_token_budget, _raise_token_budget),
    Setting("max_num_seqs", _written_number("max_num_seqs"), _raise_seats),
    Setting("num_gpu_blocks", _written_blocks, _raise_blocks),
    Setting("block_size", _written_number("block_size"),
            _flip("block_size", lambda size: min(2 * size, 4096),
                  lambda shape: shape.config.block_size < 4096)),
    Setting("long_prefill_token_threshold", _written_threshold, _threshold_off),
    Setting("long_prefill_token_threshold_adaptive", _written_adaptive,
            _flip("long_prefill_token_threshold_adaptive", lambda on: not on,
                  lambda shape: shape.config.long_prefill_token_threshold > 0)),
    Setting("watermark", _written_number("watermark"), _watermark_off),
    Setting("policy", _written_policy,
            _flip("policy", lambda policy: "priority" if policy == "fcfs" else "fcfs")),
    Setting("enable_prefix_caching", _written_prefix_caching,
            _flip("enable_prefix_caching", lambda on: not on)),
    Setting("scheduler_reserve_full_isl", _written_full_isl,
            _flip("scheduler_reserve_full_isl", lambda on: not on)),
)
SETTING_KEYS: tuple[str, ...] = tuple(setting.key for setting in SETTINGS)
BY_KEY = {setting.key: setting for setting in SETTINGS}


def text_problems(variant: Variant, states: Iterable[str]) -> list[str]:
    """Return what the drawn prompt fails to say: the phrase, a mode, a stated value."""
    where = f"{variant.question_id} seed {variant.seed}"
    problems = []
    stated = set(states)
    for lang in ("zh", "en"):
        prompt = variant.prompt.get(lang)
        if AMPLE.get(lang).lower() not in prompt.lower():
            problems.append(f"{where}: the prompt ({lang}) does not say {AMPLE.get(lang)!r}")
    unstated_modes = [mode for mode in MODES if mode not in stated]
    if unstated_modes:
        problems.append(f"{where}: the prompt must state {', '.join(unstated_modes)}")
    if variant.scenario is None:
        return problems
    shape = shape_of(variant.scenario)
    for key in sorted(stated):
        for lang, patterns in BY_KEY[key].written(shape).items():
            prompt = variant.prompt.get(lang)
            for pattern in patterns:
                if not re.search(pattern, prompt):
                    problems.append(f"{where}: states {key}, but the prompt ({lang}) does not "
                                    f"write it ({pattern!r})")
    return problems


def unsaid_problems(variant: Variant, states: Iterable[str],
                    replay: Callable[[Scenario], dict[str, Any]]) -> list[str]:
    """Return every unsaid setting whose loosening changes the answer (and the joint one)."""
    if variant.scenario is None:
        return []
    where = f"{variant.question_id} seed {variant.seed}"
    stated = set(states)
    vector = variant.input.type == "vector"
    problems = []
    together = variant.scenario
    for setting in SETTINGS:
        if setting.key in stated or setting.loosen is None:
            continue
        alone = setting.loosen(variant.scenario, shape_of(variant.scenario))
        if alone is not None:
            found = _answer_of(alone, variant, replay, vector)
            if found != variant.answer:
                problems.append(f"{where}: the prompt leaves {setting.key} unsaid, but "
                                f"{_describe(setting.key, alone)} changes the answer "
                                f"{variant.answer!r} -> {found}")
        joint = setting.loosen(together, shape_of(together))
        if joint is not None:
            together = joint
    if together is not variant.scenario and not problems:
        found = _answer_of(together, variant, replay, vector)
        if found != variant.answer:
            problems.append(f"{where}: every unsaid setting loosened at once changes the answer "
                            f"{variant.answer!r} -> {found}")
    return problems


def _answer_of(scenario: Scenario, variant: Variant,
               replay: Callable[[Scenario], dict[str, Any]], vector: bool) -> str | Any:
    """Replay ``scenario`` and read the variant's answer refs (a failure reads as a message)."""
    try:
        return read_pointers(replay(scenario), variant.answer_ref, vector)
    except Exception as error:  # a refused scenario or a vanished value is a changed answer
        return f"no answer ({type(error).__name__}: {error})"


def _describe(key: str, scenario: Scenario) -> str:
    """Say what the loosened scenario set ``key`` to."""
    if key == "max_tokens":
        values = [r.get("max_tokens") for r in scenario.get("requests", [])]
        return f"max_tokens = {values}"
    return f"{key} = {scenario['config'].get(key)!r}"
