"""Every allocation reserves ceil(min(C + n + L, max_model_len) / block_size) blocks (SPEC S18).

Rejected drafts never give blocks back, so the step-1 reservation stands after the rollback.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import Build, blocks_for, request, scenario, step_field


def build(p):
    """Prefill R at step 0, decode 1 + K at step 1 with every draft rejected."""
    config = {
        "max_num_batched_tokens": 64,
        "max_model_len": 64,
        "block_size": p["block_size"],
        "num_gpu_blocks": 64,
        "num_speculative_tokens": p["num_spec"],
        "spec_method": "draft_model",
    }
    body = scenario(
        "kv-lookahead-blocks",
        config,
        [request("R", p["prompt"], max_tokens=16)],
        default_outcome={"accepted": 0},
        max_steps=2,
    )
    refs = (step_field(0, "kv_free_blocks"), step_field(1, "kv_free_blocks"))
    return Build(body, 1, refs, labels=("free@0", "free@1"))


def describe(ctx):
    """Show the method's lookahead as the ledger resolved it, and (for the solution) the two
    reservations the lesson's formula gives, checked against the ledger's free-block counts."""
    config = ctx.trace["effective_config"]
    lookahead, mml, size = (config["num_lookahead_tokens"], config["max_model_len"],
                            config["block_size"])
    usable = config["num_gpu_blocks"] - 1
    free = ctx.answer()
    reach = [ctx.before("R", "num_computed_tokens", step) + ctx.n("R", step) + lookahead
             for step in (0, 1)]
    held = [blocks_for(min(slots, mml), size) for slots in reach]
    if [usable - blocks for blocks in held] != free:
        raise ValueError(f"the lesson's block formula gives {held}, the ledger frees {free}")
    return {
        "K": ctx.p["num_spec"],
        "L": lookahead,
        "bs": size,
        "P": ctx.p["prompt"],
        "mml": mml,
        "_usable": usable,
        "_held0": held[0], "_free0": free[0],
        "_C1": ctx.before("R", "num_computed_tokens", 1), "_n1": ctx.n("R", 1),
        "_held1": held[1], "_free1": free[1],
    }


def misconceptions(ctx):
    """Replay with ngram: same drafts and budgets here, but no lookahead slots."""
    no_lookahead = ctx.scenario_copy()
    no_lookahead["config"]["spec_method"] = "ngram"
    forgotten = ctx.replay(no_lookahead, model="lookahead-forgotten")
    if forgotten == ctx.answer():
        raise Redraw("the lookahead does not change the block count here")
    return {"lookahead-forgotten": forgotten}
