"""Async skip: a request is not scheduled when C + 2 - ph >= prompt + max_tokens (sched.py:800-814).

With one step in flight (C - ph = N - 1) the test reads O + 1 >= max_tokens: the step in
flight reaches max_tokens even if all its drafts are rejected, so another step is wasted
work (SPEC S10).
"""

from quizsvc.bank.errors import Redraw
from quizsvc.bank.model import Text
from quizsvc.bank.numeric import Build, request, scenario, scheduled


def skip_step(max_tokens, accepted):
    """Predict the schedule index at which a request is first skipped.

    Schedule #0 prefills and samples 1 token; each later one returns 1 + accepted tokens and
    is processed one schedule later, so schedule #t sees O = 1 + (t - 2)(1 + accepted)
    committed outputs and skips once O + 1 >= max_tokens. ``describe`` checks the trace.
    """
    step = 2
    while 1 + (step - 2) * (1 + accepted) + 1 < max_tokens:
        step += 1
    return step


def build(p):
    """Run A and B (constant acceptances) up to the schedule that should skip ``skipped``."""
    k = p["num_spec"]
    accepted = {rid: p[f"accepted_{rid}"] % (k + 1) if k else 0 for rid in "ab"}
    who = p["skipped"].lower()
    other = "b" if who == "a" else "a"
    step = skip_step(p[f"max_tokens_{who}"], accepted[who])
    if 1 + (step - 2) * (1 + accepted[who]) != p[f"max_tokens_{who}"] - 1:
        raise Redraw("the request would reach max_tokens without ever being skipped")
    if 1 + (step - 2) * (1 + accepted[other]) >= p[f"max_tokens_{other}"]:
        raise Redraw("the other request has finished before this step")
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
        outcomes = {
            i: {
                "A": {"accepted": p["accepted_a"] % (k + 1)},
                "B": {"accepted": p["accepted_b"] % (k + 1)},
            }
            for i in range(1, step)
        }
    requests = [
        request("A", p["prompt_a"], max_tokens=p["max_tokens_a"]),
        request("B", p["prompt_b"], max_tokens=p["max_tokens_b"]),
    ]
    body = scenario(
        "async-max-tokens-skip",
        config,
        requests,
        default_outcome={"accepted": 0},
        outcomes=outcomes,
        max_steps=step + 1,
    )
    return Build(body, step, (scheduled(step, "A"), scheduled(step, "B")), labels=("A", "B"))


def describe(ctx):
    """Show both requests; redraw unless exactly this step shows the skip for one of them."""
    schedule = ctx.step()["schedule"]
    if schedule is None:
        raise Redraw("nothing was scheduled in this step")
    for rid in "AB":
        ctx.request(rid)  # both must still be alive (else: redraw)
    limits = schedule["limits"]
    bounds = [limits.get(rid, {}).get("bound") for rid in "AB"]
    if "skipped" not in bounds:
        raise Redraw("neither request is skipped in this step")
    k = ctx.p["num_spec"]
    shown = {
        "t": ctx.build.step,
        "spec": Text(f"n-gram 投机解码 K={k}", f"n-gram speculative decoding with K={k}")
        if k
        else Text("无投机解码", "no speculative decoding"),
    }
    for rid in "AB":
        shown[f"{rid}_P"] = ctx.p[f"prompt_{rid.lower()}"]
        shown[f"{rid}_M"] = ctx.p[f"max_tokens_{rid.lower()}"]
        shown[f"{rid}_O"] = ctx.before(rid, "num_output_tokens")
        shown[f"{rid}_C"] = ctx.before(rid, "num_computed_tokens")
        shown[f"{rid}_ph"] = ctx.before(rid, "num_output_placeholders")
        shown[f"{rid}_S"] = ctx.before(rid, "num_spec_token_ids")
        shown[f"_{rid}_test"] = skip_test(ctx, rid, limits[rid]["bound"] == "skipped")
    return shown


def skip_test(ctx, rid, skipped):
    """Return the skip test written out for ``rid`` (ph > 0 and C + 2 - ph >= P + max_tokens),
    checked against whether the ledger skipped it."""
    c = ctx.before(rid, "num_computed_tokens")
    ph = ctx.before(rid, "num_output_placeholders")
    p, m = ctx.p[f"prompt_{rid.lower()}"], ctx.p[f"max_tokens_{rid.lower()}"]
    if (ph > 0 and c + 2 - ph >= p + m) != skipped:
        raise ValueError(f"the lesson's skip test disagrees with the ledger for {rid}")
    if ph == 0:
        return Text(f"{rid}：ph = 0，没有在途的一步，不跳过",
                    f"{rid}: ph = 0, nothing in flight, no skip")
    sign, zh, en = ("≥", "跳过", "skipped") if skipped else ("<", "照常调度", "scheduled as usual")
    test = f"{c} + 2 − {ph} = {c + 2 - ph} {sign} {p} + {m} = {p + m}"
    return Text(f"{rid}：{test}，{zh}", f"{rid}: {test}, {en}")


def misconceptions(ctx):
    """Schedule the skipped request anyway, with its demand N + S + ph - C."""
    answer = ctx.answer()
    limits = ctx.step()["schedule"]["limits"]
    ignored = []
    for rid, n in zip("AB", answer, strict=True):
        if limits[rid]["bound"] == "skipped":
            demand = (
                ctx.before(rid, "num_tokens_with_spec")
                + ctx.before(rid, "num_output_placeholders")
                - ctx.before(rid, "num_computed_tokens")
            )
            ignored.append(demand)
        else:
            ignored.append(n)
    return {"async-skip-ignored": ignored}
