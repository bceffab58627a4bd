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
            f"KV needs {limit['kv_blocks_needed']} blocks, {limit['kv_free_blocks']} free",
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
        lines.append(_text(
            lang,
            f"num_scheduled_tokens = {schedule['num_scheduled_tokens']}, total {total}; "
            f"drafts verified = {schedule['scheduled_spec_decode_tokens']}.",
            f"num_scheduled_tokens = {schedule['num_scheduled_tokens']}，合计 {total}；"
            f"被验证的草稿数 = {schedule['scheduled_spec_decode_tokens']}。",
        ))
        if schedule.get("preempted_ids"):
            lines.append(_text(
                lang, f"Preempted: {schedule['preempted_ids']}; no admissions this step.",
                f"被抢占：{schedule['preempted_ids']}；本步不再接纳 waiting 请求。",
            ))
    for change in ledger_changes(record, lang):
        arrow = ""
        if change.before is not None or change.after is not None:
            arrow = f" {change.before} -> {change.after}"
        lines.append(f"  [{change.phase}] {change.request_id}.{change.field}{arrow}: {change.why}")
    update = record.get("update")
    if update is not None and update.get("finished_ids"):
        lines.append(_text(
            lang, f"Finished: {update['finish_reasons']}.", f"结束：{update['finish_reasons']}。"
        ))
    return lines
