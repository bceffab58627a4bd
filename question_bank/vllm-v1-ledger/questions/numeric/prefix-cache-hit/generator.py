"""A prefix hit is whole cached blocks, capped at floor((N - 1) / block_size) blocks (SPEC S12).

X runs first (explicit token ids); Y arrives two steps later sharing a prefix of X and is
admitted with C = hit, scheduling N - hit (golden ``f_prefix_cache_hit``).
"""

from quizsvc.bank.model import Text
from quizsvc.bank.numeric import Build, Ref, scenario, scheduled

STEP = 2


def build(p):
    """X = ids 1000.. of ``cached_blocks`` full blocks; Y shares a prefix of X.

    ``shape``: ``copy`` (Y is X's first whole blocks: the last-token cap bites), ``extend``
    (whole shared blocks, then new tokens), ``partial`` (the shared part ends mid-block).
    """
    bs = p["block_size"]
    x_len = bs * p["cached_blocks"]
    whole = 1 + (p["shared_blocks"] - 1) % p["cached_blocks"]
    if p["shape"] == "copy":
        shared, new = whole * bs, 0
    elif p["shape"] == "extend":
        shared, new = whole * bs, p["new_tokens"]
    else:
        shared = min(x_len - 1, (whole - 1) * bs + 1 + (p["offset"] - 1) % (bs - 1))
        new = p["new_tokens"]
    x_ids = [1000 + j for j in range(x_len)]
    y_ids = x_ids[:shared] + [5000 + j for j in range(new)]
    config = {
        "max_num_batched_tokens": 64,
        "max_model_len": 64,
        "block_size": bs,
        "num_gpu_blocks": 64,
        "enable_prefix_caching": True,
    }
    requests = [
        {"id": "X", "prompt_token_ids": x_ids, "max_tokens": 4, "arrival_step": 0},
        {"id": "Y", "prompt_token_ids": y_ids, "max_tokens": 2, "arrival_step": STEP},
    ]
    body = scenario("prefix-cache-hit", config, requests, max_steps=STEP + 1)
    refs = (Ref(STEP, ("schedule", "new_req_num_computed_tokens", "Y")), scheduled(STEP, "Y"))
    return Build(body, STEP, refs, labels=("hit", "n"))


def shared_length(ctx):
    """Return how many leading prompt tokens Y shares with X (from the scenario itself)."""
    requests = {r["id"]: r["prompt_token_ids"] for r in ctx.build.scenario["requests"]}
    shared = 0
    for x, y in zip(requests["X"], requests["Y"], strict=False):
        if x != y:
            break
        shared += 1
    return shared


def describe(ctx):
    """Show both prompts' shapes."""
    bs = ctx.p["block_size"]
    x_len = bs * ctx.p["cached_blocks"]
    y_len = ctx.before("Y", "num_tokens")
    shared = shared_length(ctx)
    new = y_len - shared
    return {
        "bs": bs,
        "X_len": x_len,
        "Y_len": y_len,
        "shared": shared,
        "tail": Text(f"，其后 {new} 个 token 与 X 不同",
                     f", followed by {new} {'token' if new == 1 else 'tokens'} unlike X's")
        if new
        else Text("（Y 就是 X 开头的一段）", " (Y is an initial stretch of X)"),
        **hit_account(ctx, bs, y_len, shared),
    }


def hit_account(ctx, bs, y_len, shared):
    """Return the solution's arithmetic: whole shared blocks, capped at floor((N - 1) / bs),
    checked against the hit the ledger records."""
    cap = (y_len - 1) // bs
    blocks = min(shared // bs, cap)
    hit, scheduled_now = ctx.answer()
    if (blocks * bs, y_len - blocks * bs) != (hit, scheduled_now):
        raise ValueError(f"the lesson's hit formula gives {blocks * bs}, the ledger {hit}")
    return {"_whole": shared // bs, "_N1": y_len - 1, "_cap": cap, "_blocks": blocks,
            "_hit": hit, "_n": scheduled_now}


def misconceptions(ctx):
    """Hit all shared full blocks (no last-token cap); or hit every shared token."""
    bs = ctx.p["block_size"]
    y_len = ctx.before("Y", "num_tokens")
    shared = shared_length(ctx)
    uncapped = bs * (shared // bs)
    in_tokens = min(shared, y_len - 1)
    return {
        "hit-uncapped": [uncapped, y_len - uncapped],
        "hit-in-tokens": [in_tokens, y_len - in_tokens],
    }
