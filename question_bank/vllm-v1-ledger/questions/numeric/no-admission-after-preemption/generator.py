"""The waiting loop is skipped in any step whose running loop preempted (sched.py:1050).

Warm-up as in ``kv-preemption-victim`` (FCFS); W arrives in the shortage step. The victim's
freed blocks and the unused budget would fit W, but W is not admitted until a later step.
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.numeric import (
    Build,
    blocks_for,
    first_kv_shortage,
    request,
    running_list,
    scenario,
    scheduled,
)

BLOCK = 4
NAMES = ("A", "B", "D")  # not "C": C is num_computed_tokens in every solution
MAX_STEP = 12


def build(p):
    """Prefill the running requests at step 0; W arrives in the first shortage step."""
    prompts = [p[f"prompt_{i + 1}"] for i in range(p["count"])]
    step = first_kv_shortage(prompts, p["extra"], BLOCK, MAX_STEP)
    if step is None:
        raise Redraw("no shortage within the first steps")
    config = {
        "max_num_batched_tokens": 64,
        "max_model_len": 64,
        "block_size": BLOCK,
        "num_gpu_blocks": 1 + sum(blocks_for(x, BLOCK) for x in prompts) + p["extra"],
    }
    names = NAMES[: p["count"]]
    requests = [request(rid, prompts[i], max_tokens=30) for i, rid in enumerate(names)]
    requests.append(request("W", p["prompt_w"], max_tokens=4, arrival_step=step))
    body = scenario("no-admission-after-preemption", config, requests, max_steps=step + 1)
    refs = tuple(scheduled(step, rid) for rid in (*names, "W"))
    return Build(body, step, refs, labels=(*names, "W"))


def running_state(ctx):
    """Return (name, C, blocks held) of each running request, in running-list order."""
    return [
        (
            rid,
            ctx.before(rid, "num_computed_tokens"),
            blocks_for(ctx.before(rid, "num_computed_tokens"), BLOCK),
        )
        for rid in ctx.step(ctx.build.step - 1)["running"]
    ]


def describe(ctx):
    """Show the pool, the running list and W; check the step really preempts."""
    if not ctx.step()["schedule"]["preempted_ids"]:
        raise Redraw("the trace shows no preemption in the predicted step")
    state = running_state(ctx)
    return {
        "free": ctx.step(ctx.build.step - 1)["kv_free_blocks"],
        "usable": ctx.trace["effective_config"]["num_gpu_blocks"] - 1,
        "mml": ctx.trace["effective_config"]["max_model_len"],
        "state": running_list(state),
        "order": ", ".join(rid for rid, _, _ in state),
        "W_P": ctx.p["prompt_w"],
    }


def misconceptions(ctx):
    """Admit W into the room the preemption freed; or shrink instead of preempting.

    The first is a documented wrong rule (the waiting loop runs anyway and W, one block,
    fits the victim's freed blocks); the second is the ledger's own ``kv_shrinks_chunk``.
    """
    answer = ctx.answer()
    running = answer[:-1]
    # The victim's blocks are free again once the running loop has preempted it.
    free_after = ctx.step()["kv_free_blocks"]
    admitted = ctx.p["prompt_w"] if free_after >= 1 else 0
    if admitted == 0:
        raise Redraw("W would not fit even in the wrong model")
    return {
        "admit-after-preemption": [*running, admitted],
        "kv-shrinks-chunk": ctx.replay(wrong_rules=("kv_shrinks_chunk",),
                                       model="kv-shrinks-chunk"),
    }
