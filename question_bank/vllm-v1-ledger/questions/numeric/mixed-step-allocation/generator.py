"""Mixed step: a decode, a running chunked prefill and a new prompt share one token budget.

Warm-up (as golden ``a_budget_split``): step 0 prefills A alone; step 1 admits B, whose prompt
is longer than what is left of the budget, so B is still mid-prefill; step 2 (asked) admits C.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, request, scenario, scheduled

STEP = 2


def build(p):
    """Reach: A decoding, B mid-prefill with ``remaining_b`` left, C arriving."""
    budget = p["budget"]
    if p["prompt_a"] > budget or p["remaining_b"] > budget - 2:
        raise Redraw("A must prefill in one step and B must finish before C gets nothing")
    if 1 + p["remaining_b"] + p["prompt_c"] <= budget:
        raise Redraw("everything fits: running-first would not decide this step")
    prompt_b = budget - 1 + p["remaining_b"]
    config = {
        "max_num_batched_tokens": budget,
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
    }
    requests = [
        request("A", p["prompt_a"], max_tokens=4, arrival_step=0),
        request("B", prompt_b, max_tokens=2, arrival_step=1),
        request("C", p["prompt_c"], max_tokens=2, arrival_step=STEP),
    ]
    body = scenario("mixed-step-allocation", config, requests, max_steps=STEP + 1)
    return Build(body, STEP, tuple(scheduled(STEP, rid) for rid in "ABC"), labels=("A", "B", "C"))


def describe(ctx):
    """Show the state schedule() found in the asked step."""
    return {
        "budget": ctx.p["budget"],
        "A_N": ctx.before("A", "num_tokens"),
        "A_C": ctx.before("A", "num_computed_tokens"),
        "B_N": ctx.before("B", "num_tokens"),
        "B_C": ctx.before("B", "num_computed_tokens"),
        "C_P": ctx.before("C", "num_tokens"),
    }


def _serve(demands, budget):
    out = []
    for demand in demands:
        n = min(demand, budget)
        out.append(n)
        budget -= n
    return out


def misconceptions(ctx):
    """Compute the wrong models' allocations from the same starting state."""
    d = describe(ctx)
    # The ledger's own wrong rule, from the asked step on: admissions before the running loop.
    waiting_first = ctx.replay(wrong_rules=("waiting_before_running",),
                               model="waiting-before-running")
    if waiting_first == ctx.answer():
        raise Redraw("everything fits: running-first is not what decides this step")
    return {
        "waiting-before-running": waiting_first,
        # Demand taken as N instead of N - C (the computed part forgotten).
        "demand-ignores-computed": _serve([d["A_N"], d["B_N"], d["C_P"]], d["budget"]),
    }
