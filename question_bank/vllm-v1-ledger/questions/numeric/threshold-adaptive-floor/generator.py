"""The adaptive threshold is max(threshold, max_num_batched_tokens // eligible requests).

Eligible requests are counted once at the start of schedule() (running + waiting), so with
``count`` requests arriving together the floor is budget // count (SPEC S4 c, d).
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, request, scenario, scheduled

NAMES = ("R1", "R2", "R3", "R4")


def build(p):
    """``count`` prompts arrive at step 0 with the adaptive threshold on."""
    count = p["count"]
    if p["budget"] // count <= p["threshold"]:
        raise Redraw("the adaptive floor must exceed the configured threshold")
    config = {
        "max_num_batched_tokens": p["budget"],
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "long_prefill_token_threshold": p["threshold"],
        "long_prefill_token_threshold_adaptive": True,
    }
    names = NAMES[:count]
    requests = [request(rid, p[f"prompt_{i + 1}"], max_tokens=2) for i, rid in enumerate(names)]
    body = scenario("threshold-adaptive-floor", config, requests, max_steps=1)
    return Build(body, 0, tuple(scheduled(0, rid) for rid in names), labels=names)


def describe(ctx):
    """Show the configuration and the prompts in arrival order."""
    count = ctx.p["count"]
    prompts = ", ".join(f"{NAMES[i]}={ctx.p[f'prompt_{i + 1}']}" for i in range(count))
    return {
        "budget": ctx.p["budget"],
        "thr": ctx.p["threshold"],
        "count": count,
        "prompts": prompts,
    }


def misconceptions(ctx):
    """Replay with the adaptive floor off, and with the threshold off."""
    plain = ctx.scenario_copy()
    plain["config"]["long_prefill_token_threshold_adaptive"] = False
    floor_ignored = ctx.replay(plain, model="adaptive-floor-ignored")
    if floor_ignored == ctx.answer():
        raise Redraw("the floor does not change this allocation")
    off = ctx.scenario_copy()
    off["config"]["long_prefill_token_threshold"] = 0
    return {"adaptive-floor-ignored": floor_ignored, "threshold-ignored": ctx.replay(
        off, model="threshold-ignored")}
