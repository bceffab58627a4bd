"""input_budget - draft_slots binds before token_budget (golden ``j_draft_slots_bind``).

Every scheduled request, prefills included, charges n to token_budget and n + draft_slots to
input_budget, and may take at most input_budget - draft_slots; both loops stop once
input_budget <= draft_slots. Warm-up: step 0 prefills A and B completely; step 1 (asked)
has both decoding with K drafts while C waits.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, request, scenario, scheduled

STEP = 1


def build(p):
    """Reach: A and B decoding with K drafts each, C waiting."""
    budget = p["budget"]
    if p["prompt_a"] + p["prompt_b"] > budget - 2:
        raise Redraw("A and B must both finish their prefill in step 0")
    if budget < 2 * p["num_spec"] + 4:
        raise Redraw("leave token_budget for C once A and B have their 1 + K each")
    # A and B take 1 + K each and 2 * (1 + K + draft_slots) of input_budget; C then gets at
    # most budget - 2(1 + K) - 3 where a draft_slots-free budget would give it
    # budget - 2(1 + K). A C that fits under both would not test draft_slots (the replay
    # below checks this again).
    if p["prompt_c"] <= budget - 2 * (1 + p["num_spec"]) - 3:
        raise Redraw("C fits either way: draft_slots would not bind")
    config = {
        "max_num_batched_tokens": budget,
        "max_model_len": 64,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "num_speculative_tokens": p["num_spec"],
        "spec_method": "draft_model",
    }
    requests = [
        request("A", p["prompt_a"], max_tokens=8, arrival_step=0),
        request("B", p["prompt_b"], max_tokens=8, arrival_step=0),
        request("C", p["prompt_c"], max_tokens=4, arrival_step=STEP),
    ]
    body = scenario(
        "input-budget-draft-slots",
        config,
        requests,
        default_outcome={"accepted": 0},
        max_steps=STEP + 1,
    )
    return Build(body, STEP, tuple(scheduled(STEP, rid) for rid in "ABC"), labels=("A", "B", "C"))


def describe(ctx):
    """Show the budgets, draft_slots and the state schedule() found."""
    return {
        "K": ctx.p["num_spec"],
        "ds": ctx.trace["effective_config"]["draft_slots"],
        "budget": ctx.p["budget"],
        "A_N": ctx.before("A", "num_tokens"),
        "A_C": ctx.before("A", "num_computed_tokens"),
        "B_N": ctx.before("B", "num_tokens"),
        "B_C": ctx.before("B", "num_computed_tokens"),
        "S": ctx.before("A", "num_spec_token_ids"),
        "C_P": ctx.before("C", "num_tokens"),
    }


def _verified_as_slots(demands, prompt_c, budget):
    token_budget = input_budget = budget
    out = []
    for demand in demands:
        n = max(0, min(demand, token_budget, input_budget))
        out.append(n)
        token_budget -= n
        input_budget -= n + max(n - 1, 0)
    out.append(max(0, min(prompt_c, token_budget, input_budget)))
    return out


def misconceptions(ctx):
    """Replay with draft_slots = 0 (ngram: same drafts, no reservation); charge drafts instead."""
    ignored = ctx.scenario_copy()
    ignored["config"]["spec_method"] = "ngram"
    ignored_answer = ctx.replay(ignored, model="draft-slots-ignored")
    if ignored_answer == ctx.answer():
        raise Redraw("draft_slots does not bind in this draw")
    demands = [
        ctx.before(rid, "num_tokens_with_spec") - ctx.before(rid, "num_computed_tokens")
        for rid in "AB"
    ]
    return {
        "draft-slots-ignored": ignored_answer,
        "draft-slots-as-verified": _verified_as_slots(
            demands, ctx.before("C", "num_tokens"), ctx.p["budget"]
        ),
    }
