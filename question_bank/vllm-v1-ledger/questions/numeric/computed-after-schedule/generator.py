"""Computed after scheduling vs. output committed: "8 computed" is not "8 generated".

Same warm-up as ``mixed-step-allocation``; C's prompt is longer than what is left of the
budget, so C is scheduled a partial chunk that cannot sample a token.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, counter, request, scenario

STEP = 2


def build(p):
    """Reach: A decoding, B finishing its prefill, C arriving with a prompt that will not fit."""
    budget = p["budget"]
    if p["prompt_a"] > budget or p["remaining_b"] > budget - 2:
        raise Redraw("A must prefill in one step and B must finish with budget left for C")
    left_for_c = budget - 1 - p["remaining_b"]
    if p["prompt_c"] <= left_for_c:
        raise Redraw("C must get a partial chunk")
    config = {
        "max_num_batched_tokens": budget,
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
    }
    requests = [
        request("A", p["prompt_a"], max_tokens=4, arrival_step=0),
        request("B", budget - 1 + p["remaining_b"], max_tokens=2, arrival_step=1),
        request("C", p["prompt_c"], max_tokens=2, arrival_step=STEP),
    ]
    refs = tuple(counter(STEP, rid, "after_schedule", "num_computed_tokens") for rid in "ABC")
    refs += tuple(counter(STEP, rid, "after_update", "num_output_tokens") for rid in "ABC")
    labels = ("C(A)", "C(B)", "C(C)", "O(A)", "O(B)", "O(C)")
    body = scenario("computed-after-schedule", config, requests, max_steps=STEP + 1)
    return Build(body, STEP, refs, labels=labels)


def describe(ctx):
    """Show the starting state and the allocation (the question is about what follows)."""
    shown = {"budget": ctx.p["budget"], "C_P": ctx.before("C", "num_tokens")}
    for rid in "AB":
        shown[f"{rid}_N"] = ctx.before(rid, "num_tokens")
        shown[f"{rid}_C"] = ctx.before(rid, "num_computed_tokens")
        shown[f"{rid}_O"] = ctx.before(rid, "num_output_tokens")
    for rid in "ABC":
        shown[f"n_{rid}"] = ctx.n(rid)
    return shown


def misconceptions(ctx):
    """Every scheduled request commits one token; or computed waits for the update."""
    before_c = [ctx.before(rid, "num_computed_tokens") for rid in "ABC"]
    before_o = [ctx.before(rid, "num_output_tokens") for rid in "ABC"]
    answer = ctx.answer()
    computed = answer[:3]
    outputs = answer[3:]
    return {
        "computed-equals-generated": computed + [o + 1 for o in before_o],
        "computed-advances-at-update": before_c + outputs,
    }
