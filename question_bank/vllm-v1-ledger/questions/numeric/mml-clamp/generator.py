"""The clamp n <= max_model_len - C - 1 cuts the drafts a near-full request verifies (SPEC S8).

Warm-up: step 0 prefills R (prompt = max_model_len - 1 - room) and proposes ``drafts``; at
step 1 only ``room`` positions are left, fewer than 1 + drafts.
"""

from quizsvc.bank.numeric import Build, counter, request, scenario, scheduled, verified

STEP = 1


def build(p):
    """Leave ``room`` positions below max_model_len for a decode carrying more drafts."""
    k = p["num_spec"]
    drafts = 2 + (p["drafts"] - 1) % (k - 1)
    room = 2 + (p["room"] - 1) % (drafts - 1)  # 2 <= room < 1 + drafts: the clamp binds
    accepted = p["accepted"] % room  # at most the room - 1 drafts verified
    config = {
        "max_num_batched_tokens": 128,
        "max_model_len": p["max_model_len"],
        "block_size": 4,
        "num_gpu_blocks": 64,
        "num_speculative_tokens": k,
        "spec_method": "ngram",
    }
    prompt = p["max_model_len"] - 1 - room
    body = scenario(
        "mml-clamp",
        config,
        [request("R", prompt, max_tokens=32)],
        default_outcome={"accepted": 0},
        outcomes={0: {"R": {"drafts": drafts}}, STEP: {"R": {"accepted": accepted}}},
        max_steps=STEP + 1,
    )
    refs = (
        scheduled(STEP, "R"),
        verified(STEP, "R"),
        counter(STEP, "R", "after_update", "num_computed_tokens"),
    )
    return Build(body, STEP, refs, labels=("n", "k", "C"))


def describe(ctx):
    """Show R near max_model_len."""
    return {
        "K": ctx.p["num_spec"],
        "mml": ctx.p["max_model_len"],
        "N": ctx.before("R", "num_tokens"),
        "C": ctx.before("R", "num_computed_tokens"),
        "S": ctx.before("R", "num_spec_token_ids"),
        "a": ctx.step()["update"]["returned"]["R"]["accepted"],
    }


def misconceptions(ctx):
    """No clamp at all; or a clamp at max_model_len - C (no room kept for the sampled token)."""
    _, _, c_after = ctx.answer()
    c = ctx.before("R", "num_computed_tokens")
    s = ctx.before("R", "num_spec_token_ids")
    demand = ctx.before("R", "num_tokens_with_spec") - c
    off_by_one = min(demand, ctx.p["max_model_len"] - c)
    return {
        "mml-clamp-ignored": [demand, s, c_after],
        "mml-clamp-off-by-one": [off_by_one, off_by_one - 1, c_after],
    }
