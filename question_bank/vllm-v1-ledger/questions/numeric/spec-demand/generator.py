"""Spec demand (N + S) - C already contains the drafts; C advances by all of it at dispatch.

Warm-up: step 0 prefills R and the n-gram drafter proposes K drafts; ``warmups`` spec steps
accept some drafts (as golden ``b_spec_decode``); the last step before the asked one proposes
``drafts`` drafts.
"""

from quizsvc.bank.numeric import (
    Build,
    counter,
    ngram_config,
    request,
    scenario,
    scheduled,
    spec_warmup,
)


def build(p):
    """Reach a decode with ``drafts`` drafts after ``warmups`` verified spec steps."""
    step, outcomes = spec_warmup(p)
    body = scenario(
        "spec-demand",
        ngram_config(p["num_spec"]),
        [request("R", p["prompt"], max_tokens=40)],
        default_outcome={"accepted": 0},
        outcomes=outcomes,
        max_steps=step + 1,
    )
    refs = (scheduled(step, "R"), counter(step, "R", "after_schedule", "num_computed_tokens"))
    return Build(body, step, refs, labels=("n", "C"))


def describe(ctx):
    """Show R's counters as schedule() finds them."""
    return {
        "K": ctx.p["num_spec"],
        "N": ctx.before("R", "num_tokens"),
        "C": ctx.before("R", "num_computed_tokens"),
        "S": ctx.before("R", "num_spec_token_ids"),
        "N_spec": ctx.before("R", "num_tokens_with_spec"),
    }


def misconceptions(ctx):
    """Drafts added on top of a demand that already holds them; or C waiting for acceptance."""
    n, _ = ctx.answer()
    c = ctx.before("R", "num_computed_tokens")
    return {
        "drafts-counted-twice": ctx.replay(wrong_rules=("drafts_counted_twice",),
                                           model="drafts-counted-twice"),
        # Documented wrong rule: only the last token counts at dispatch.
        "computed-waits-for-acceptance": [n, c + 1],
    }
