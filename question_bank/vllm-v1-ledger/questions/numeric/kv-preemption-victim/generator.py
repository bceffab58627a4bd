"""KV allocation is all-or-nothing; on failure a victim is preempted and the allocation retried.

FCFS preempts running[-1]; the priority policy preempts the running request with the largest
(priority, arrival), un-scheduling it if it was already scheduled this step (SPEC S9, S21, §7).
Warm-up: 2-3 requests prefill together at step 0 in a pool with at most one spare block;
they decode until one of them needs a new block and none is free. ``build`` predicts that
step from whole-block arithmetic; ``describe`` checks the trace agrees (else: redraw).
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.model import Text
from quizsvc.bank.numeric import (
    Build,
    blocks_for,
    first_kv_shortage,
    request,
    running_list,
    scenario,
    scheduled,
    step_field,
)

BLOCK = 4
NAMES = ("A", "B", "D")  # not "C": C is num_computed_tokens in every solution
MAX_STEP = 12


def admission_order(p):
    """Return request indexes in running-list order (priority admits by (priority, arrival))."""
    indexes = range(p["count"])
    if p["policy"] == "priority":
        return sorted(indexes, key=lambda i: (p[f"priority_{i + 1}"], i))
    return list(indexes)


def build(p):
    """Prefill every request at step 0 and stop right after the first shortage."""
    prompts = [p[f"prompt_{i + 1}"] for i in range(p["count"])]
    step = first_kv_shortage([prompts[i] for i in admission_order(p)], p["extra"], BLOCK, MAX_STEP)
    if step is None:
        raise Redraw("no shortage within the first steps")
    config = {
        "max_num_batched_tokens": 64,
        "max_model_len": 64,
        "block_size": BLOCK,
        "num_gpu_blocks": 1 + sum(blocks_for(x, BLOCK) for x in prompts) + p["extra"],
        "policy": p["policy"],
    }
    requests = [request(NAMES[i], prompts[i], max_tokens=30) for i in range(p["count"])]
    if p["policy"] == "priority":
        for i, entry in enumerate(requests):
            entry["priority"] = p[f"priority_{i + 1}"]
    body = scenario("kv-preemption-victim", config, requests, max_steps=step + 1)
    names = [NAMES[i] for i in admission_order(p)]  # answers follow the running list
    refs = (*(scheduled(step, rid) for rid in names), step_field(step, "kv_free_blocks"))
    return Build(body, step, refs, labels=(*names, "free"))


def running_state(ctx):
    """Return (name, C, blocks held) of each running request, in running-list order."""
    state = []
    for rid in ctx.step(ctx.build.step - 1)["running"]:
        c = ctx.before(rid, "num_computed_tokens")
        state.append((rid, c, blocks_for(c, BLOCK)))
    return state


def describe(ctx):
    """Show the pool and the running list; check the shortage preempts in this very step."""
    if not ctx.step()["schedule"]["preempted_ids"]:
        raise Redraw("the trace shows no preemption in the predicted step")
    state = running_state(ctx)
    free = ctx.step(ctx.build.step - 1)["kv_free_blocks"]
    if tuple(rid for rid, _, _ in state) != ctx.build.labels[:-1]:
        raise Redraw("the running order differs from the predicted admission order")
    priority = ctx.p["policy"] == "priority"
    labels = {rid: f"priority={ctx.p[f'priority_{NAMES.index(rid) + 1}']}" for rid, _, _ in state
              } if priority else {}
    return {
        "policy": ctx.p["policy"],
        "policy_note": Text("（数值越小优先级越高）", " (a lower value is more important)")
        if priority else Text("", ""),
        "mml": ctx.trace["effective_config"]["max_model_len"],
        "bs": BLOCK,
        "usable": ctx.trace["effective_config"]["num_gpu_blocks"] - 1,
        "free": free,
        "state": running_list(state, labels),
        "order": ", ".join(rid for rid, _, _ in state),
        **pool_walk(ctx, state, free, priority),
    }


VICTIM_RULE = {
    False: Text("running 列表的最后一个", "the last of the running list"),
    True: Text("(priority, arrival_time) 最大的 running 请求",
               "the running request with the largest (priority, arrival_time)"),
}


def pool_walk(ctx, state, free, priority):
    """Return the solution's account of the pool: who needs a block, who is the victim, and
    free + freed − taken, checked against the free blocks the ledger counts at the end."""
    need = {rid: blocks_for(c + 1, BLOCK) - held for rid, c, held in state}
    victims = ctx.step()["schedule"]["preempted_ids"]
    freed = sum(held for rid, _, held in state if rid in victims)
    taken = sum(need[rid] for rid, _, _ in state if ctx.n(rid) > 0)
    end = free + freed - taken
    if end != ctx.answer()[-1]:
        raise ValueError(f"free + freed - taken = {end}, the ledger counts {ctx.answer()[-1]}")
    needers = [rid for rid, _, _ in state if need[rid] > 0]
    return {
        "_needers": names(needers), "_need_verb": Text("", "s" if len(needers) == 1 else ""),
        "_victims": names(victims), "_victim_rule": VICTIM_RULE[priority],
        "_freed": freed, "_taken": taken, "_end": end,
    }


def names(ids):
    """Write request ids as one list in both languages."""
    return Text("、".join(ids), " and ".join(ids))


def misconceptions(ctx):
    """Shrink the chunk (the ledger's wrong rule); or preempt the requester itself.

    The second is a documented wrong rule: the request that cannot get a block loses its
    own blocks and the loop goes on with the others, each still needing 0 or 1 new block.
    """
    state = running_state(ctx)
    requester, free = [], ctx.step(ctx.build.step - 1)["kv_free_blocks"]
    for _, c, held in state:
        need = blocks_for(c + 1, BLOCK) - held
        if need <= free:
            requester.append(1)
            free -= need
        else:
            requester.append(0)
            free += held
    requester.append(free)
    return {
        "kv-shrinks-chunk": ctx.replay(wrong_rules=("kv_shrinks_chunk",),
                                       model="kv-shrinks-chunk"),
        "victim-is-requester": requester,
    }
