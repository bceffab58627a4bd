"""The threshold cuts every scheduled request above it, decodes with drafts too (SPEC S4 e).

Prompts are at most the threshold so step 0's prefills are not cut; no one-token waiting
request is ever padded here, which keeps clear of the 0.33.0 crash (SPEC S20).
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, request, scenario, scheduled, verified

STEP = 1


def build(p):
    """Prefill A and B at step 0, propose their drafts, ask about step 1."""
    k, thr = p["num_spec"], p["threshold"]
    if thr > k or p["prompt_a"] > thr or p["prompt_b"] > thr:
        raise Redraw("threshold within [2, K] and prompts within the threshold")
    drafts_a = thr + (p["drafts_a"] - 1) % (k - thr + 1)
    drafts_b = p["drafts_b"] % (k + 1)
    config = {
        "max_num_batched_tokens": 32,
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "long_prefill_token_threshold": thr,
        "num_speculative_tokens": k,
        "spec_method": "ngram",
    }
    requests = [
        request("A", p["prompt_a"], max_tokens=8),
        request("B", p["prompt_b"], max_tokens=8),
    ]
    body = scenario(
        "threshold-caps-drafts",
        config,
        requests,
        default_outcome={"accepted": 0},
        outcomes={0: {"A": {"drafts": drafts_a}, "B": {"drafts": drafts_b}}},
        max_steps=STEP + 1,
    )
    refs = (scheduled(STEP, "A"), verified(STEP, "A"), scheduled(STEP, "B"), verified(STEP, "B"))
    return Build(body, STEP, refs, labels=("n(A)", "k(A)", "n(B)", "k(B)"))


def describe(ctx):
    """Show both decodes as schedule() finds them."""
    shown = {"K": ctx.p["num_spec"], "thr": ctx.p["threshold"]}
    for rid in "AB":
        shown[f"{rid}_N"] = ctx.before(rid, "num_tokens")
        shown[f"{rid}_C"] = ctx.before(rid, "num_computed_tokens")
        shown[f"{rid}_S"] = ctx.before(rid, "num_spec_token_ids")
    return shown


def misconceptions(ctx):
    """Replay with the threshold off: prompts fit under it, so only the decodes change."""
    off = ctx.scenario_copy()
    off["config"]["long_prefill_token_threshold"] = 0
    return {"threshold-spares-decodes": ctx.replay(off, model="threshold-spares-decodes")}
