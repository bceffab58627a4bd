"""Turn a trace step into a worked solution: why each request got its tokens, and who moved C.

Everything here reads the FORMAT.md trace (plus the ``limits``, ``rolled_back`` and
``trimmed`` extras the engine records), so the same text can be produced for any replay,
in Chinese (the lesson's language) or English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

BOUND_NAMES: dict[str, dict[str, str]] = {
    "demand": {"en": "its demand", "zh": "需求本身"},
    "threshold": {"en": "the long-prefill threshold", "zh": "长 prefill 阈值"},
    "token_budget": {"en": "token_budget", "zh": "token_budget"},
    "input_budget": {"en": "input_budget - draft_slots", "zh": "input_budget - draft_slots"},
    "max_model_len": {"en": "max_model_len", "zh": "max_model_len"},
    "padding": {"en": "padding to 1 + K", "zh": "补齐到 1 + K"},
    "kv": {"en": "the KV cache", "zh": "KV cache"},
    "seats": {"en": "max_num_seqs (no free seat)", "zh": "max_num_seqs（没有空位）"},
    "preempted": {"en": "preemption", "zh": "抢占"},
    "skipped": {"en": "a skip rule", "zh": "跳过规则"},
}


# The two budgets a limit record names, by bound: its field in the record and its name.
BUDGET_LIMITS: dict[str, tuple[str, str]] = {
    "token_budget": ("token_budget", "token_budget"),
    "input_budget": ("input_budget_minus_draft_slots", "input_budget − draft_slots"),
}


# How a worked solution names the phase that made a ledger change.
PHASE_NAMES: dict[str, dict[str, str]] = {
    "schedule": {"en": "schedule", "zh": "调度"},
    "after_schedule": {"en": "dispatch", "zh": "派发"},
    "update": {"en": "output update", "zh": "输出更新"},
    "drafts": {"en": "drafts", "zh": "草稿"},
}

# Chinese renderings of the scheduler's notes (which it records in English).
NOTE_PATTERNS_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        (r"^async max-tokens skip: .*", "异步 max_tokens 跳过：在途的那一步已必然达到 max_tokens"),
        (r"^preempted itself: .*", "抢占了自己：已无可腾出的 KV 块"),
        (r"^preempted to free KV blocks for (.+)$", r"被抢占，为 \1 腾出 KV 块"),
        (r"^token_budget spent before its turn$", "轮到它之前 token_budget 已用完"),
        (r"^input_budget <= draft_slots: the loop stopped$",
         "input_budget <= draft_slots：running 循环停止"),
        (r"^input_budget <= draft_slots: admissions stop$",
         "input_budget <= draft_slots：停止接纳"),
        (r"^max_num_seqs = (\d+) seats taken$", r"max_num_seqs = \1 个席位已占满"),
        (r"^preempted output still in flight$", "被抢占前的输出仍在途"),
        (r"^padded to 1\+K, which does not fit the budget$", "补齐到 1+K 后超出预算"),
        (r"^no free KV blocks left$", "没有空闲 KV 块"),
        (r"^admission gate: .*", "准入检查：整个序列必须能放进空闲 KV 块"),
        (r"^step allocation \(with lookahead\) .*", "本步分配（含 lookahead）放不进空闲 KV 块"),
        (r"^an earlier request in the queue could not get KV blocks$",
         "队列中更靠前的请求拿不到 KV 块（队头阻塞）"),
        (r"^no room left before max_model_len$", "已到 max_model_len，没有余量"),
        (r"^no admissions in a step that preempted$", "本步发生了抢占，不接纳 waiting 请求"),
        (r"^the running loop stopped after a KV preemption$", "KV 抢占后 running 循环停止"),
    )
)


def localise_note(note: str, lang: str) -> str:
    """Return a scheduler note in ``lang`` (notes are recorded in English)."""
    if lang != "zh" or not note:
        return note
    for pattern, template in NOTE_PATTERNS_ZH:
        if pattern.match(note):
            return pattern.sub(template, note)
    return note


@dataclass(frozen=True, slots=True)
class LedgerChange:
    """One change to a request's ledger, with the phase that made it."""

    request_id: str
    phase: str  # "schedule", "after_schedule", "update", "drafts"
    field: str
    before: Any
    after: Any
    why: str

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form of this change."""
        return {
            "request": self.request_id,
            "phase": self.phase,
            "field": self.field,
            "before": self.before,
            "after": self.after,
            "why": self.why,
        }


def _text(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def find_step(trace: dict[str, Any], step: int) -> dict[str, Any]:
    """Return the trace record of loop step ``step`` (KeyError if absent)."""
    records: list[dict[str, Any]] = trace["steps"]
    for record in records:
        if record["step"] == step:
            return record
    raise KeyError(f"no step {step} in trace")


def ledger_changes(record: dict[str, Any], lang: str = "en") -> list[LedgerChange]:
    """List every counter change in one step, in the order the phases make them."""
    changes: list[LedgerChange] = []
    schedule = record.get("schedule") or {}
    update = record.get("update") or {}
    scheduled = schedule.get("num_scheduled_tokens", {})
    new_computed = schedule.get("new_req_num_computed_tokens", {})
    preempted = set(schedule.get("preempted_ids", []))
    for request_id, entry in record.get("requests", {}).items():
        before = entry.get("before_schedule")
        after_schedule = entry.get("after_schedule")
        after_update = entry.get("after_update")
        if before and after_schedule:
            if request_id in preempted and before["status"] == "RUNNING":
                changes.append(LedgerChange(
                    request_id, "schedule", "num_computed_tokens",
                    before["num_computed_tokens"], 0,
                    _text(lang, "preempted: KV blocks freed, C restarts from 0",
                          "被抢占：释放 KV 块，C 归零"),
                ))
            if request_id in new_computed:
                hit = new_computed[request_id]
                changes.append(LedgerChange(
                    request_id, "schedule", "num_computed_tokens",
                    before["num_computed_tokens"], hit,
                    _text(lang, f"admitted: C = prefix-cache hit = {hit}",
                          f"被接纳：C = 前缀缓存命中 = {hit}"),
                ))
            if before["num_spec_token_ids"] and not after_schedule["num_spec_token_ids"]:
                changes.append(LedgerChange(
                    request_id, "schedule", "num_spec_token_ids",
                    before["num_spec_token_ids"], 0,
                    _text(lang, "drafts handed to this step (extra ones dropped)",
                          "草稿交给本步验证（多余的丢弃）"),
                ))
            n = scheduled.get(request_id, 0)
            if n:
                start = after_schedule["num_computed_tokens"] - n
                changes.append(LedgerChange(
                    request_id, "after_schedule", "num_computed_tokens", start,
                    after_schedule["num_computed_tokens"],
                    _text(lang, f"_update_after_schedule: C += {n} at dispatch (optimistic)",
                          f"_update_after_schedule：派发时 C += {n}（乐观计入）"),
                ))
            ph_before = before["num_output_placeholders"]
            ph_after = after_schedule["num_output_placeholders"]
            if ph_after != ph_before and request_id not in preempted:
                changes.append(LedgerChange(
                    request_id, "after_schedule", "num_output_placeholders", ph_before, ph_after,
                    _text(lang, "async: 1 + drafts verified outputs are now in flight",
                          "异步：1 + 被验证草稿数 个输出在途"),
                ))
        if after_update is None:
            continue
        base = after_schedule or before or after_update
        computed = base["num_computed_tokens"] if base else after_update["num_computed_tokens"]
        rolled_back = (update.get("rolled_back") or {}).get(request_id)
        if rolled_back:
            changes.append(LedgerChange(
                request_id, "update", "num_computed_tokens", computed, computed - rolled_back,
                _text(lang, f"update_from_output: {rolled_back} rejected drafts roll C back",
                      f"update_from_output：{rolled_back} 个被拒草稿使 C 回退"),
            ))
            computed -= rolled_back
        if base and after_update["num_tokens"] != base["num_tokens"]:
            changes.append(LedgerChange(
                request_id, "update", "num_tokens", base["num_tokens"],
                after_update["num_tokens"],
                _text(lang, "sampled tokens appended (committed output)",
                      "采样得到的 token 被追加（已提交输出）"),
            ))
        trimmed = (update.get("trimmed") or {}).get(request_id)
        if trimmed:
            changes.append(LedgerChange(
                request_id, "update", "num_computed_tokens", computed, computed - trimmed,
                _text(lang, f"stop inside the step: {trimmed} later tokens dropped, C -= {trimmed}",
                      f"步内停止：丢弃其后 {trimmed} 个 token，C -= {trimmed}"),
            ))
            computed -= trimmed
        if after_update["num_computed_tokens"] != computed:
            changes.append(LedgerChange(
                request_id, "update", "num_computed_tokens", computed,
                after_update["num_computed_tokens"],
                _text(lang, "changed in the output update", "在输出更新中改变"),
            ))
        if base and after_update["status"] != base["status"]:
            changes.append(LedgerChange(
                request_id, "update", "status", base["status"], after_update["status"],
                _text(lang, "finished", "结束"),
            ))
    return changes


def explain_limit(request_id: str, limit: dict[str, Any], entry: dict[str, Any],
                  lang: str = "en") -> str:
    """Explain in one line how many tokens ``request_id`` got and which limit bound it."""
    before = entry.get("before_schedule") or {}
    bound = BOUND_NAMES.get(limit["bound"], {}).get(lang, limit["bound"])
    scheduled = limit["scheduled"]
    parts: list[str] = []
    if limit["bound"] in ("preempted", "skipped", "seats") or (
        limit["bound"] in ("token_budget", "input_budget", "kv") and scheduled == 0
        and not limit.get("kv_blocks_needed")
    ):
        # Nothing was computed for this request: say why, without a demand equation.
        note = localise_note(limit.get("note") or "", lang) or bound
        return _text(
            lang,
            f"{request_id} [{limit['loop']}]: gets 0 ({note})",
            f"{request_id}［{limit['loop']} 队列］：分到 0（{note}）",
        )
    if limit["loop"] == "running" and before:
        n_tokens = before.get("num_tokens", 0)
        drafts = before.get("num_spec_token_ids", 0)
        placeholders = before.get("num_output_placeholders", 0)
        computed = before.get("num_computed_tokens", 0)
        parts.append(
            f"N + S + ph - C = {n_tokens} + {drafts} + {placeholders} - {computed}"
            f" = {limit['demand']}"
        )
    elif limit["loop"] == "waiting":
        hit = limit.get("prefix_hit", 0)
        parts.append(
            _text(lang, f"N - prefix hit = {limit['demand'] + hit} - {hit} = {limit['demand']}",
                  f"N - 前缀命中 = {limit['demand'] + hit} - {hit} = {limit['demand']}")
        )
    if limit.get("threshold"):
        parts.append(_text(lang, f"threshold {limit['threshold']}", f"阈值 {limit['threshold']}"))
    parts.append(f"token_budget {limit['token_budget']}")
    parts.append(f"input_budget - draft_slots {limit['input_budget_minus_draft_slots']}")
    if limit.get("max_model_len_room") is not None:
        parts.append(f"max_model_len - C - 1 = {limit['max_model_len_room']}")
    if limit.get("kv_blocks_needed") is not None:
        parts.append(_text(
            lang,
            f"KV needs {plural(limit['kv_blocks_needed'], 'block')}, "
            f"{limit['kv_free_blocks']} free",
            f"KV 需要 {limit['kv_blocks_needed']} 块，空闲 {limit['kv_free_blocks']} 块",
        ))
    loop = _text(lang, limit["loop"], "running 队列" if limit["loop"] == "running"
                 else "waiting 队列")
    note = f" ({localise_note(limit['note'], lang)})" if limit.get("note") else ""
    return _text(
        lang,
        f"{request_id} [{loop}]: {'; '.join(parts)} -> {scheduled} (bound by {bound}){note}",
        f"{request_id}［{loop}］：{'；'.join(parts)} → {scheduled}（受 {bound} 约束）{note}",
    )


def explain_step(trace: dict[str, Any], step: int, lang: str = "en") -> list[str]:
    """Return the worked-solution lines for loop step ``step`` of ``trace``."""
    record = find_step(trace, step)
    lines: list[str] = []
    schedule = record.get("schedule")
    config = trace.get("effective_config", {})
    if schedule is None:
        lines.append(_text(lang, f"Step {step}: schedule() not called.",
                           f"第 {step} 步：未调用 schedule()。"))
    else:
        lines.append(_text(
            lang,
            f"Step {step} (schedule #{schedule['sched_step']}): token_budget "
            f"{config.get('max_num_scheduled_tokens')}, input_budget "
            f"{config.get('max_num_batched_tokens')}, draft_slots {config.get('draft_slots')}; "
            "running requests first, then waiting ones.",
            f"第 {step} 步（第 {schedule['sched_step']} 次 schedule）：token_budget "
            f"{config.get('max_num_scheduled_tokens')}，input_budget "
            f"{config.get('max_num_batched_tokens')}，draft_slots {config.get('draft_slots')}；"
            "先 running，后 waiting。",
        ))
        for request_id, limit in schedule.get("limits", {}).items():
            entry = record["requests"].get(request_id, {})
            lines.append(explain_limit(request_id, limit, entry, lang))
        total = schedule["total_num_scheduled_tokens"]
        allocation = listing(schedule["num_scheduled_tokens"], lang)
        verified = listing(schedule["scheduled_spec_decode_tokens"], lang)
        lines.append(_text(
            lang,
            f"num_scheduled_tokens: {allocation}, total {total}; drafts verified: {verified}.",
            f"num_scheduled_tokens：{allocation}，合计 {total}；被验证的草稿数：{verified}。",
        ))
        if schedule.get("preempted_ids"):
            preempted = listing(schedule["preempted_ids"], lang)
            lines.append(_text(
                lang, f"Preempted: {preempted}; no admissions this step.",
                f"被抢占：{preempted}；本步不再接纳 waiting 请求。",
            ))
    for change in ledger_changes(record, lang):
        arrow = ""
        if change.before is not None or change.after is not None:
            arrow = f" {change.before} -> {change.after}"
        phase = PHASE_NAMES.get(change.phase, {}).get(lang, change.phase)
        lines.append(f"  [{phase}] {change.request_id}.{change.field}{arrow}: {change.why}")
    update = record.get("update")
    if update is not None and update.get("finished_ids"):
        reasons = listing(update["finish_reasons"], lang)
        lines.append(_text(lang, f"Finished: {reasons}.", f"结束：{reasons}。"))
    return lines


def listing(value: Any, lang: str) -> str:
    """Write a mapping or list of a trace as a learner reads it: ``A 1 · B 6``, never a repr."""
    if isinstance(value, dict):
        items = [f"{key} {len(v) if isinstance(v, list) else v}" for key, v in value.items()]
    else:
        items = [str(item) for item in value]
    return " · ".join(items) if items else _text(lang, "none", "无")


# ---------------------------------------------------------------- worked solutions


def _names(ids: list[str], lang: str) -> str:
    if lang == "zh" or len(ids) < 2:
        return "、".join(ids)
    return ", ".join(ids[:-1]) + " and " + ids[-1]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """Write ``count noun`` in English with the noun agreeing: 1 token, 2 tokens."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def _verb(ids: list[str], singular: str, many: str) -> str:
    return singular if len(ids) == 1 else many


def _numbers(values: list[Any], lang: str) -> str:
    return ("、" if lang == "zh" else ", ").join(str(v) for v in values)


def why_sentences(record: dict[str, Any], lang: str = "en",
                  focus: tuple[str, ...] = ()) -> list[str]:
    """Say which limit bound which request this step, and what the output update did.

    One sentence per kind of limit (requests bound the same way share it), then one for the
    update (rollbacks, stops, outputs that did not come), so a learner reads the reason before
    the numbers. ``focus`` restricts the sentences to the requests a question asks about.
    """
    schedule = record.get("schedule") or {}
    limits: dict[str, dict[str, Any]] = schedule.get("limits") or {}
    chosen = [rid for rid in limits if not focus or rid in focus]
    # A preempted running request and a waiting one left out because of it share the bound
    # "preempted" but not the reason: the loop is part of the group.
    groups: dict[tuple[str, bool, str], list[str]] = {}
    for rid in chosen:
        limit = limits[rid]
        loop = limit["loop"] if limit["bound"] == "preempted" else ""
        groups.setdefault((limit["bound"], limit["scheduled"] > 0, loop), []).append(rid)
    sentences = [_bound_sentence(bound, got, ids, limits, record, lang)
                 for (bound, got, _), ids in groups.items()]
    short = [rid for rid in chosen if limits[rid].get("kv_blocks_needed") is not None
             and limits[rid]["scheduled"] > 0]
    preempted = schedule.get("preempted_ids") or []
    if short and preempted:
        limit = limits[short[0]]
        # The victims' own sentence would say again what the KV sentence below says.
        victims = set(preempted)
        kept = [(line, ids) for line, (key, ids) in zip(sentences, groups.items(), strict=True)
                if not (key[0] == "preempted" and key[2] == "running" and set(ids) <= victims)]
        # The preemption happens in the running loop: say it before what the waiting loop did.
        waiting = [all(limits[rid]["loop"] == "waiting" for rid in ids) for _, ids in kept]
        at = waiting.index(True) if True in waiting else len(kept)
        sentences = [line for line, _ in kept]
        sentences.insert(at, _text(
            lang,
            f"{short[0]} needs {plural(limit['kv_blocks_needed'], 'new KV block')} with "
            f"{limit['kv_free_blocks']} free, so {_names(preempted, lang)} "
            f"{_verb(preempted, 'is', 'are')} preempted; {short[0]}'s n is not cut (a KV "
            "allocation is all or nothing).",
            f"{short[0]} 需要 {limit['kv_blocks_needed']} 个新 KV 块而空闲只有 "
            f"{limit['kv_free_blocks']} 个，于是抢占 {_names(preempted, lang)}；{short[0]} 的 n "
            "不会被缩小（KV 分配全有或全无）。",
        ))
    update = _update_sentence(record, lang, chosen or list(focus))
    if update:
        sentences.append(update)
    return [s for s in sentences if s]


def _bound_sentence(bound: str, got: bool, ids: list[str], limits: dict[str, dict[str, Any]],
                    record: dict[str, Any], lang: str) -> str:
    first = limits[ids[0]]
    demands = _numbers([limits[rid]["demand"] for rid in ids], lang)
    given = _numbers([limits[rid]["scheduled"] for rid in ids], lang)
    who = _names(ids, lang)
    note = localise_note(first.get("note") or "", lang)
    if bound == "demand" and got:
        gets = _verb(ids, "gets its", "get their")
        return _text(lang, f"{who} {gets} whole demand ({demands}): no limit is smaller.",
                     f"{who} 拿到了全部需求（{demands}）：没有哪个上限比需求更小。")
    if bound == "threshold":
        return _text(
            lang,
            f"{who}: the {_verb(ids, 'demand', 'demands')} ({demands}) "
            f"{_verb(ids, 'is', 'are')} above the long-prefill threshold {first['threshold']}, "
            f"so n is cut to {given}.",
            f"{who} 的需求（{demands}）超过长 prefill 阈值 {first['threshold']}，被截到 {given}。",
        )
    if bound in BUDGET_LIMITS and got:
        field, name = BUDGET_LIMITS[bound]
        left = _numbers([limits[rid][field] for rid in ids], lang)
        turn = _verb(ids, "is left at its turn, less than its demand",
                     "are left at their turns, less than their demands")
        return _text(lang, f"{who} {_verb(ids, 'is', 'are')} bound by {name}: only {left} "
                           f"{turn} ({demands}).",
                     f"{who} 受 {name} 约束：轮到它时只剩 {left}，少于需求（{demands}）。")
    if bound == "max_model_len" and got:
        room = _numbers([limits[rid]["max_model_len_room"] for rid in ids], lang)
        return _text(lang, f"{who} {_verb(ids, 'is', 'are')} bound by max_model_len − C − 1 = "
                           f"{room} (demand {demands}): room for the token this step samples.",
                     f"{who} 受 max_model_len − C − 1 = {room} 约束（需求 {demands}）："
                     "要给本步采样的 token 留一个位置。")
    if bound == "padding":
        short = _verb(ids, "is one token short and is", "are one token short and are")
        return _text(lang, f"{who} {short} padded to 1 + K = {given}.",
                     f"{who} 只差 1 个 token，被补齐到 1 + K = {given}。")
    if bound == "preempted":
        if len(ids) == 1 and first.get("kv_blocks_needed") is not None:
            need, free = first["kv_blocks_needed"], first["kv_free_blocks"]
            return _text(lang, f"{who} needs {plural(need, 'new KV block')} with {free} free and "
                               "is itself the victim: its KV blocks are freed and C drops to 0.",
                         f"{who} 需要 {need} 个新 KV 块而空闲只有 {free} 个，被抢占的正是它自己："
                         "KV 块被释放，C 归零。")
        if all(limits[rid]["loop"] == "running" for rid in ids):
            return _text(lang, f"{who} {_verb(ids, 'is', 'are')} preempted: "
                               f"{_verb(ids, 'its', 'their')} KV blocks are freed and C drops "
                               "to 0.",
                         f"{who} 被抢占：KV 块被释放，C 归零。")
        return _text(lang, f"{who} {_verb(ids, 'is', 'are')} not admitted: this step "
                           "preempted, so the waiting loop is skipped.",
                     f"{who} 没有被准入：本步发生了抢占，waiting 循环被跳过。")
    if bound == "kv":
        need = first.get("kv_blocks_needed")
        free = first.get("kv_free_blocks")
        blocks = _text(lang, f"; {plural(need, 'block')} needed, {free} free",
                       f"；需要 {need} 块，空闲 {free} 块") if need else ""
        return _text(lang, f"{who} {_verb(ids, 'gets', 'get')} nothing this step ({note}{blocks}).",
                     f"{who} 本步没有拿到 token（{note}{blocks}）。")
    # token_budget / input_budget with nothing given, seats, skipped: the note says why.
    reason = note or localise_note(BOUND_NAMES.get(bound, {}).get(lang, bound), lang)
    return _text(lang, f"{who} {_verb(ids, 'gets', 'get')} nothing this step ({reason}).",
                 f"{who} 本步没有拿到 token（{reason}）。")


def _update_sentence(record: dict[str, Any], lang: str, chosen: list[str]) -> str:
    update = record.get("update") or {}
    if not update:
        return ""
    parts: list[str] = []
    returned = update.get("returned") or {}
    rolled = update.get("rolled_back") or {}
    trimmed = update.get("trimmed") or {}
    reasons = update.get("finish_reasons") or {}
    plain = [(rid, returned[rid].get("sampled", 0)) for rid in chosen if rid in returned
             and not returned[rid].get("partial_prefill") and not rolled.get(rid)]
    plain = [(rid, sampled) for rid, sampled in plain if sampled]
    if plain:
        parts.append(_plain_returns(plain, lang))
    for rid in chosen:
        entry = record["requests"].get(rid) or {}
        after = entry.get("after_schedule") or {}
        got = returned.get(rid)
        if got is None:
            continue
        if got.get("partial_prefill"):
            parts.append(_text(lang, f"{rid} is mid-prefill and returns no token",
                               f"{rid} 还在 prefill 中间，没有返回 token"))
            continue
        sampled = got.get("sampled", 0)
        if rolled.get(rid):
            c1 = after.get("num_computed_tokens", 0)
            parts.append(_text(
                lang,
                f"{rid} returns {plural(sampled, 'token')} and its "
                f"{plural(rolled[rid], 'rejected draft')} {'rolls' if rolled[rid] == 1 else 'roll'}"
                f" C back from {c1} to {c1 - rolled[rid]}",
                f"{rid} 返回 {sampled} 个 token，被拒的 {rolled[rid]} 个草稿让 C 从 {c1} "
                f"回退到 {c1 - rolled[rid]}",
            ))
        if trimmed.get(rid):
            position = sampled - trimmed[rid]
            parts.append(_text(
                lang,
                f"{rid} stops at the {_ordinal(position)} returned token (counting from 1), so "
                f"the {plural(trimmed[rid], 'token')} after it "
                f"{'is' if trimmed[rid] == 1 else 'are'} dropped and C goes back with "
                f"{'it' if trimmed[rid] == 1 else 'them'}",
                f"{rid} 在返回的第 {position} 个 token（从 1 数起）处停止，其后的 {trimmed[rid]} "
                "个被丢弃，C 一起回退",
            ))
        if rid in reasons:
            parts.append(_text(lang, f"{rid} finishes ({reasons[rid]})",
                               f"{rid} 结束（{reasons[rid]}）"))
    if not parts:
        return ""
    return _text(lang, "At the output update, " + "; ".join(parts) + ".",
                 "输出更新时，" + "；".join(parts) + "。")


def _plain_returns(plain: list[tuple[str, int]], lang: str) -> str:
    """Say how many tokens the requests without rollback returned: "A and B return 1 token
    each" when the counts agree, one clause per request otherwise."""
    counts = {sampled for _, sampled in plain}
    if len(counts) == 1:
        ids = [rid for rid, _ in plain]
        count = counts.pop()
        each = " each" if len(ids) > 1 else ""
        return _text(lang, f"{_names(ids, 'en')} {_verb(ids, 'returns', 'return')} "
                           f"{plural(count, 'token')}{each}",
                     f"{_names(ids, 'zh')} {'各' if len(ids) > 1 else ''}返回 {count} 个 token")
    return _text(lang, "; ".join(f"{rid} returns {plural(n, 'token')}" for rid, n in plain),
                 "；".join(f"{rid} 返回 {n} 个 token" for rid, n in plain))


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def numbers_header(lang: str = "en") -> tuple[str, ...]:
    """Return the column names of a step's numbers table."""
    if lang == "zh":
        return ("请求", "循环", "需求", "n（验证的草稿）", "受谁约束",
                "C：调度前 → 调度后 → 更新后", "更新后 N")
    return ("request", "loop", "demand", "n (drafts verified)", "bound by",
            "C: before → after schedule → after update", "N after update")


def numbers_rows(record: dict[str, Any], lang: str = "en", focus: tuple[str, ...] = ()
                 ) -> list[tuple[str, ...]]:
    """Return the step's numbers, one row of cells per request (``numbers_header`` names
    the columns): the requests a limit was computed for, and the ones asked about."""
    schedule = record.get("schedule") or {}
    limits = schedule.get("limits") or {}
    spec = schedule.get("scheduled_spec_decode_tokens") or {}
    rows: list[tuple[str, ...]] = []
    for rid in [rid for rid in record.get("requests", {}) if rid in limits or rid in focus]:
        entry = record["requests"][rid]
        limit = limits.get(rid) or {}
        before = entry.get("before_schedule") or {}
        after_schedule = entry.get("after_schedule") or before
        after = entry.get("after_update") or after_schedule
        n = entry.get("num_scheduled_tokens", 0)
        verified = spec.get(rid, 0)
        count = len(verified) if isinstance(verified, list) else verified
        drafts = f" ({count})" if count else ""
        bound = BOUND_NAMES.get(limit.get("bound", ""), {}).get(lang, limit.get("bound", "—"))
        computed = (f"{before.get('num_computed_tokens', '—')} → "
                    f"{after_schedule.get('num_computed_tokens', '—')} → "
                    f"{after.get('num_computed_tokens', '—')}")
        rows.append((rid, str(limit.get("loop", "—")), str(limit.get("demand", "—")),
                     f"{n}{drafts}", bound or "—", computed, str(after.get("num_tokens", "—"))))
    return rows


def numbers_table(record: dict[str, Any], lang: str = "en", focus: tuple[str, ...] = ()) -> str:
    """Return the step's numbers as a small markdown table, one row per request."""
    header = numbers_header(lang)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in numbers_rows(record, lang, focus)]
    return "\n".join(lines)


def worked_solution(trace: dict[str, Any], step: int, lang: str = "en",
                    focus: tuple[str, ...] = ()) -> str:
    """Return a learner's worked solution of one step, as markdown.

    First two or three sentences on which limit bound which request and why, then the numbers
    as a small table, then the step-by-step ledger trace folded below (``::: details``).
    """
    record = find_step(trace, step)
    why = ("" if lang == "zh" else " ").join(why_sentences(record, lang, focus))
    title = _text(lang, f"The ledger, step by step (step {step})", f"逐步账本（第 {step} 步）")
    trace_lines = "\n".join(f"- {line.strip()}" for line in explain_step(trace, step, lang))
    parts = [why] if why else []
    if record.get("schedule") is not None:
        parts.append(numbers_table(record, lang, focus))
    parts.append(f"::: details {title}\n\n{trace_lines}\n\n:::")
    return "\n\n".join(parts)
