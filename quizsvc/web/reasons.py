"""Show the service's English validation reasons in Chinese on Chinese pages.

The JSON API keeps its English messages (clients and tests rely on them); only the pages
translate, and only the reasons a learner commonly meets: the study flow's, the answer
parser's, the forms', link codes', the simulator's own checks and marshmallow's stock
messages. Field names stay as they are (``answer``, ``B.num_computed_tokens``). A reason
missing from ``REASONS_ZH`` is shown in English, as sent; so are the ledger's scenario
reasons (the simulator's own checks catch almost every setting first) and the longer
warm-up explanations of the simulator.

Each pattern must match the whole reason and is written so that Python's ``re`` and
JavaScript's ``RegExp`` read it alike (``site.js`` applies the same table to JSON errors):
plain characters, escapes and numbered groups only. ``$1``.. in a rendering stand for the
groups, each rendered again in turn (``element 2: expected an integer, got 'x'``).
"""

from __future__ import annotations

import re
from functools import cache

REASONS_ZH: tuple[tuple[str, str], ...] = (
    # "field: reason", the one-line message of a validation error
    (r"([\w.\-\[\]]+): (.+)", "$1:$2"),
    # study flow (quizsvc.api.services.study)
    (r"must be one of (.+)", "必须是以下之一:$1"),
    (r"must be between (-?\d+) and (-?\d+)", "必须在 $1 到 $2 之间"),
    (r"must be between (-?\d+) and (-?\d+), got (.+)", "必须在 $1 到 $2 之间,收到的是 $3"),
    (r"must be a whole number", "必须是整数"),
    (r"must be a whole number, got (.+)", "必须是整数,收到的是 $1"),
    (r"unknown lesson", "没有这一课"),
    (r"unknown field", "未知的字段"),
    (r"unknown key", "未知的字段"),
    (r"required, 1\.\.(\d+) characters", "必填,1 到 $1 个字符"),
    (r"already used for a different request", "已用于另一个请求"),
    (r"a flashcard takes no answer: send null, then rate it",
     "闪卡不需要作答:翻到背面后自评"),
    (r"expected your explanation as non-empty text", "请用文字写下你的解释"),
    (r"at most (\d+) characters", "最多 $1 个字符"),
    (r"write why the answer was wrong", "请写下答案错在哪里"),
    (r"must be 1 \(not yet\) \.\. 4 \(solid\)", "必须是 1(还不会)到 4(很扎实)"),
    # the desired retention (quizsvc.review.scheduling)
    (r"desired retention must be between (\d\.\d+) and (\d\.\d+), got (.+)",
     "目标保持率必须在 $1 到 $2 之间,收到的是 $3"),
    (r"desired retention must be a number, got (.+)", "目标保持率必须是数字,收到的是 $1"),
    # the answer parser (quizsvc.bank.grading)
    (r"expected an integer, got true/false", "需要一个整数,收到的是 true/false"),
    (r"expected an integer, got (.+)", "需要一个整数,收到的是 $1"),
    (r"expected a list of integers like \[1, 6, 1\]", "需要一组整数,例如 [1, 6, 1]"),
    (r"expected (\d+) integers, got (\d+)", "需要 $1 个整数,收到 $2 个"),
    (r"element (\d+): (.+)", "第 $1 项:$2"),
    (r"expected a list of option ids", "需要一组选项"),
    (r"unknown option (.+)", "没有选项 $1"),
    (r"an option is listed twice", "同一个选项出现了两次"),
    (r"expected one option id", "请选择一个选项"),
    (r"expected all (\d+) items in order", "需要把全部 $1 项排好顺序"),
    (r"expected a non-empty explanation", "请写下你的解释"),
    (r"an explanation is at most (\d+) characters", "解释最多 $1 个字符"),
    (r"expected a rating: again, hard, good or easy \(1-4\)",
     "需要一个自评:again、hard、good 或 easy(1-4)"),
    (r"a rating is 1 \(again\) to 4 \(easy\)", "自评是 1(重来)到 4(简单)"),
    # the question forms (quizsvc.web.forms)
    (r"choose a position from 1 to (\d+)", "请选择 1 到 $1 之间的位置"),
    (r"give every item a different position", "每一项的位置必须不同"),
    # link codes
    (r"not a link code", "这不是关联代码"),
    (r"unknown link code", "没有这个关联代码"),
    # the simulator's checks (quizsvc.web.simulator) and the ledger's common ones
    (r"must be an integer", "必须是整数"),
    (r"must be true or false", "必须是 true 或 false"),
    (r"cannot exceed K \(num_speculative_tokens = (\d+)\)",
     "不能超过 K(num_speculative_tokens = $1)"),
    (r"eagle_parallel needs K of at least 2", "eagle_parallel 需要 K 至少为 2"),
    (r"cannot exceed input_budget \(max_num_batched_tokens\)",
     "不能超过 input_budget(max_num_batched_tokens)"),
    (r"at least one request must be running or waiting",
     "至少要有一个请求处于 running 或 waiting"),
    (r"must be below max_model_len \((\d+)\)", "必须小于 max_model_len($1)"),
    (r"a waiting request carries no drafts", "waiting 请求不带 draft"),
    (r"a running request has N of at least 2", "running 请求的 N 至少为 2"),
    (r"a running request has 1 <= C <= N - 1 before the step \(C = N - 1 is a decode\)",
     "running 请求在这一步之前满足 1 <= C <= N - 1(C = N - 1 即 decode)"),
    (r"drafts need K \(num_speculative_tokens\) > 0", "有 draft 需要 K(num_speculative_tokens)> 0"),
    (r"cannot exceed K \((\d+)\)", "不能超过 K($1)"),
    (r"only a decoding request \(C = N - 1\) carries drafts",
     "只有 decode 中的请求(C = N - 1)才带 draft"),
    (r"too long for the warm-up", "对预热步来说太长"),
    # marshmallow's stock messages (JSON bodies the pages' scripts send)
    (r"Missing data for required field\.", "缺少必填字段。"),
    (r"Unknown field\.", "未知的字段。"),
    (r"Field may not be null\.", "不能为空。"),
    (r"Not a valid integer\.", "不是有效的整数。"),
    (r"Not a valid string\.", "不是有效的字符串。"),
    (r"Must be one of: (.+)\.", "必须是以下之一:$1。"),
    (r"Length must be between (\d+) and (\d+)\.", "长度必须在 $1 到 $2 之间。"),
    (r"Must be greater than or equal to (-?\d+) and less than or equal to (-?\d+)\.",
     "必须在 $1 到 $2 之间。"),
    # service messages shown on the error page
    (r"No such session\.", "没有这一轮学习。"),
    (r"No such attempt\.", "没有这次作答。"),
    (r"No such variant\.", "没有这道题。"),
    (r"This variant was already answered; fetch the next question\.",
     "这道题已经答过了;请继续下一题。"),
    (r"The question bank changed since this variant was served; fetch the next question "
     r"again\.", "出题后题库已更新;请重新取下一题。"),
    (r"This session's next question is no longer in the bank; start a new session\.",
     "这一轮的下一题已不在题库中;请开始新的一轮。"),
    (r"Only a wrong graded answer takes an explanation\.", "只有答错的评分题需要解释。"),
    (r"This attempt already has an explanation\.", "这次作答已经写过解释。"),
    (r"A wrong answer is reviewed Again; it cannot be rated higher\.",
     "答错的题按“重来”复习,不能评得更高。"),
    (r"A right answer is rated Hard, Good or Easy\.", "答对的题评为困难、良好或简单。"),
    (r"This card was reviewed again since; that rating can no longer change\.",
     "这张卡之后又复习过了,这次的自评不能再改。"),
    (r"This link code was already used\.", "这个关联代码已经用过了。"),
    (r"This link code has expired\.", "这个关联代码已过期。"),
    (r"Missing or wrong CSRF token: .+", "表单令牌缺失或不匹配:请刷新页面后再试。"),
)

GROUP = re.compile(r"\$(\d)")


@cache
def compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Return the table with its patterns compiled."""
    return tuple((re.compile(pattern), rendering) for pattern, rendering in REASONS_ZH)


def reason_in(reason: str, lang: str) -> str:
    """Return ``reason`` as shown on a page in ``lang``: Chinese when the table knows it."""
    if lang == "en":
        return reason
    text = str(reason)
    for pattern, rendering in compiled():
        found = pattern.fullmatch(text)
        if found:
            return render(rendering, found.groups(), lang)
    return text


def render(rendering: str, parts: tuple[str | None, ...], lang: str) -> str:
    """Fill a rendering's ``$n`` with its groups, each rendered in ``lang`` in turn."""
    return GROUP.sub(lambda ref: reason_in(parts[int(ref.group(1)) - 1] or "", lang), rendering)
