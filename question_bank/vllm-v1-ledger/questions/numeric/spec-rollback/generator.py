"""Rollback: C rises by 1 + S at dispatch and falls by the S - a rejected drafts at the update.

Warm-up as in ``spec-demand``; the asked step accepts ``accepted`` of its drafts (the
lesson's own exercise is N=11, C=10, 3 drafts, accepted 0 / 1 / 3).
"""

from quizsvc.bank.numeric import (
    Build,
    Ref,
    counter,
    ngram_config,
    request,
    scenario,
    spec_warmup,
)


def build(p):
    """Reach a decode with ``drafts`` drafts and accept ``accepted`` of them."""
    step, outcomes = spec_warmup(p)
    p["accepted"] = p["accepted"] % (p["drafts"] + 1)
    outcomes[step] = {"R": {"accepted": p["accepted"]}}
    body = scenario(
        "spec-rollback",
        ngram_config(p["num_spec"]),
        [request("R", p["prompt"], max_tokens=40)],
        default_outcome={"accepted": 0},
        outcomes=outcomes,
        max_steps=step + 1,
    )
    refs = (
        counter(step, "R", "after_update", "num_computed_tokens"),
        counter(step, "R", "after_update", "num_tokens"),
        Ref(step, ("update", "returned", "R", "sampled")),
    )
    return Build(body, step, refs, labels=("C", "N", "len"))


def describe(ctx):
    """Show R before the step, what was scheduled and how many drafts were accepted."""
    return {
        "K": ctx.p["num_spec"],
        "N": ctx.before("R", "num_tokens"),
        "C": ctx.before("R", "num_computed_tokens"),
        "S": ctx.before("R", "num_spec_token_ids"),
        "n": ctx.n("R"),
        "a": ctx.step()["update"]["returned"]["R"]["accepted"],
        "_N_minus_C": ctx.after_update("R", "num_tokens")
        - ctx.after_update("R", "num_computed_tokens"),
    }


def misconceptions(ctx):
    """No rollback; the bonus token forgotten; the drafts counted twice at dispatch."""
    _, n_after, length = ctx.answer()
    c0 = ctx.before("R", "num_computed_tokens")
    n0 = ctx.before("R", "num_tokens")
    a = length - 1
    return {
        "no-rollback": [ctx.after_schedule("R", "num_computed_tokens"), n_after, length],
        "bonus-forgotten": [c0 + a, n0 + a, a],
        "drafts-counted-twice": ctx.replay(wrong_rules=("drafts_counted_twice",),
                                           model="drafts-counted-twice"),
    }
