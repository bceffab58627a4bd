"""Hold the pages' interface text in Chinese (the lesson's language) and English.

The lesson text itself comes from the question bank; this is only the chrome around it: labels,
buttons, headings. ``say(key, lang)`` falls back to Chinese like ``bank.model.Text.get``.
"""

from __future__ import annotations

from datetime import timedelta

LANGS: tuple[str, ...] = ("zh", "en")

UI: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "site": ("vLLM 调度账本", "vLLM scheduling ledger"),
    "skip": ("跳到正文", "Skip to content"),
    # The lesson's reference pages (web/reference.py).
    "ref_reference": ("速查：形状与公式", "Quick reference: shapes and formulas"),
    "ref_glossary": ("术语表", "Glossary"),
    "ref_back": ("回到课文", "Back to the lesson"),
    "ref_taught_in": ("教它的规则", "Taught in"),
    "ref_flashcard": ("闪卡", "Flashcard"),
    "ref_card_back": ("答案", "Answer"),
    "ref_no_reference": ("这一课没有速查页。", "This lesson has no quick reference."),
    "ref_glossary_note": (
        "题目、选项与讲解里出现的每个术语：它的意思、课文里教它的规则，以及练它的闪卡。",
        "Every term the prompts, options and solutions use: what it means, the rule of the "
        "lesson that teaches it, and the flashcard that drills it."),
    "not_found_title": ("找不到这一页", "Page not found"),
    "not_found_text": ("这个地址没有页面。下面是可以去的地方。",
                       "There is no page at this address. Here is where you can go."),
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
    "start_here": ("从这里开始", "Start here"),
    "start_step_lesson": ("1. 读课文", "1. Read the lesson"),
    "start_step_lesson_why": ("每道题考的规则都在课文里讲过。",
                              "every rule the questions ask about is taught there."),
    "start_step_cards": ("2. 过一遍闪卡", "2. Go through the flashcards"),
    "start_step_cards_why": ("自评，不计入掌握。", "self-rated; they never count as mastery."),
    "start_step_quiz": ("3. 闭卷测验", "3. Take a closed-book quiz"),
    "start_step_quiz_why": ("答题期间课文关闭；掌握只来自这里。",
                            "the lesson is closed while you answer; mastery comes only from here."),
    "home_review_due": ("复习到期的 {due} 题", "Review {due} due"),
    "home_take_quiz": ("做一轮闭卷测验", "Take a closed-book quiz"),
    "home_nothing_due": ("现在没有到期的复习。", "Nothing is due for review now."),
    "home_counts": ("题目数量", "Questions"),
    "count_due": ("到期", "due"),
    "count_new": ("新题", "new"),
    "count_all": ("全部", "all"),
    "home_intro": (
        "围绕 vLLM 0.33.0 V1 调度器的 token 账本：读课文，闭卷答题，间隔复习，改变变量验证直觉。",
        "Study how vLLM 0.33.0's V1 scheduler keeps its token books: read the lesson, answer "
        "closed-book questions, review on a spaced schedule, change the variables and check "
        "your intuition.",
    ),
    # simulator
    "sim_title": ("改变变量，验证直觉", "Change the variables, check your intuition"),
    "sim_intro": (
        "设定每个请求在目标步开始时的状态（N = num_tokens，C = num_computed_tokens）和调度器参数；"
        "模拟器先加入预热步把请求带到这个状态，再用账本模型重放并逐步显示分配。",
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
    "sim_sync": ("同步（sync）", "synchronous (sync)"),
    "sim_async": ("异步（async，一步在途）", "asynchronous (async, one step in flight)"),
    "sim_result": ("结果", "Result"),
    "sim_stale": ("已过期：上面的设置有误，下面是上一次有效设置的结果。",
                  "Out of date: the settings above have errors; below is the result of the "
                  "last settings that could run."),
    "sim_target": ("目标步", "Target step"),
    "sim_target_note": ("你设定的那一步", "the step you set up"),
    "sim_warmup": ("预热步（构造上面的状态）", "Warm-up steps (they build the state above)"),
    "sim_after": ("之后的步", "The steps after"),
    "sim_scenario": ("发送给账本的场景（FORMAT.md）",
                     "The scenario sent to the ledger (FORMAT.md)"),
    "sim_errors": ("这些设置无法使用", "These settings cannot be used"),
    "sim_mismatch": (
        "预热没有完全构造出你设定的状态（常见原因：KV 块太少或 padding）；"
        "下表显示调度器实际做了什么：",
        "The warm-up did not build exactly the state you set (often: too few KV blocks, or "
        "padding); the table shows what the scheduler actually did:",
    ),
    "sim_async_note": (
        "异步调度：同一组到达和结果在一步在途的情况下运行。C 已包含在途位置，输出晚一步提交，"
        "所以目标步的 N 与 C 会与设定不同（不变式是 N + ph − C = 1）。",
        "Asynchronous scheduling: the same arrivals and outcomes run with one step in flight. "
        "C already counts in-flight positions and outputs are committed a step later, so N and "
        "C at the target step differ from the ones you set (the invariant is N + ph − C = 1).",
    ),
    "sim_js_note": (
        "启用 JavaScript 后，移动滑块会立即重新计算；没有 JavaScript 时点击“运行”。",
        "With JavaScript, moving a slider recomputes at once; without it, press Run.",
    ),
    "sim_filler": ("填充（仅预热）", "filler (warm-up only)"),
    "sim_allocation": ("分配", "Allocation"),
    "sim_total": ("合计", "total"),
    "sim_of_budget": ("token_budget", "token_budget"),
    "col_request": ("请求", "Request"),
    "col_loop": ("循环", "Loop"),
    "col_demand": ("需求", "Demand"),
    "col_scheduled": ("分配（其中 draft）", "Scheduled (drafts)"),
    "col_bound": ("约束", "Bound by"),
    "col_c": ("C 前 → 调度后 → 更新后", "C before → after schedule → after update"),
    "col_n": ("N 前 → 更新后", "N before → after update"),
    "col_gap": ("N − C（更新后）", "N − C (after update)"),
    "col_status": ("更新后状态", "Status after update"),
    "sim_picture": ("本步图示", "Picture of the step"),
    "seg_computed": ("步前已计算（C）", "computed before the step (C)"),
    "seg_scheduled": ("本步分配", "scheduled this step"),
    "seg_drafts": ("draft（保留）", "drafts kept"),
    "seg_rolled": ("draft（被拒绝回退）", "drafts rolled back"),
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
    # lesson
    "lessons_title": ("课文", "Lessons"),
    "lesson_read_note": (
        "打开课文会把你正在作答的题目标记为开卷：仍会评分，但不计入掌握。",
        "Opening the lesson marks any question you have open as open-book: it is still graded "
        "but does not count toward mastery.",
    ),
    "lesson_in_other": ("Read in English", "阅读中文原文（以中文为准）"),
    "sa_title": ("自评", "Self-assessment"),
    "sa_note_label": ("备注（可选）", "Note (optional)"),
    "sa_explain": (
        "只保存在这个浏览器；这是你自己的估计，不是掌握记录，也不会变成掌握记录。",
        "Saved for this browser only. It is your own estimate, not a mastery record, and it "
        "never becomes one.",
    ),
    "sa_current": ("当前自评：", "Your self-assessment:"),
    "sa_none": ("尚未自评", "not rated yet"),
    "sa_saved": ("已保存自评", "Self-assessment saved"),
    "sa_rating_1": ("1 还不会", "1 not yet"),
    "sa_rating_2": ("2 不稳", "2 shaky"),
    "sa_rating_3": ("3 大致会", "3 mostly"),
    "sa_rating_4": ("4 牢固", "4 solid"),
    "anchors_title": ("源码锚点（vLLM 0.33.0）", "Source anchors (vLLM 0.33.0)"),
    "anchors_note": (
        "按函数名定位，行号其次；行号来自 PyPI 上的 vLLM 0.33.0。",
        "Find them by function name first, lines second; the lines are vLLM 0.33.0 from PyPI.",
    ),
    "col_file": ("文件", "File"),
    "col_function": ("函数", "Function"),
    "col_lines": ("行", "Lines"),
    "col_questions": ("相关题目", "Questions"),
    "try_sim": ("在模拟器里改变这个例子的变量", "Change this example's variables in the simulator"),
    "open_sim": ("打开模拟器", "Open the simulator"),
    "sections_other": ("其它小节", "Other sections"),
    # study
    "quiz_intro": (
        "一次一题，作答时不显示课文。答错后要先写下原因，才会看到答案和解答。",
        "One question at a time; the lesson is not on screen. After a wrong answer you first "
        "write down why, then the answer and the worked solution appear.",
    ),
    "review_intro": (
        "先复习到期的题目，再学新题；数值题每次复习都换一组新数字。",
        "Due reviews first, then new questions; every review of a numeric question draws "
        "fresh numbers.",
    ),
    "flashcards_intro": (
        "看正面，回想，显示背面，再用四个按钮给自己打分。",
        "Read the front, recall, reveal the back, then rate yourself with the four buttons.",
    ),
    "field_lesson": ("课文", "Lesson"),
    "field_size": ("题数", "Number of questions"),
    "start": ("开始", "Start"),
    "due_counts": ("到期 {due} 题，新题 {new} 题", "{due} due, {new} new"),
    "question_of": ("第 {pos} 题，共 {total} 题", "Question {pos} of {total}"),
    "your_answer": ("你的答案", "Your answer"),
    "submit_answer": ("提交答案", "Submit answer"),
    "shortcuts": ("快捷键", "Keyboard"),
    "shortcut_enter": ("提交", "submits"),
    "shortcut_ratings": ("评分", "rate"),
    "shortcut_options": ("选择选项", "pick an option"),
    "position_none": ("选择位置", "choose a position"),
    "notice_answered_elsewhere": (
        "这道题已在另一个标签页作答；这是下一题。",
        "That question was answered in another tab; here is the next one."),
    "shortcut_explain": ("提交原因", "submits the explanation"),
    "choose_one": ("选择一项", "Choose one"),
    "choose_many": ("选择所有正确项", "Choose every right option"),
    "order_hint": ("给每一项选一个位置（1 = 最先）", "Give each item a position (1 = first)"),
    "position": ("位置", "Position"),
    "vector_hint": ("每个元素一个整数", "One whole number per element"),
    "params": ("参数", "Parameters"),
    "result_right": ("答对了", "Right"),
    "result_wrong": ("答错了", "Not right"),
    "by_section_title": ("按章节", "By section"),
    "col_section": ("章节", "Section"),
    "weakest_title": ("最常答错的题", "Answered wrong most often"),
    "weak_line": ("闭卷答对 {right} / {answers} 次", "{right} of {answers} right closed-book"),
    "weak_where": ("课文在这里讲它的规则", "where the lesson teaches its rule"),
    "history_title": ("最近 30 天的闭卷正确率", "Closed-book accuracy, last 30 days"),
    "calibration_well": ("你的自评很能预测闭卷结果。", "Your self-assessments predict your "
                         "closed-book results well."),
    "calibration_fairly": ("你的自评大致能预测闭卷结果。", "Your self-assessments roughly "
                           "predict your closed-book results."),
    "calibration_poorly": ("你的自评很少能预测闭卷结果。", "Your self-assessments say little "
                           "about your closed-book results."),
    "calibration_overconfident": (
        "自评为“{rating}”时，你只答对了 {observed}%（这个自评意味着约 {predicted}%）。",
        "Where you rate yourself “{rating}” you answer {observed}% right (that rating claims "
        "about {predicted}%)."),
    "answer_unreadable": ("这个答案读不懂：", "This answer could not be read:"),
    "reason_not_integer": ("请填一个整数", "one whole number per box"),
    "reason_too_large": ("太大：最多 18 位数字", "too large: at most 18 digits"),
    "reason_empty": ("还没有填", "nothing entered yet"),
    "reason_vector_length": ("需要 {length} 个数，收到 {got} 个",
                             "expected {length} numbers, got {got}"),
    "reason_not_a_list": ("每格填一个整数", "one whole number per box"),
    "reason_unknown_option": ("没有这个选项", "not one of the options"),
    "reason_one_option": ("只选一项", "choose one option"),
    "reason_position_range": ("选择 1 到 {max} 之间的位置", "choose a position from 1 to {max}"),
    "reason_position_twice": ("每一项要选不同的位置", "give every item a different position"),
    "reason_order_incomplete": ("把每一项都排进顺序里", "put every item in the order"),
    "undo_rating": ("撤销刚才的评分", "Undo the last rating"),
    "undo_rating_note": ("回到上一题，重新评分。", "back to the last question, to rate it again."),
    "wrong_model_heading": ("你的模型错在哪里", "Where your model went wrong"),
    "wrong_model_yours": ("你的答案", "Your answer"),
    "wrong_model_value": ("数值", "Value"),
    "wrong_model_vllm": ("vLLM 0.33.0 调度器", "vLLM 0.33.0's scheduler"),
    "wrong_model_breaks": ("它违反的规则：", "The rule it breaks:"),
    "parts_right": ("{total} 项中对了 {right} 项", "{right} of {total} right"),
    "your_answer_was": ("你的答案：", "Your answer:"),
    "result_recorded": ("已记录", "Recorded"),
    "elements_right": ("逐项：", "Element by element:"),
    "el_right": ("对", "right"),
    "el_wrong": ("错", "wrong"),
    "explain_prompt": (
        "先写下你认为自己错在哪里；提交后才显示答案、解答和误解反馈。",
        "First write down where you think you went wrong; the answer, the worked solution and "
        "the misconception feedback appear once you have.",
    ),
    "explain_label": ("你错在哪里？", "Why was it wrong?"),
    "explain_heading": ("先解释，再看答案", "Explain first, then see the answer"),
    "explain_submit": ("提交解释，查看答案", "Submit and see the answer"),
    "your_explanation": ("你的解释", "Your explanation"),
    "reveal_answer": ("正确答案", "Correct answer"),
    "reveal_solution": ("解答", "Worked solution"),
    "reveal_misconception": (
        "你的答案符合一个常见误解：",
        "Your answer matches a known misconception:",
    ),
    "reopen_lesson": ("重新打开这一课", "Reopen the lesson"),
    "rate_prompt": ("这题对你有多难？", "How hard was it?"),
    "rate_again": ("重来", "Again"),
    "rate_hard": ("困难", "Hard"),
    "rate_good": ("良好", "Good"),
    "rate_easy": ("简单", "Easy"),
    "rated_as": ("评分：", "Rated:"),
    "wrong_is_again": ("答错的题按“重来”安排复习。", "A wrong answer is reviewed as Again."),
    "next_question": ("下一题", "Next question"),
    "session_done": ("本轮完成", "Session complete"),
    "session_summary": ("共 {total} 题，已答 {answered} 题。", "{answered} of {total} answered."),
    "no_questions": ("现在没有可练习的题目。", "Nothing to practise right now."),
    "session_score": ("答对 {right} / {graded} 题", "{right} of {graded} right"),
    "summary_question": ("题目", "Question"),
    "summary_result": ("结果", "Result"),
    "summary_mastery": ("掌握", "Mastery"),
    "summary_unanswered": ("未作答", "not answered"),
    "summary_rated": ("已自评", "self-rated"),
    "summary_right": ("答对", "right"),
    "summary_wrong": ("答错", "wrong"),
    "summary_explain_first": ("先写原因才能看答案", "explain it to see the answer"),
    "summary_open_book": ("开卷", "open-book"),
    "summary_mastered_now": ("本轮掌握", "mastered now"),
    "summary_counts": (
        "计入掌握：隔天再用另一组数字答对一次即掌握",
        "counts toward mastery: one more right answer, on another day with other numbers"),
    "summary_not_yet": ("尚未", "not yet"),
    "retry_mistakes": ("现在复习我的 {count} 道错题", "Review my {count} mistakes now"),
    "next_due": ("下次复习", "Next review due"),
    "mastered_now": ("本轮新掌握 {count} 题。", "{count} mastered in this session."),
    "open_book_note": (
        "这次作答时打开过课文（开卷）：照常评分，但不计入掌握。",
        "The lesson was opened while this question was open (open-book): graded as usual, but "
        "it does not count toward mastery.",
    ),
    "card_front": ("正面", "Front"),
    "card_back": ("背面", "Back"),
    "card_reveal": ("显示背面", "Reveal the back"),
    "text_answer": ("用自己的话回答", "Answer in your own words"),
    "text_not_graded": (
        "自由作答不自动评分；请自己评分。",
        "Free text is not auto-graded: rate yourself.",
    ),
    "back_to_start": ("返回", "Back"),
    # progress
    "progress_intro": (
        "到期、掌握和准确率来自评分记录；自评只出现在校准表里，从不算作掌握。",
        "Due, mastered and accuracy come from graded records; self-assessments appear only in "
        "the calibration table and never count as mastery.",
    ),
    "due_today": ("今天到期", "Due today"),
    "due_now": ("现在到期", "Due now"),
    "new_cards": ("新题", "New"),
    "mastered": ("已掌握", "Mastered"),
    "accuracy": ("准确率", "Accuracy"),
    "accuracy_closed": ("闭卷准确率", "Closed-book accuracy"),
    "of": ("/", "of"),
    "forecast_title": ("未来 30 天到期", "Due over the next 30 days"),
    "forecast_table": ("以表格查看", "As a table"),
    "col_day": ("日期（UTC）", "Day (UTC)"),
    "col_count": ("到期数", "Due"),
    "calibration_title": (
        "校准：自评与评分结果",
        "Calibration: self-assessment against graded results",
    ),
    "calibration_note": (
        "每次对已自评题目的评分作答算一对（自评概率，结果）。只读：不写入任何记录。",
        "Each graded answer to a self-assessed question is one (claimed probability, result) "
        "pair. Read-only: it writes no record.",
    ),
    "col_rating": ("自评", "Self-assessment"),
    "col_predicted": ("自评代表的概率", "Claimed probability"),
    "col_attempts": ("评分作答数", "Graded answers"),
    "col_observed": ("实际正确率", "Observed accuracy"),
    "brier": ("Brier 分数（0 最好）", "Brier score (0 is perfect)"),
    "mastered_list": ("掌握记录", "Mastery records"),
    "mastered_yes": ("已掌握", "mastered"),
    "mastered_lapsed": ("已失效", "lapsed"),
    "none_yet": ("暂无", "none yet"),
    "col_question": ("题目", "Question"),
    "col_state": ("状态", "State"),
    "col_since": ("时间", "Since"),
    # desired retention and FSRS parameters (progress page)
    "retention_title": ("目标记忆保持率", "Desired retention"),
    "retention_note": (
        "复习的安排让卡片到期时你仍有这个概率记得它。调低：间隔更长，忘得更多；调高：复习更频繁。"
        "改动会立即按你的复习记录重新安排所有卡片，上面的到期预测随之改变；它只影响到期时间，"
        "从不影响掌握记录。",
        "Reviews are scheduled so that when a card falls due you still recall it with this "
        "probability. Lower: longer intervals, more forgetting; higher: more frequent "
        "reviews. A change reschedules all your cards from your review log at once, and the "
        "forecast above follows; it moves due dates only, never mastery.",
    ),
    "retention_label": ("目标保持率（0.70–0.97）", "Desired retention (0.70–0.97)"),
    "retention_save": ("保存并重新安排", "Save and reschedule"),
    "retention_saved": ("已保存。重新安排的卡片：", "Saved. Cards rescheduled:"),
    "params_title": ("安排复习的 FSRS 参数", "The FSRS parameters that schedule your reviews"),
    "params_note": (
        "管理员运行 quizsvc fsrs optimize 时，参数会按所有学习者的复习记录拟合；"
        "复习记录足够多的学习者会得到自己的参数。",
        "When quizsvc fsrs optimize runs, the parameters are fitted to all learners' "
        "reviews; a learner whose own log is large enough gets parameters of their own.",
    ),
    "params_default": ("FSRS 默认参数", "fsrs's default parameters"),
    "params_everyone": ("按所有学习者的复习拟合", "fitted to all learners' reviews"),
    "params_own": ("按你自己的复习拟合", "fitted to your own reviews"),
    "col_lesson": ("课", "Lesson"),
    "col_params": ("参数", "Parameters"),
    "col_fitted": ("拟合时间", "Fitted"),
    "col_reviews": ("复习数", "Reviews"),
    "col_log_loss": ("log loss（默认参数）", "Log loss (defaults)"),
    # the Anki deck
    "anki_link": ("下载为 Anki 卡组", "Download as an Anki deck"),
    "anki_title": ("Anki 卡组", "Anki deck"),
    "anki_intro": (
        "把这一课的闪卡、术语、概念题和数值例题带进 Anki。每张笔记都有中文和英文字段，"
        "下载时选择卡面显示的语言。",
        "Take this lesson's flashcards, glossary terms, concept checks and worked examples "
        "into Anki. Every note holds Chinese and English fields; choose which the cards show "
        "when you download.",
    ),
    "anki_mastery": (
        "在 Anki 里学习的内容不会回传到这里，也不会成为掌握记录："
        "掌握只来自本站服务器评分的闭卷作答。",
        "Nothing you study in Anki comes back here or becomes mastery: mastery is earned only "
        "by closed-book answers this site's server grades.",
    ),
    "anki_open_book": (
        "卡组里有答案：下载它会把你这一课已出题、未作答的题目记为开卷，和阅读课文一样。",
        "The deck holds the answers: downloading it turns this lesson's questions you have "
        "open (served, not yet answered) open-book, as reading the lesson does.",
    ),
    "anki_worked": (
        "Anki 不能生成新数字，所以每道数值题以几道固定数字的例题收入，并标上 "
        "quizsvc::worked-example 标签；在这里复习时每次都会换数字。",
        "Anki cannot draw new numbers, so each numeric question goes in as a few worked "
        "examples with fixed numbers, tagged quizsvc::worked-example; here every review "
        "draws new ones.",
    ),
    "anki_update": (
        "以后再导入新下载的卡组，会更新已导入的笔记而不会重复，Anki 里的复习进度也会保留。",
        "Importing a newer download later updates the notes you imported instead of "
        "duplicating them, and keeps your Anki study history.",
    ),
    "anki_download": ("下载", "Download"),
    "anki_lang_zh": ("中文卡面", "Chinese cards"),
    "anki_lang_en": ("英文卡面", "English cards"),
    "anki_lang_both": ("中英双语卡面", "Chinese and English cards"),
    "anki_deck_name": ("卡组名", "Deck name"),
    "anki_col_kind": ("笔记类型", "Kind of note"),
    "anki_col_notes": ("笔记数", "Notes"),
    "anki_kind_flashcard": ("闪卡", "Flashcards"),
    "anki_kind_glossary": ("术语", "Glossary terms"),
    "anki_kind_concept-check": ("概念题", "Concept checks"),
    "anki_kind_worked-example": ("数值例题（固定数字）", "Worked examples (fixed numbers)"),
    # link
    "link_intro": (
        "在另一个浏览器继续学习：在这里生成一次性代码，在另一个浏览器输入它。",
        "Study in another browser too: make a one-time code here and enter it in the other "
        "browser.",
    ),
    "link_show": ("生成代码", "Show a code"),
    "link_show_help": (
        "代码只能用一次，几分钟后过期。",
        "The code works once and expires within minutes.",
    ),
    "link_code_is": ("你的一次性代码", "Your one-time code"),
    "link_expires": ("过期时间", "Expires"),
    "link_enter": ("输入代码", "Enter a code"),
    "link_code_label": ("另一个浏览器显示的代码", "The code the other browser shows"),
    "gate_title": ("先回答，还是翻开书？", "Answer first, or open the book?"),
    "gate_lesson_body": (
        "你在「{lesson}」中还有 {open} 道闭卷题没有作答。现在阅读本课会把它们变为开卷题。",
        "You have {open} closed-book question(s) of “{lesson}” still open. Reading the lesson "
        "now makes them open-book.",
    ),
    "gate_sandbox_body": (
        "你还有 {open} 道闭卷题没有作答。模拟器能重放任何数值题，现在使用它会把这些题变为开卷题。",
        "You have {open} closed-book question(s) still open. The simulator can replay any "
        "numeric question, so using it now makes them open-book.",
    ),
    "gate_why": (
        "开卷题照常评分，但不计入掌握：掌握只来自闭卷作答。",
        "Open-book answers are graded as usual but never count toward mastery: mastery "
        "comes only from closed-book answers.",
    ),
    "gate_back": ("回到我的题目", "Back to my question"),
    "gate_open_lesson": ("翻开书（这些题变为开卷）", "Open the book (they become open-book)"),
    "gate_open_sandbox": ("使用模拟器（这些题变为开卷）",
                          "Use the simulator (they become open-book)"),
    "link_leave_warning": (
        "这个浏览器有自己的 {answers} 个作答记录。关联到另一个学习者后，"
        "这些记录将不再属于任何浏览器。请先导出，或确认放弃它们。",
        "This browser holds {answers} answers of its own. Linked to another learner, they would "
        "belong to no browser any more. Export them first, or confirm that you leave them behind.",
    ),
    "link_leave_export": ("先导出我的数据", "Export my data first"),
    "link_leave_button": ("仍然关联（放弃这些记录）", "Link anyway (leave them behind)"),
    "link_enter_button": ("关联这个浏览器", "Link this browser"),
    "link_done": (
        "已关联：这个浏览器现在和发出代码的学习者共享进度。",
        "Linked: this browser now shares progress with the learner who made the code.",
    ),
    "linked_already": (
        "这个学习者已关联多个浏览器。",
        "This learner already uses more than one browser.",
    ),
    # errors
    "error_title": ("出错了", "Something went wrong"),
    "error_back": ("返回首页", "Back to the start page"),
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
        "长 prefill 阈值（0 = 关）", "long_prefill_token_threshold (0 = off)"),
    "block_size": ("block_size", "block_size"),
    "num_gpu_blocks": ("num_gpu_blocks（含 1 个空块）", "num_gpu_blocks (one is the null block)"),
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


# Units of the next-review interval on the rating buttons: (seconds, zh, en).
INTERVAL_UNITS: tuple[tuple[int, str, str], ...] = (
    (365 * 86400, "年", "y"), (30 * 86400, "个月", "mo"), (86400, "天", "d"),
    (3600, "小时", "h"), (60, "分钟", "min"))


def interval_text(delta: timedelta, lang: str) -> str:
    """Write an interval the way Anki's buttons do: "<1 min", "10 min", "3 d", "1.5 mo"."""
    seconds = delta.total_seconds()
    for size, zh, en in INTERVAL_UNITS:
        if seconds >= size:
            amount = seconds / size
            number = f"{amount:.1f}".rstrip("0").rstrip(".") if size >= 30 * 86400 else (
                str(round(amount)))
            return f"{number} {zh}" if lang == "zh" else f"{number} {en}"
    return "<1 分钟" if lang == "zh" else "<1 min"
