"""Hold the pages' interface text in Chinese (the lesson's language) and English.

The lesson text itself comes from the question bank; this is only the chrome around it: labels,
buttons, headings. ``say(key, lang)`` falls back to Chinese like ``bank.model.Text.get``.
"""

from __future__ import annotations

LANGS: tuple[str, ...] = ("zh", "en")

UI: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "site": ("vLLM 调度账本", "vLLM scheduling ledger"),
    "skip": ("跳到正文", "Skip to content"),
    "nav": ("主导航", "Main navigation"),
    "home": ("首页", "Home"),
    "lesson": ("课文", "Lesson"),
    "quiz": ("闭卷测验", "Closed-book quiz"),
    "review": ("复习", "Review"),
    "flashcards": ("闪卡", "Flashcards"),
    "simulator": ("模拟器", "Simulator"),
    "progress": ("进度", "Progress"),
    "link": ("关联另一浏览器", "Link another browser"),
    "switch_lang": ("English", "中文"),
    "switch_lang_label": ("Switch to English", "切换到中文"),
    "home_intro": (
        "围绕 vLLM 0.33.0 V1 调度器的 token 账本:读课文,闭卷答题,间隔复习,改变变量验证直觉。",
        "Study how vLLM 0.33.0's V1 scheduler keeps its token books: read the lesson, answer "
        "closed-book questions, review on a spaced schedule, change the variables and check "
        "your intuition.",
    ),
    # simulator
    "sim_title": ("改变变量,验证直觉", "Change the variables, check your intuition"),
    "sim_intro": (
        "设定每个请求在目标步开始时的状态(N = num_tokens,C = num_computed_tokens)和调度器参数;"
        "模拟器先加入预热步把请求带到这个状态,再用账本模型重放并逐步显示分配。",
        "Set each request's state at the start of the target step (N = num_tokens, "
        "C = num_computed_tokens) and the scheduler's knobs; the simulator adds warm-up steps "
        "that bring the requests into that state, replays it through the ledger model and "
        "shows the allocation step by step.",
    ),
    "sim_presets": ("课文中的例子", "The lesson's examples"),
    "sim_budgets": ("预算", "Budgets"),
    "sim_kv": ("KV 缓存与模型长度", "KV cache and model length"),
    "sim_spec": ("投机解码", "Speculative decoding"),
    "sim_sched": ("调度方式", "Scheduling"),
    "sim_requests": ("请求", "Requests"),
    "sim_request": ("请求", "Request"),
    "sim_run": ("运行", "Run"),
    "sim_state": ("状态", "State"),
    "state_off": ("不参与", "not in the scenario"),
    "state_running": ("running", "running"),
    "state_waiting": ("waiting", "waiting"),
    "sim_sync": ("同步 (sync)", "synchronous (sync)"),
    "sim_async": ("异步 (async,一步在途)", "asynchronous (async, one step in flight)"),
    "sim_result": ("结果", "Result"),
    "sim_target": ("目标步", "Target step"),
    "sim_target_note": ("你设定的那一步", "the step you set up"),
    "sim_warmup": ("预热步(构造上面的状态)", "Warm-up steps (they build the state above)"),
    "sim_after": ("之后的步", "The steps after"),
    "sim_scenario": ("发送给账本的场景 (FORMAT.md)", "The scenario sent to the ledger (FORMAT.md)"),
    "sim_errors": ("这些设置无法使用", "These settings cannot be used"),
    "sim_mismatch": (
        "预热没有完全构造出你设定的状态(常见原因:KV 块太少或 padding);下表显示调度器实际做了什么:",
        "The warm-up did not build exactly the state you set (often: too few KV blocks, or "
        "padding); the table shows what the scheduler actually did:",
    ),
    "sim_async_note": (
        "异步调度:同一组到达和结果在一步在途的情况下运行。C 已包含在途位置,输出晚一步提交,"
        "所以目标步的 N 与 C 会与设定不同(不变式是 N + ph − C = 1)。",
        "Asynchronous scheduling: the same arrivals and outcomes run with one step in flight. "
        "C already counts in-flight positions and outputs are committed a step later, so N and "
        "C at the target step differ from the ones you set (the invariant is N + ph − C = 1).",
    ),
    "sim_js_note": (
        "启用 JavaScript 后,移动滑块会立即重新计算;没有 JavaScript 时点击“运行”。",
        "With JavaScript, moving a slider recomputes at once; without it, press Run.",
    ),
    "sim_filler": ("填充(仅预热)", "filler (warm-up only)"),
    "sim_allocation": ("分配", "Allocation"),
    "sim_total": ("合计", "total"),
    "sim_of_budget": ("token_budget", "token_budget"),
    "col_request": ("请求", "Request"),
    "col_loop": ("循环", "Loop"),
    "col_demand": ("需求", "Demand"),
    "col_scheduled": ("分配 (其中 draft)", "Scheduled (drafts)"),
    "col_bound": ("约束", "Bound by"),
    "col_c": ("C 前 → 调度后 → 更新后", "C before → after schedule → after update"),
    "col_n": ("N 前 → 更新后", "N before → after update"),
    "col_gap": ("N − C(更新后)", "N − C (after update)"),
    "col_status": ("更新后状态", "Status after update"),
    "sim_picture": ("本步图示", "Picture of the step"),
    "seg_computed": ("步前已计算 (C)", "computed before the step (C)"),
    "seg_scheduled": ("本步分配", "scheduled this step"),
    "seg_drafts": ("draft(保留)", "drafts kept"),
    "seg_rolled": ("draft(被拒绝回退)", "drafts rolled back"),
    "seg_unscheduled": ("未分配的需求", "demand left unscheduled"),
    "bound_demand": ("需求本身", "its demand"),
    "bound_threshold": ("长 prefill 阈值", "long-prefill threshold"),
    "bound_token_budget": ("token_budget", "token_budget"),
    "bound_input_budget": ("input_budget − draft_slots", "input_budget − draft_slots"),
    "bound_max_model_len": ("max_model_len 余量", "max_model_len room"),
    "bound_kv": ("KV 缓存", "KV cache"),
    "bound_seats": ("max_num_seqs 座位", "max_num_seqs seats"),
    "bound_preempted": ("被抢占", "preempted"),
    "bound_skipped": ("跳过", "skipped"),
    "bound_not eligible": ("不参与本步", "not eligible"),
    "no_schedule": ("本步没有调用 schedule()", "schedule() was not called in this step"),
    "legend": ("图例", "Legend"),
    "step": ("步", "Step"),
    "none": ("—", "—"),
}

# The simulator's fields: (zh, en) labels, with the vLLM names kept verbatim.
FIELD_LABELS: dict[str, tuple[str, str]] = {
    "token_budget": (
        "token_budget(max_num_scheduled_tokens)", "token_budget (max_num_scheduled_tokens)"),
    "input_budget": (
        "input_budget(max_num_batched_tokens)", "input_budget (max_num_batched_tokens)"),
    "long_prefill_token_threshold": (
        "长 prefill 阈值(0 = 关)", "long_prefill_token_threshold (0 = off)"),
    "block_size": ("block_size", "block_size"),
    "num_gpu_blocks": ("num_gpu_blocks(含 1 个空块)", "num_gpu_blocks (one is the null block)"),
    "max_model_len": ("max_model_len", "max_model_len"),
    "num_speculative_tokens": ("K(num_speculative_tokens)", "K (num_speculative_tokens)"),
    "spec_method": ("投机方法", "spec_method"),
    "accepted": ("每步接受的 draft 数", "accepted drafts per step"),
    "scheduling": ("调度方式", "scheduling"),
    "steps_after": ("目标步之后再显示几步", "steps to show after the target step"),
    "state": ("状态", "state"),
    "num_tokens": ("N(num_tokens)", "N (num_tokens)"),
    "num_computed_tokens": ("C(num_computed_tokens)", "C (num_computed_tokens)"),
    "drafts": ("draft 数", "drafts"),
}


def pick_lang(value: str | None) -> str:
    """Return a supported language code, defaulting to Chinese (the lesson's own language)."""
    return value if value in LANGS else "zh"


def say(key: str, lang: str) -> str:
    """Return interface text ``key`` in ``lang`` (Chinese when English is missing)."""
    zh, en = UI.get(key) or FIELD_LABELS.get(key) or (key, key)
    return en if lang == "en" else zh


def field_label(name: str, lang: str) -> str:
    """Return the label of simulator field ``name`` (``A.num_tokens`` -> its N label)."""
    key = name.split(".")[-1]
    zh, en = FIELD_LABELS.get(key, (key, key))
    return en if lang == "en" else zh
