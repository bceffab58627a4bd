"""Differential-test the ledger against the real vLLM 0.33.0 scheduler on random scenarios.

Run it with the vllm venv's Python (tools/README.md); it imports ``tools/vllm_oracle.py``
and ``quizsvc.ledger`` (standard library only) into one process:

    /opt/vllm-venv/bin/python tools/diff_fuzz.py --count 300 --seed 1 [--out DIR]

Each random FORMAT.md scenario is replayed by both; every scenario whose compared fields
(FORMAT.md) differ is reported, minimised (fewer requests, outcomes, aborts, steps and config
keys while the same kind of disagreement remains) and written to ``--out`` as
``NAME.json`` (minimised), ``NAME.original.json`` and ``NAME.diff.txt``. Differences only in
the strict fields (``compare_traces(strict=True)``) are reported too, as a second class.
When both sides crash (SPEC S20: vLLM's assertion, the ledger's ``SchedulerCrash``) they agree.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The same fixed hash seed as vllm_oracle's own command line, so a disagreement replays alike.
if os.environ.get("PYTHONHASHSEED") != "0" and __name__ == "__main__":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])
sys.path.insert(0, str(Path(__file__).resolve().parent))

import vllm_oracle

from quizsvc.ledger import ScenarioError, SchedulerCrash
from quizsvc.ledger import replay as ledger_replay
from quizsvc.ledger.compare import compare_traces

SPEC_METHODS = ("ngram", "draft_model", "draft_model_parallel", "eagle", "eagle_parallel")
EOS_TOKEN_ID = 2
DRAFT_TOKEN_ID = 7


# ---- random scenarios ---------------------------------------------------------------------
def random_config(rng: random.Random) -> dict[str, Any]:
    """Return a random FORMAT.md config that vLLM 0.33.0 accepts at start-up (mostly)."""
    block_size = rng.choice((2, 4, 4, 8, 16))
    max_model_len = rng.choice((24, 32, 48, 64, 96))
    max_num_seqs = rng.choice((1, 2, 3, 4, 6))
    k = rng.choice((0, 0, 1, 2, 3))
    method = rng.choice(SPEC_METHODS)
    lookahead = k if k and method != "ngram" else 0
    low = max(max_num_seqs, lookahead + 1, 2)
    budget = rng.choice((low, low + 1, rng.randint(low, 12), rng.randint(8, 24),
                         rng.randint(16, 64)))
    budget = max(budget, low)
    config: dict[str, Any] = {
        "max_num_batched_tokens": budget,
        "max_num_seqs": max_num_seqs,
        "max_model_len": max_model_len,
        "block_size": block_size,
        "max_steps": rng.choice((40, 60, 90, 120)),
    }
    # KV pressure: from a handful of blocks (preemption, head-of-line blocking) to ample.
    tight = max(2, max_model_len // block_size + 1)
    config["num_gpu_blocks"] = rng.choice(
        (tight, tight + 1, tight + rng.randint(1, 6), rng.randint(tight, 2 * tight),
         rng.randint(tight, 4 * tight), 1000)
    )
    if rng.random() < 0.5:
        config["long_prefill_token_threshold"] = rng.choice((1, 2, 3, 4, 5, 8))
        if rng.random() < 0.4:
            config["long_prefill_token_threshold_adaptive"] = True
    if rng.random() < 0.5:
        config["enable_prefix_caching"] = True
    if k:
        config["num_speculative_tokens"] = k
        config["spec_method"] = method
    if rng.random() < 0.35:
        config["async_scheduling"] = True
    if rng.random() < 0.25:
        config["policy"] = "priority"
    if rng.random() < 0.15:
        config["watermark"] = rng.choice((0.01, 0.05, 0.1, 0.2))
    if rng.random() < 0.2:
        config["max_num_scheduled_tokens"] = rng.randint(1, budget)
    if rng.random() < 0.1:
        config["scheduler_reserve_full_isl"] = False
    if rng.random() < 0.1:
        config["use_v2_model_runner"] = rng.choice((True, False))
    if rng.random() < 0.05:
        config["log_stats"] = False
    return config


def random_outcome(rng: random.Random, k: int) -> dict[str, Any]:
    """Return one scripted model-runner outcome (FORMAT.md's outcome fields)."""
    outcome: dict[str, Any] = {}
    roll = rng.random()
    if roll < 0.55:
        outcome["accepted"] = rng.choice([*range(k + 1), "all"]) if k else 0
    elif roll < 0.7:
        outcome["sampled"] = rng.randint(1, k + 1)
    elif roll < 0.8:
        pool = [DRAFT_TOKEN_ID, EOS_TOKEN_ID, 300, 301, 302]
        outcome["token_ids"] = [rng.choice(pool) for _ in range(rng.randint(1, k + 1))]
    if rng.random() < 0.12:
        outcome["eos"] = True
    elif rng.random() < 0.06:
        outcome["eos_index"] = rng.randint(0, k)
    if k and rng.random() < 0.6:
        outcome["drafts"] = rng.randint(0, k)
    return outcome


def random_scenario(rng: random.Random, name: str,
                    force: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return one random FORMAT.md scenario covering the scheduler's features.

    ``force`` pins config keys (``None`` removes one), to aim a campaign at one feature.
    """
    config = random_config(rng)
    for key, value in (force or {}).items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    k = config.get("num_speculative_tokens", 0)
    max_model_len = config["max_model_len"]
    prefixes = [[rng.randint(1000, 9000) for _ in range(max_model_len)] for _ in range(2)]
    requests: list[dict[str, Any]] = []
    block_size = config["block_size"]
    for index in range(rng.choice((1, 2, rng.randint(2, 5), rng.randint(3, 8),
                                   rng.randint(4, 8)))):
        length = rng.choice((1, 2, rng.randint(1, 8), rng.randint(1, max_model_len - 1),
                             rng.randint(max_model_len // 4, max_model_len - 1),
                             rng.randint(1, max(1, max_model_len // 2))))
        request: dict[str, Any] = {"id": f"r{index}"}
        if config.get("enable_prefix_caching") and rng.random() < 0.7:
            # Mostly whole shared blocks (+ a token or two), so later arrivals hit the cache.
            shared = rng.choice((rng.randint(0, length),
                                 min(length, block_size * rng.randint(1, 4)),
                                 min(length, block_size * rng.randint(1, 4) + rng.randint(0, 2)),
                                 length))
            tail = [rng.randint(10000, 20000) for _ in range(length - shared)]
            request["prompt_token_ids"] = rng.choice(prefixes)[:shared] + tail
        else:
            request["prompt_len"] = length
        request["max_tokens"] = rng.choice((1, 2, 3, rng.randint(1, 12), rng.randint(4, 40),
                                            rng.randint(10, 60)))
        request["arrival_step"] = rng.choice((0, 0, rng.randint(0, 4), rng.randint(0, 20),
                                              rng.randint(index, 3 * index + 2)))
        if config.get("policy") == "priority":
            request["priority"] = rng.randint(-1, 3)
        if rng.random() < 0.1:
            request["min_tokens"] = rng.randint(1, request["max_tokens"])
        requests.append(request)
    scenario: dict[str, Any] = {"name": name, "config": config, "requests": requests}
    if rng.random() < 0.5:
        scenario["default_outcome"] = random_outcome(rng, k)
    outcomes: dict[str, dict[str, Any]] = {}
    for _ in range(rng.randint(0, 40)):
        step = str(rng.randint(0, 60))
        request_id = rng.choice(requests)["id"]
        outcomes.setdefault(step, {})[request_id] = random_outcome(rng, k)
    scenario["outcomes"] = outcomes
    if rng.random() < 0.25:
        aborts: dict[str, list[str]] = {}
        for _ in range(rng.randint(1, 2)):
            step = str(rng.randint(0, 25))
            request_id = rng.choice(requests)["id"]
            if request_id not in aborts.get(step, []):
                aborts.setdefault(step, []).append(request_id)
        scenario["aborts"] = aborts
    return scenario


# ---- running both sides -------------------------------------------------------------------
@dataclass
class Verdict:
    """Hold how the ledger and the real scheduler compared on one scenario."""

    kind: str  # agree | both_crash | compared | strict | crash_mismatch | rejected | ...
    compared: list[str] = field(default_factory=list)
    strict: list[str] = field(default_factory=list)
    note: str = ""
    events: Counter[str] = field(default_factory=Counter)

    @property
    def disagrees(self) -> bool:
        """Return True when the two sides do not agree on this scenario."""
        return self.kind not in ("agree", "both_crash", "vllm_rejects_config")


def judge(scenario: dict[str, Any]) -> Verdict:
    """Replay ``scenario`` on both sides and classify the outcome."""
    try:
        expected = vllm_oracle.replay(scenario)
    except vllm_oracle.ConfigRejected as error:
        try:
            ledger_replay(scenario)
        except (ScenarioError, SchedulerCrash):
            return Verdict("vllm_rejects_config", note=str(error))
        return Verdict("vllm_rejects_config", note=f"{error} (the ledger accepts it)")
    except ScenarioError as error:
        return Verdict("invalid_scenario", note=str(error))
    try:
        actual = ledger_replay(scenario)
        ledger_crash = ""
    except SchedulerCrash as error:
        actual, ledger_crash = None, str(error)
    except ScenarioError as error:
        return Verdict("ledger_rejects", note=str(error))
    except Exception as error:  # a bug in the ledger: report it, keep fuzzing
        return Verdict("ledger_error", note=f"{type(error).__name__}: {error}")
    crash = expected.get("crash") or {}
    vllm_crash = f"{crash['error']} in {crash['phase']}" if crash else ""
    if vllm_crash and ledger_crash:
        return Verdict("both_crash", note=f"vllm: {vllm_crash}; ledger: {ledger_crash}",
                       events=events(expected))
    verdict = compare_sides(expected, actual, vllm_crash, ledger_crash)
    overfull = expected.get("overfull_outcomes", [])
    if verdict.disagrees and overfull:
        lines = verdict.compared or verdict.strict
        at = first_step(lines) if lines else crash.get("step")
        if (at is None and not lines) or (at is not None and overfull[0]["step"] <= at):
            # The script returned more tokens than 1 + the drafts scheduled before the sides
            # parted: no real runner does that (vLLM's placeholders go negative under async).
            first = overfull[0]
            verdict = Verdict("overfull_outcome", verdict.compared, verdict.strict,
                              note=f"{first['request']} got more tokens than 1 + drafts "
                              f"scheduled at step {first['step']}; {verdict.kind}: "
                              f"{verdict.note}")
    verdict.events = events(expected)
    return verdict


def compare_sides(expected: dict[str, Any], actual: dict[str, Any] | None, vllm_crash: str,
                  ledger_crash: str) -> Verdict:
    """Classify two traces (either side may have crashed) by their first differences."""
    if vllm_crash or ledger_crash:
        side = (f"vllm crashed at step {expected['crash']['step']}: {vllm_crash}"
                if vllm_crash else f"ledger crashed: {ledger_crash}")
        if actual is not None:
            # Compare what both did before vLLM raised; the crashing step itself is partial.
            crash_step = expected["crash"]["step"]
            before = {**expected, "steps": [s for s in expected["steps"]
                                            if s["step"] < crash_step]}
            mine = {**actual, "steps": [s for s in actual["steps"] if s["step"] < crash_step]}
            return Verdict("crash_mismatch", compare_traces(before, mine), note=side)
        return Verdict("crash_mismatch", note=side)
    compared = compare_traces(expected, actual)
    strict = compare_traces(expected, actual, strict=True)
    mine = actual.get("effective_config", {})
    strict += [
        f"effective_config.{key} want {value} got {mine[key]}"
        for key, value in expected["effective_config"].items()
        if key in mine and mine[key] != value
    ]
    if compared:
        return Verdict("compared", compared, strict)
    if strict:
        return Verdict("strict", [], strict)
    return Verdict("agree")


def events(trace: dict[str, Any]) -> Counter[str]:
    """Count what the real scheduler did in a trace, to show how deep the fuzzing went."""
    seen: Counter[str] = Counter()
    for step in trace["steps"]:
        schedule, update = step["schedule"], step["update"]
        seen["steps"] += 1
        if schedule:
            seen["preemptions"] += len(schedule["preempted_ids"])
            seen["resumed"] += sum(
                1 for rid in schedule["new_req_ids"] + schedule["resumed_req_ids"]
                if step["requests"][rid]["before_schedule"]["num_preemptions"] > 0
            )
            seen["prefix_hits"] += sum(
                1 for n in schedule.get("new_req_num_computed_tokens", {}).values() if n > 0
            )
            seen["drafts_verified"] += sum(schedule["scheduled_spec_decode_tokens"].values())
            seen["empty_schedules"] += schedule["total_num_scheduled_tokens"] == 0
            seen["partial_prefills"] += (len(schedule["num_scheduled_tokens"])
                                         - len(schedule["sampling_req_ids"]))
        if update:
            for reason in update["finish_reasons"].values():
                seen[f"finished_{reason}"] += 1
        seen["aborted"] += len(step["aborted"])
    seen["crash"] += "crash" in trace
    return seen


def first_step(lines: list[str]) -> int | None:
    """Return the first step number named in compare_traces' lines."""
    steps = []
    for line in lines:
        if line.startswith("step "):
            steps.append(int(line.split()[1].rstrip(":")))
    return min(steps) if steps else None


def signature(verdict: Verdict) -> tuple[str, frozenset[str]]:
    """Return what kind of disagreement this is, to keep it while minimising."""
    lines = verdict.compared or verdict.strict
    fields = set()
    for line in lines:
        words = line.split()
        if line.startswith("effective_config."):
            fields.add(words[0])
        elif len(words) >= 3 and line.startswith("step "):
            name = words[2]
            # "A.after_update.num_tokens" -> "after_update.num_tokens": one kind per field.
            fields.add(name.split(".", 1)[1] if name.count(".") >= 2 else name)
    return verdict.kind, frozenset(fields)


# ---- minimising ---------------------------------------------------------------------------
def without_request(scenario: dict[str, Any], request_id: str) -> dict[str, Any]:
    """Return the scenario minus one request and every outcome / abort naming it."""
    smaller = copy.deepcopy(scenario)
    smaller["requests"] = [r for r in smaller["requests"] if r["id"] != request_id]
    smaller["outcomes"] = {
        step: {rid: o for rid, o in per.items() if rid != request_id}
        for step, per in smaller.get("outcomes", {}).items()
    }
    smaller["outcomes"] = {s: per for s, per in smaller["outcomes"].items() if per}
    if "aborts" in smaller:
        smaller["aborts"] = {s: [r for r in ids if r != request_id]
                             for s, ids in smaller["aborts"].items()}
        smaller["aborts"] = {s: ids for s, ids in smaller["aborts"].items() if ids}
    return smaller


def candidates(scenario: dict[str, Any], last_step: int | None) -> list[dict[str, Any]]:
    """Return smaller variants of ``scenario`` to try, the most shrinking first."""
    found: list[dict[str, Any]] = []
    config = scenario["config"]
    if last_step is not None and config.get("max_steps", 200) > last_step + 1:
        shorter = copy.deepcopy(scenario)
        shorter["config"]["max_steps"] = last_step + 1
        found.append(shorter)
    if len(scenario["requests"]) > 1:
        found.extend(without_request(scenario, r["id"]) for r in scenario["requests"])
    for step in scenario.get("outcomes", {}):
        smaller = copy.deepcopy(scenario)
        del smaller["outcomes"][step]
        found.append(smaller)
    for step in scenario.get("aborts", {}):
        smaller = copy.deepcopy(scenario)
        del smaller["aborts"][step]
        found.append(smaller)
    if "default_outcome" in scenario:
        smaller = copy.deepcopy(scenario)
        del smaller["default_outcome"]
        found.append(smaller)
    for key in ("watermark", "max_num_scheduled_tokens", "use_v2_model_runner", "log_stats",
                "long_prefill_token_threshold_adaptive", "long_prefill_token_threshold",
                "policy", "async_scheduling", "enable_prefix_caching",
                "scheduler_reserve_full_isl", "num_speculative_tokens"):
        if key in config:
            smaller = copy.deepcopy(scenario)
            del smaller["config"][key]
            if key == "num_speculative_tokens":
                smaller["config"].pop("spec_method", None)
            found.append(smaller)
    if config.get("num_speculative_tokens", 0) > 1:
        smaller = copy.deepcopy(scenario)
        smaller["config"]["num_speculative_tokens"] -= 1
        found.append(smaller)
    for index, request in enumerate(scenario["requests"]):
        for key in ("min_tokens", "priority"):
            if key in request:
                smaller = copy.deepcopy(scenario)
                del smaller["requests"][index][key]
                found.append(smaller)
        if request.get("max_tokens", 16) > 1:
            smaller = copy.deepcopy(scenario)
            smaller["requests"][index]["max_tokens"] = max(1, request.get("max_tokens", 16) // 2)
            found.append(smaller)
        if request.get("arrival_step", 0) > 0:
            smaller = copy.deepcopy(scenario)
            smaller["requests"][index]["arrival_step"] -= 1
            found.append(smaller)
    return found


def minimise(scenario: dict[str, Any], verdict: Verdict, budget: int) -> tuple[dict, Verdict]:
    """Shrink ``scenario`` greedily while it keeps the same kind of disagreement."""
    wanted = signature(verdict)
    best, best_verdict = scenario, verdict
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        lines = best_verdict.compared or best_verdict.strict
        for candidate in candidates(best, first_step(lines)):
            if tries >= budget:
                break
            tries += 1
            result = judge(candidate)
            kind, fields = signature(result)
            if result.disagrees and kind == wanted[0] and fields >= wanted[1]:
                best, best_verdict = candidate, result
                improved = True
                break
    return best, best_verdict


# ---- the command --------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Generate, replay on both sides, minimise and report the disagreements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="random scenarios to try")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="where disagreements are written "
                        "(default /tmp/diff_fuzz-SEED)")
    parser.add_argument("--no-minimise", action="store_true")
    parser.add_argument("--minimise-budget", type=int, default=150,
                        help="replays spent shrinking each disagreement")
    parser.add_argument("--per-kind", type=int, default=2,
                        help="disagreements of one kind to minimise and print; the rest "
                        "are counted and saved unminimised")
    parser.add_argument("--force", action="append", default=[], metavar="KEY=JSON",
                        help="pin a config key in every random scenario, e.g. "
                        "policy='\"priority\"' or num_gpu_blocks=null (repeatable)")
    parser.add_argument("--scenario", type=Path, action="append", default=[],
                        help="judge these scenario files instead of random ones")
    args = parser.parse_args(argv)
    out = args.out or Path(f"/tmp/diff_fuzz-{args.seed}")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    kinds: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    happened: Counter[str] = Counter()
    features: Counter[str] = Counter()
    started = time.monotonic()
    if args.scenario:
        pool = []
        for path in args.scenario:
            raw = json.loads(path.read_text())
            pool.extend(raw if isinstance(raw, list) else [raw])
    else:
        force = dict(parse_force(item) for item in args.force)
        pool = [random_scenario(rng, f"fuzz{args.seed}_{i}", force)
                for i in range(args.count)]
    groups: dict[tuple[str, frozenset[str]], list[str]] = {}
    for scenario in pool:
        features.update(describe(scenario))
        verdict = judge(scenario)
        happened.update(verdict.events)
        kinds[verdict.kind] += 1
        if verdict.kind in ("vllm_rejects_config", "both_crash"):
            reasons[verdict.kind + ": " + verdict.note.split(" [type=")[0][:200]] += 1
        if not verdict.disagrees:
            continue
        name = scenario.get("name", f"scenario{sum(kinds.values())}")
        group = groups.setdefault(signature(verdict), [])
        group.append(name)
        (out / f"{name}.original.json").write_text(json.dumps(scenario, indent=1))
        if len(group) > args.per_kind:
            continue  # the same kind of disagreement is already shown (and minimised)
        small, small_verdict = (scenario, verdict) if args.no_minimise else minimise(
            scenario, verdict, args.minimise_budget
        )
        (out / f"{name}.json").write_text(json.dumps(small, indent=1))
        report = [f"{name}: {verdict.kind} {verdict.note}".rstrip()]
        report += [f"  {line}" for line in (small_verdict.compared or small_verdict.strict)[:12]]
        if small_verdict.note:
            report.append(f"  note (minimised): {small_verdict.note}")
        report.append(f"  minimised scenario: {json.dumps(small, separators=(',', ':'))}")
        (out / f"{name}.diff.txt").write_text("\n".join(report) + "\n")
        print("\n".join(report), flush=True)
    elapsed = time.monotonic() - started
    print(f"\n{len(pool)} scenarios in {elapsed:.0f} s (seed {args.seed}); outcomes: "
          + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))
    for reason, count in sorted(reasons.items()):
        print(f"  {count} x {reason}")
    print("features covered: " + ", ".join(f"{f} {n}" for f, n in sorted(features.items())))
    print("what vLLM did: " + ", ".join(f"{e} {n}" for e, n in sorted(happened.items())))
    if groups:
        print(f"disagreements by kind (scenarios written to {out}):")
        for (kind, fields), names in sorted(groups.items(), key=lambda item: -len(item[1])):
            shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
            print(f"  {len(names):4d} x {kind} [{', '.join(sorted(fields))}]: {shown}")
    else:
        print("no disagreements")
    return 1 if groups else 0


def parse_force(item: str) -> tuple[str, Any]:
    """Parse one ``--force KEY=JSON`` argument."""
    key, _, value = item.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        raise SystemExit(f"--force {item}: the value must be JSON (quote strings)") from None


def describe(scenario: dict[str, Any]) -> set[str]:
    """Return the feature labels a scenario exercises (for the coverage line)."""
    config = scenario["config"]
    labels = set()
    k = config.get("num_speculative_tokens", 0)
    labels.add(f"K={k}")
    if k:
        labels.add(config.get("spec_method", "ngram"))
    for key in ("async_scheduling", "enable_prefix_caching", "long_prefill_token_threshold",
                "long_prefill_token_threshold_adaptive", "watermark",
                "max_num_scheduled_tokens", "use_v2_model_runner"):
        if config.get(key):
            labels.add(key)
    if config.get("policy") == "priority":
        labels.add("priority")
    if config.get("scheduler_reserve_full_isl") is False:
        labels.add("no_reserve_full_isl")
    if scenario.get("aborts"):
        labels.add("aborts")
    if any("prompt_token_ids" in r for r in scenario["requests"]):
        labels.add("shared_prompt_ids")
    if any("min_tokens" in r for r in scenario["requests"]):
        labels.add("min_tokens")
    outcomes = [o for per in scenario.get("outcomes", {}).values() for o in per.values()]
    outcomes.append(scenario.get("default_outcome", {}))
    for key in ("eos", "eos_index", "sampled", "token_ids"):
        if any(key in o for o in outcomes):
            labels.add(key)
    return labels


if __name__ == "__main__":
    sys.exit(main())
