"""Admission stops once len(running) reaches max_num_seqs, budget or not.

SPEC S5; golden ``e_max_num_seqs``.

Warm-up: step 0 prefills the running requests; step 1 (asked) has them decoding while the
waiting requests arrive.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.model import Text
from quizsvc.bank.numeric import Build, request, scenario, scheduled

STEP = 1


def build(p):
    """Fill ``running`` seats at step 0, bring ``waiting`` prompts at step 1."""
    # Fold the draws into shape: at least one free seat, and more arrivals than free seats.
    p["running"] = 1 + (p["running"] - 1) % (p["seats"] - 1)
    free = p["seats"] - p["running"]
    p["waiting"] = min(3, free + 1 + (p["waiting"] - 1) % 2)
    if p["waiting"] <= free:
        raise Redraw("the seats must run out")
    running = [f"R{i + 1}" for i in range(p["running"])]
    waiting = [f"W{i + 1}" for i in range(p["waiting"])]
    config = {
        "max_num_batched_tokens": p["budget"],
        "max_num_seqs": p["seats"],
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
    }
    requests = [request(rid, p["prompt_r"], max_tokens=6) for rid in running]
    requests += [
        request(rid, p[f"prompt_w{i + 1}"], max_tokens=4, arrival_step=STEP)
        for i, rid in enumerate(waiting)
    ]
    body = scenario("max-num-seqs", config, requests, max_steps=STEP + 1)
    names = (*running, *waiting)
    return Build(body, STEP, tuple(scheduled(STEP, rid) for rid in names), labels=names)


def describe(ctx):
    """Show the seats, the running decodes and the waiting prompts."""
    names = ctx.build.labels
    running = [rid for rid in names if rid.startswith("R")]
    waiting = [rid for rid in names if rid.startswith("W")]
    return {
        "budget": ctx.p["budget"],
        "seats": ctx.p["seats"],
        "running": len(running),  # folded count, not the raw draw
        "running_names": ", ".join(running),
        "waiting_list": Text(
            "、".join(f"{rid}（prompt {ctx.before(rid, 'num_tokens')}）" for rid in waiting),
            ", ".join(f"{rid} (prompt {ctx.before(rid, 'num_tokens')})" for rid in waiting),
        ),
        "order": ", ".join(names),
    }


def misconceptions(ctx):
    """Replay with plenty of seats (waiting-first is left out: the budget is ample here)."""
    unlimited = ctx.scenario_copy()
    unlimited["config"]["max_num_seqs"] = unlimited["config"]["max_num_batched_tokens"]
    return {"seats-ignored": ctx.replay(unlimited, model="seats-ignored")}
