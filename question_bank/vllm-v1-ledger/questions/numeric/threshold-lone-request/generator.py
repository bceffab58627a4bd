"""The threshold counts running + waiting once per schedule(): a lone request is not capped.

Golden ``c_long_prefill_threshold`` is the pattern: step 0 has A alone (no cap), step 1 adds B
and both are capped.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, request, scenario, scheduled


def build(p):
    """A arrives alone at step 0, B at step 1."""
    if p["prompt_a"] <= p["threshold"] or p["prompt_b"] <= p["threshold"]:
        raise Redraw("both prompts must be longer than the threshold")
    if p["threshold"] >= p["budget"]:
        raise Redraw("the threshold must be below the budget")
    config = {
        "max_num_batched_tokens": p["budget"],
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "long_prefill_token_threshold": p["threshold"],
    }
    requests = [
        request("A", p["prompt_a"], max_tokens=4, arrival_step=0),
        request("B", p["prompt_b"], max_tokens=4, arrival_step=1),
    ]
    body = scenario("threshold-lone-request", config, requests, max_steps=2)
    refs = (scheduled(0, "A"), scheduled(1, "A"), scheduled(1, "B"))
    return Build(body, 1, refs, labels=("A@0", "A@1", "B@1"))


def describe(ctx):
    """Show the configuration and the two prompts."""
    return {
        "budget": ctx.p["budget"],
        "thr": ctx.p["threshold"],
        "A_P": ctx.p["prompt_a"],
        "B_P": ctx.p["prompt_b"],
        **lone_account(ctx),
    }


def lone_account(ctx):
    """Return step 0's arithmetic (A alone: no threshold, only the budget), checked against the
    ledger's allocation."""
    alone = min(ctx.p["prompt_a"], ctx.p["budget"])
    if alone != ctx.answer()[0]:
        raise ValueError(f"A alone should get {alone}, the ledger gives {ctx.answer()[0]}")
    return {"_A0": alone}


def misconceptions(ctx):
    """Cap A at step 0 too (the ledger's wrong rule from step 0); or forget the threshold."""
    ignored = ctx.scenario_copy()
    ignored["config"]["long_prefill_token_threshold"] = 0
    return {
        "threshold-on-lone-request": ctx.replay(
            wrong_rules=("threshold_for_lone_request",), from_step=0,
            model="threshold-on-lone-request",
        ),
        "threshold-ignored": ctx.replay(ignored, model="threshold-ignored"),
    }
