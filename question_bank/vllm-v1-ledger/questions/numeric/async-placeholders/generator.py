"""Async demand is N + S + ph - C: C counts the step in flight, ph its outputs.

SPEC S10, S11, S16.

At dispatch C += n and, for a request past its prompt, ph += 1 + drafts scheduled; under
spec decoding the scheduler holds K placeholder drafts (-1) instead of real ones.
"""

from quizsvc.bank.model import Text
from quizsvc.bank.numeric import Build, counter, request, scenario, scheduled


def build(p):
    """Prefill R at schedule #0 and ask about schedule #``sched_step`` (one step in flight)."""
    k = p["num_spec"]
    step = p["sched_step"]
    config = {
        "max_num_batched_tokens": 64,
        "max_model_len": 128,
        "block_size": 4,
        "num_gpu_blocks": 64,
        "async_scheduling": True,
    }
    outcomes = {}
    if k:
        config["num_speculative_tokens"] = k
        config["spec_method"] = "ngram"
        outcomes = {i: {"R": {"accepted": p[f"accepted_{i}"] % (k + 1)}} for i in range(1, step)}
    body = scenario(
        "async-placeholders",
        config,
        [request("R", p["prompt"], max_tokens=40)],
        default_outcome={"accepted": 0},
        outcomes=outcomes,
        max_steps=step + 1,
    )
    refs = (
        scheduled(step, "R"),
        counter(step, "R", "after_schedule", "num_computed_tokens"),
        counter(step, "R", "after_schedule", "num_output_placeholders"),
    )
    return Build(body, step, refs, labels=("n", "C", "ph"))


def describe(ctx):
    """Show R's counters as this schedule() finds them."""
    k = ctx.p["num_spec"]
    return {
        "t": ctx.p["sched_step"],
        "spec": Text(f"n-gram 投机解码 K={k}", f"n-gram speculative decoding with K={k}")
        if k
        else Text("无投机解码", "no speculative decoding"),
        "N": ctx.before("R", "num_tokens"),
        "C": ctx.before("R", "num_computed_tokens"),
        "ph": ctx.before("R", "num_output_placeholders"),
        "S": ctx.before("R", "num_spec_token_ids"),
        **dispatch_account(ctx),
    }


def dispatch_account(ctx):
    """Return the solution's arithmetic (demand, then C and ph at dispatch), checked against
    the counters the ledger records once schedule() has returned."""
    before = ctx.request("R")["before_schedule"]
    n, c_after, ph_after = ctx.answer()
    k = ctx.request("R")["num_scheduled_spec_tokens"]
    demand = (before["num_tokens"] + before["num_spec_token_ids"]
              + before["num_output_placeholders"] - before["num_computed_tokens"])
    expected = (demand, before["num_computed_tokens"] + n,
                before["num_output_placeholders"] + 1 + k)
    if expected != (n, c_after, ph_after):
        raise ValueError(f"the lesson's dispatch rules give {expected}, the ledger "
                         f"{(n, c_after, ph_after)}")
    return {"_n": n, "_k": k, "_C1": c_after, "_ph1": ph_after}


def misconceptions(ctx):
    """Read C as finished work (demand N + S - C); or hold C back until the update."""
    n, _, ph_after = ctx.answer()
    big_n = ctx.before("R", "num_tokens")
    c = ctx.before("R", "num_computed_tokens")
    ph = ctx.before("R", "num_output_placeholders")
    s = ctx.before("R", "num_spec_token_ids")
    finished = max(0, big_n + s - c)
    finished_ph = ph + (1 + min(s, finished - 1) if finished > 0 else 0)
    return {
        "computed-as-finished-async": [finished, c + finished, finished_ph],
        "computed-advances-at-update": [n, c, ph_after],
    }
