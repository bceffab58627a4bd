"""A stop inside a spec step trims the later tokens and rolls C back with them (SPEC S13).

Tokens are appended one at a time and check_stop runs after each; at a stop on the j-th
token the rest are dropped and C -= len(g) - j, so N - C = 1 still holds (golden
``i_eos_abort``).
"""

from quizsvc.bank.model import Text
from quizsvc.bank.numeric import Build, counter, ngram_config, ordinal, request, scenario

STEP = 1


def build(p):
    """Prefill R, propose drafts, and stop at token ``stop_at`` of step 1's output."""
    k = p["num_spec"]
    drafts = 1 + (p["drafts"] - 1) % k
    accepted = 1 + (p["accepted"] - 1) % drafts if p["accepted"] else 1
    stop_at = p["stop_at"] % accepted  # 0-based index of the stopping token, never the last
    outcome = {"accepted": accepted}
    max_tokens = 32
    if p["stop"] == "eos":
        outcome["eos_index"] = stop_at
    else:
        max_tokens = 1 + stop_at + 1  # one output from the prefill step, then stop_at + 1 more
    body = scenario(
        "eos-in-spec-step",
        ngram_config(k),
        [request("R", p["prompt"], max_tokens=max_tokens)],
        default_outcome={"accepted": 0},
        outcomes={0: {"R": {"drafts": drafts}}, STEP: {"R": outcome}},
        max_steps=STEP + 1,
    )
    refs = tuple(
        counter(STEP, "R", "after_update", name)
        for name in ("num_computed_tokens", "num_tokens", "num_output_tokens")
    )
    return Build(body, STEP, refs, labels=("C", "N", "O"))


def describe(ctx):
    """Show R, what came back and where the stop is."""
    returned = ctx.step()["update"]["returned"]["R"]
    outcome = ctx.build.scenario["outcomes"][str(STEP)]["R"]
    if "eos_index" in outcome:
        position = outcome["eos_index"] + 1
        note = Text(f"，其中第 {position} 个（从 1 数起）是 EOS",
                    f"; the {ordinal(position)} of them (counting from 1) is EOS")
    else:
        note = Text("，没有 EOS", ", none of them EOS")
    return {
        "K": ctx.p["num_spec"],
        "N": ctx.before("R", "num_tokens"),
        "C": ctx.before("R", "num_computed_tokens"),
        "O": ctx.before("R", "num_output_tokens"),
        "M": ctx.build.scenario["requests"][0]["max_tokens"],
        "S": ctx.before("R", "num_spec_token_ids"),
        "n": ctx.n("R"),
        "g": returned["sampled"],
        "a": returned["accepted"],
        "stop_note": note,
        "_N_minus_C": ctx.after_update("R", "num_tokens")
        - ctx.after_update("R", "num_computed_tokens"),
    }


def misconceptions(ctx):
    """Commit every returned token (no trim); or also skip the rejection rollback."""
    returned = ctx.step()["update"]["returned"]["R"]
    g = returned["sampled"]
    n0 = ctx.before("R", "num_tokens")
    o0 = ctx.before("R", "num_output_tokens")
    c_after_schedule = ctx.after_schedule("R", "num_computed_tokens")
    rejected = ctx.n("R") - g
    _, n_after, o_after = ctx.answer()
    return {
        "no-trim-at-stop": [c_after_schedule - rejected, n0 + g, o0 + g],
        "no-rollback": [c_after_schedule, n_after, o_after],
    }
