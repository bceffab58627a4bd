"""Worked examples: a ledger scenario, replayed, whose numbers the lesson and the questions quote.

Every number a learner reads in a worked example comes from replaying its scenario through the
ledger, never from the author's arithmetic. Texts quote the replay in two ways:

``{{example <id>}}`` on a line of its own
    is replaced by the example's setting, a table of the asked step (one row per request,
    the columns the example names) and a link that opens the same scenario in the simulator.
``{{<id>.<who>.<field>}}`` (optionally ``@<step>``, and ``:noun|nouns`` for an English count)
    is replaced by one value: ``who`` is a request id (fields in ``REQUEST_FIELDS``),
    ``step`` (``STEP_FIELDS``) or ``config`` (any key of the trace's ``effective_config``);
    ``{{x.A.n:token|tokens}}`` writes "1 token" or "4 tokens".

A question can quote its own scenarios the same way (its ``scenarios`` field), so the numbers
in a choice question's statements come from the ledger too. An unknown example, request or
field is an error when the bank loads, not a blank in front of a learner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from quizsvc.bank.model import Text

SIMULATOR_PATH = "/simulator"
QUOTE = re.compile(
    r"\{\{([a-z0-9]+(?:-[a-z0-9]+)*)\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)(?:@(\d+))?"
    r"(?::([^|{}]+)\|([^|{}]+))?\}\}"
)
BLOCK = re.compile(r"^\{\{example ([a-z0-9]+(?:-[a-z0-9]+)*)\}\}[ \t]*$", re.MULTILINE)
ANY_BRACES = re.compile(r"\{\{.*?\}\}")

# Request fields: (snapshot or trace part, key). Snapshots are FORMAT.md's three phases.
REQUEST_FIELDS: dict[str, tuple[str, str]] = {
    "N": ("before_schedule", "num_tokens"),
    "C": ("before_schedule", "num_computed_tokens"),
    "S": ("before_schedule", "num_spec_token_ids"),
    "ph": ("before_schedule", "num_output_placeholders"),
    "O": ("before_schedule", "num_output_tokens"),
    "Nspec": ("before_schedule", "num_tokens_with_spec"),
    "status": ("before_schedule", "status"),
    "C1": ("after_schedule", "num_computed_tokens"),
    "ph1": ("after_schedule", "num_output_placeholders"),
    "S1": ("after_schedule", "num_spec_token_ids"),
    "status1": ("after_schedule", "status"),
    "N2": ("after_update", "num_tokens"),
    "C2": ("after_update", "num_computed_tokens"),
    "O2": ("after_update", "num_output_tokens"),
    "ph2": ("after_update", "num_output_placeholders"),
    "Nspec2": ("after_update", "num_tokens_with_spec"),
    "status2": ("after_update", "status"),
    "preemptions2": ("after_update", "num_preemptions"),
    "n": ("request", "num_scheduled_tokens"),
    "k": ("request", "num_scheduled_spec_tokens"),
    "drafts": ("request", "drafts_proposed"),
    "demand": ("limit", "demand"),
    "bound": ("limit", "bound"),
    "threshold": ("limit", "threshold"),
    "hit": ("limit", "prefix_hit"),
    "tb": ("limit", "token_budget"),
    "ib": ("limit", "input_budget_minus_draft_slots"),
    "room": ("limit", "max_model_len_room"),
    "kv_need": ("limit", "kv_blocks_needed"),
    "kv_free": ("limit", "kv_free_blocks"),
    "sampled": ("returned", "sampled"),
    "accepted": ("returned", "accepted"),
    "rolled": ("update", "rolled_back"),
    "trimmed": ("update", "trimmed"),
    "finish": ("update", "finish_reasons"),
}
STEP_FIELDS = ("total", "free", "free_before", "unused", "preempted", "finished", "notified",
               "new", "running", "waiting", "sched", "spec")
NUMBERS_OF_REQUEST = ("N", "C", "S", "ph", "O", "Nspec", "C1", "ph1", "S1", "N2", "C2", "O2",
                      "ph2", "Nspec2", "n", "k")

# Table columns: header (zh, en) and the request field they show.
COLUMNS: dict[str, tuple[str, str]] = {
    "loop": ("循环", "loop"),
    "N": ("N", "N"),
    "C": ("C", "C"),
    "S": ("草稿数 S", "drafts S"),
    "ph": ("ph", "ph"),
    "O": ("已输出", "outputs"),
    "demand": ("需求", "demand"),
    "hit": ("前缀命中", "prefix hit"),
    "threshold": ("阈值", "threshold"),
    "tb": ("剩余 token_budget", "token_budget left"),
    "ib": ("input_budget − draft_slots", "input_budget − draft_slots"),
    "room": ("max_model_len − C − 1", "max_model_len − C − 1"),
    "n": ("n", "n"),
    "k": ("验证的草稿数", "drafts verified"),
    "bound": ("受谁约束", "bound by"),
    "kv": ("KV 块（需要 / 空闲）", "KV blocks (needed / free)"),
    "C1": ("调度后 C", "C after schedule"),
    "ph1": ("调度后 ph", "ph after schedule"),
    "status": ("状态", "status"),
    "S1": ("调度后草稿数", "drafts after schedule"),
    "sampled": ("返回的 token", "tokens returned"),
    "accepted": ("接受的草稿", "drafts accepted"),
    "drafts": ("新提出的草稿", "new drafts proposed"),
    "rolled": ("回退", "rolled back"),
    "C2": ("更新后 C", "C after update"),
    "N2": ("更新后 N", "N after update"),
    "O2": ("更新后已输出", "outputs after update"),
    "ph2": ("更新后 ph", "ph after update"),
    "status2": ("更新后状态", "status after update"),
}
DEFAULT_COLUMNS = ("loop", "N", "C", "demand", "n", "bound", "C1", "C2", "N2")
BOUND_NAMES: dict[str, tuple[str, str]] = {
    "demand": ("需求本身", "its demand"),
    "threshold": ("长 prefill 阈值", "the long-prefill threshold"),
    "token_budget": ("token_budget", "token_budget"),
    "input_budget": ("input_budget − draft_slots", "input_budget − draft_slots"),
    "max_model_len": ("max_model_len − C − 1", "max_model_len − C − 1"),
    "padding": ("补齐到 1 + K", "padding to 1 + K"),
    "kv": ("KV 块", "KV blocks"),
    "seats": ("max_num_seqs 座位", "max_num_seqs seats"),
    "preempted": ("被抢占", "preempted"),
    "skipped": ("跳过", "skipped"),
}
LOOPS = {"running": ("running", "running"), "waiting": ("waiting", "waiting")}
STATUS_NAMES = {
    "WAITING": ("WAITING", "WAITING"),
    "RUNNING": ("RUNNING", "RUNNING"),
    "PREEMPTED": ("PREEMPTED（被抢占）", "PREEMPTED"),
    "FINISHED_STOPPED": ("FINISHED_STOPPED（停止）", "FINISHED_STOPPED"),
    "FINISHED_LENGTH_CAPPED": ("FINISHED_LENGTH_CAPPED（到长度上限）", "FINISHED_LENGTH_CAPPED"),
    "FINISHED_ABORTED": ("FINISHED_ABORTED（中止）", "FINISHED_ABORTED"),
}
NOTHING = "—"


class QuoteError(ValueError):
    """Say why a quote cannot be filled (unknown example, request, field or step)."""


@dataclass(frozen=True)
class WorkedExample:
    """One replayed scenario and how the lesson shows it.

    ``trace`` is the ledger's replay of ``scenario``; ``step`` the engine-loop step the table
    shows; ``rows`` the requests it lists (empty: every request alive in the step).
    """

    id: str
    rule: str
    step: int
    setting: Text
    scenario: dict[str, Any]
    trace: dict[str, Any]
    rows: tuple[str, ...] = ()
    columns: tuple[str, ...] = DEFAULT_COLUMNS
    simulator: dict[str, str] | None = None
    view: str = "requests"

    def simulator_link(self) -> str:
        """Return the simulator address that opens this example's state.

        The simulator's own settings when its form can build the same state (so the learner
        can change the variables from there), else the scenario itself by name.
        """
        if self.simulator:
            return f"{SIMULATOR_PATH}?{urlencode(self.simulator)}"
        return f"{SIMULATOR_PATH}?{urlencode({'example': self.id})}"


def make_example(spec: Mapping[str, Any], replay: Callable[[dict[str, Any]], dict[str, Any]]
                 ) -> WorkedExample:
    """Replay a validated example spec and check that its step, rows and columns exist."""
    trace = replay(dict(spec["scenario"]))
    example = WorkedExample(
        id=spec["id"],
        rule=spec["rule"],
        step=spec["step"],
        setting=Text(spec["setting"]["zh"], spec["setting"]["en"]),
        scenario=dict(spec["scenario"]),
        trace=trace,
        rows=tuple(spec.get("rows") or ()),
        columns=tuple(spec.get("columns") or DEFAULT_COLUMNS),
        simulator={str(k): str(v) for k, v in spec["simulator"].items()}
        if spec.get("simulator") else None,
        view=spec.get("view", "requests"),
    )
    record = step_record(trace, example.step)
    if record.get("schedule") is None:
        raise QuoteError(f"step {example.step} calls no schedule()")
    unknown = [c for c in example.columns if c not in COLUMNS]
    if unknown:
        raise QuoteError(f"unknown columns {unknown}")
    missing = [rid for rid in example.rows if rid not in record["requests"]]
    if missing:
        raise QuoteError(f"requests {missing} are not alive in step {example.step}")
    return example


def step_record(trace: Mapping[str, Any], step: int) -> dict[str, Any]:
    """Return the trace record of engine-loop step ``step``."""
    for record in trace["steps"]:
        if record["step"] == step:
            found: dict[str, Any] = record
            return found
    raise QuoteError(f"the replay has no step {step}")


def request_value(trace: Mapping[str, Any], step: int, rid: str, name: str) -> Any:
    """Return one request field of one step (``REQUEST_FIELDS``); None where it has none."""
    if name not in REQUEST_FIELDS:
        raise QuoteError(f"unknown request field {name!r}")
    record = step_record(trace, step)
    entry = record["requests"].get(rid)
    if entry is None:
        raise QuoteError(f"request {rid} is not alive in step {step}")
    part, key = REQUEST_FIELDS[name]
    schedule = record.get("schedule") or {}
    update = record.get("update") or {}
    if part == "request":
        return entry.get(key, 0)
    if part == "limit":
        limit = (schedule.get("limits") or {}).get(rid)
        return None if limit is None else limit.get(key)
    if part == "returned":
        returned = (update.get("returned") or {}).get(rid)
        return None if returned is None else returned.get(key)
    if part == "update":
        return (update.get(key) or {}).get(rid, 0 if key != "finish_reasons" else None)
    snapshot = entry.get(part)
    return None if snapshot is None else snapshot.get(key)


def step_value(trace: Mapping[str, Any], step: int, name: str) -> Any:
    """Return one step-level value (``STEP_FIELDS``)."""
    record = step_record(trace, step)
    schedule = record.get("schedule") or {}
    update = record.get("update") or {}
    config = trace.get("effective_config", {})
    if name == "total":
        return schedule.get("total_num_scheduled_tokens", 0)
    if name == "free":
        return record.get("kv_free_blocks")
    if name == "free_before":
        index = trace["steps"].index(record)
        if index == 0:
            return config.get("num_free_blocks_at_start")
        return trace["steps"][index - 1].get("kv_free_blocks")
    if name == "unused":
        return config.get("max_num_scheduled_tokens", 0) - schedule.get(
            "total_num_scheduled_tokens", 0)
    if name == "sched":
        return schedule.get("sched_step")
    if name == "spec":
        return schedule.get("scheduled_spec_decode_tokens", {})
    lists = {
        "preempted": schedule.get("preempted_ids", []),
        "finished": update.get("finished_ids", []),
        "notified": schedule.get("finished_ids_notified", []),
        "new": schedule.get("new_req_ids", []),
        "running": record.get("running", []),
        "waiting": record.get("waiting", []),
    }
    if name not in lists:
        raise QuoteError(f"unknown step field {name!r}")
    return lists[name]


def show(value: Any, lang: str) -> str:
    """Write a quoted value as a learner reads it: numbers, names, lists, never a repr."""
    zh = lang == "zh"
    if value is None:
        return NOTHING
    if isinstance(value, bool):
        return ("是" if value else "否") if zh else ("yes" if value else "no")
    if isinstance(value, list | tuple):
        return ("、" if zh else ", ").join(show(item, lang) for item in value) or (
            "无" if zh else "none")
    if isinstance(value, dict):
        pairs = [f"{key} {show(item, lang)}" for key, item in value.items()]
        return ("、" if zh else ", ").join(pairs) or ("无" if zh else "none")
    if isinstance(value, str) and value in STATUS_NAMES:
        return STATUS_NAMES[value][0 if zh else 1]
    return str(value)


@dataclass(frozen=True)
class Quotes:
    """Look quoted values up in a set of replayed scenarios, by name."""

    traces: Mapping[str, tuple[dict[str, Any], int]]

    def value(self, name: str, who: str, field_name: str, step: int | None = None) -> Any:
        """Return the raw value ``{{name.who.field@step}}`` stands for."""
        if name not in self.traces:
            raise QuoteError(f"no example or scenario {name!r}")
        trace, asked = self.traces[name]
        at = asked if step is None else step
        if who == "config":
            config = trace.get("effective_config", {})
            if field_name not in config:
                raise QuoteError(f"no config value {field_name!r}")
            return config[field_name]
        if who == "step":
            return step_value(trace, at, field_name)
        return request_value(trace, at, who, field_name)

    def fill(self, text: str, lang: str) -> str:
        """Replace every ``{{name.who.field}}`` of ``text``; raise ``QuoteError`` on any other
        ``{{...}}`` left over (a misspelt quote must not reach a learner)."""

        def one(match: re.Match[str]) -> str:
            step = int(match.group(4)) if match.group(4) else None
            raw = self.value(match.group(1), match.group(2), match.group(3), step)
            if match.group(3) == "bound" and isinstance(raw, str):
                return BOUND_NAMES.get(raw, (raw, raw))[0 if lang == "zh" else 1]
            if match.group(5) and isinstance(raw, int):  # {{x.A.n:token|tokens}}: "1 token"
                return f"{raw} {match.group(5) if raw == 1 else match.group(6)}"
            return show(raw, lang)

        filled = QUOTE.sub(one, text)
        left = ANY_BRACES.search(filled)
        if left:
            raise QuoteError(f"cannot read the quote {left.group(0)!r}")
        return filled


def cell(example: WorkedExample, rid: str, column: str, lang: str) -> str:
    """Return one table cell of ``example``'s step for request ``rid``."""
    zh = lang == "zh"
    trace, step = example.trace, example.step
    if column == "loop":
        loop = _limit(example, rid).get("loop", "")
        return LOOPS.get(loop, (NOTHING, NOTHING))[0 if zh else 1]
    if column == "bound":
        bound = _limit(example, rid).get("bound")
        return NOTHING if bound is None else BOUND_NAMES.get(bound, (bound, bound))[0 if zh else 1]
    if column == "kv":
        limit = _limit(example, rid)
        if limit.get("kv_blocks_needed") is None:
            return NOTHING
        return f"{limit['kv_blocks_needed']} / {limit['kv_free_blocks']}"
    value = request_value(trace, step, rid, column)
    if column in ("n", "k", "rolled") and value is None:
        value = 0
    return show(value, lang)


def _limit(example: WorkedExample, rid: str) -> dict[str, Any]:
    schedule = step_record(example.trace, example.step).get("schedule") or {}
    return (schedule.get("limits") or {}).get(rid) or {}


def table(example: WorkedExample, lang: str) -> str:
    """Render the example's step as a markdown table (one row per request)."""
    zh = lang == "zh"
    record = step_record(example.trace, example.step)
    rows = example.rows or tuple(record["requests"])
    header = ["请求" if zh else "request"] + [COLUMNS[c][0 if zh else 1] for c in example.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for rid in rows:
        cells = [rid] + [cell(example, rid, column, lang) for column in example.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


EMPTY = ("空", "empty")


@dataclass(frozen=True)
class OutputField:
    """One field of vLLM 0.33.0's ``SchedulerOutput`` as a "fields" view shows it.

    ``read`` takes the step's ``schedule`` record and the trace's ``effective_config`` and
    returns the value the ledger replayed; a field without ``read`` is one a text-only model
    leaves empty, and ``empty`` is that value as the learner reads it (zh, en).
    """

    name: str
    read: Callable[[dict[str, Any], dict[str, Any]], Any] | None = None
    empty: tuple[str, str] = ("", "")
    source: str = "ledger"


def _skip_drafts(_: dict[str, Any], config: dict[str, Any]) -> Any:
    """Return ``skip_drafts`` where it is sure to be False, None where the ledger cannot say.

    vLLM sets it only when the V2 model runner drives a drafter with its own forward pass
    (lookahead > 0) and no scheduled request can use the drafts; the ledger does not model
    that choice, which changes no counter.
    """
    if config.get("num_lookahead_tokens", 0) == 0 or not config.get("use_v2_model_runner"):
        return False
    return None


# Every field of SchedulerOutput (output.py:231-338), in the dataclass's order.
OUTPUT_FIELDS: tuple[OutputField, ...] = (
    OutputField("scheduled_new_reqs", lambda s, _: [
        f"{rid} (num_computed_tokens {s['new_req_num_computed_tokens'].get(rid, 0)})"
        for rid in s["new_req_ids"]]),
    OutputField("scheduled_cached_reqs", lambda s, _: [
        rid for rid in s["num_scheduled_tokens"] if rid not in s["new_req_ids"]]),
    OutputField("num_scheduled_tokens", lambda s, _: s["num_scheduled_tokens"]),
    OutputField("total_num_scheduled_tokens", lambda s, _: s["total_num_scheduled_tokens"]),
    OutputField("scheduled_spec_decode_tokens", lambda s, _: s["scheduled_spec_decode_tokens"]),
    OutputField("scheduled_encoder_inputs", empty=EMPTY),
    OutputField("finished_req_ids", lambda s, _: s["finished_ids_notified"]),
    OutputField("free_encoder_mm_hashes", empty=EMPTY),
    OutputField("encoder_input_updates", empty=EMPTY),
    OutputField("scheduled_encoder_input_stats", empty=("None", "None")),
    OutputField("preempted_req_ids", lambda s, _: s["preempted_ids"]),
    OutputField("has_structured_output_requests", empty=("False", "False")),
    OutputField("pending_structured_output_tokens", empty=("False", "False")),
    OutputField("num_invalid_spec_tokens", empty=("None", "None")),
    OutputField("kv_connector_metadata", empty=("None", "None")),
    OutputField("has_sync_kv_loads", empty=("False", "False")),
    OutputField("aux_output_connector_metadata", empty=("None", "None")),
    OutputField("ec_connector_metadata", empty=("None", "None")),
    OutputField("ec_manager_metadata", empty=("None", "None")),
    OutputField("new_block_ids_to_zero", empty=("None", "None")),
    OutputField("kv_cache_block_copies", empty=("None", "None")),
    OutputField("kv_connector_block_state", empty=("None", "None")),
    OutputField("num_spec_tokens_to_schedule",
                lambda _, config: config.get("num_speculative_tokens", 0), source="config"),
    OutputField("num_common_prefix_blocks", empty=EMPTY),
    OutputField("skip_drafts", _skip_drafts, source="config"),
)
WHO_FILLS = {
    "ledger": ("账本重放", "the ledger's replay"),
    "config": ("由配置决定", "fixed by the configuration"),
    "empty": ("纯文本模型留空", "empty for a text-only model"),
    "unknown": ("账本不建模", "not modelled by the ledger"),
}


def fields_table(example: WorkedExample, lang: str) -> str:
    """Render the step's ``SchedulerOutput``: every field, its value and who fills it."""
    zh = lang == "zh"
    schedule = step_record(example.trace, example.step)["schedule"]
    config = example.trace.get("effective_config", {})
    header = ("| 字段 | 本步的值 | 值从哪里来 |" if zh
              else "| field | this step | where the value comes from |")
    lines = [header, "|---|---|---|"]
    for field in OUTPUT_FIELDS:
        if field.read is None:
            shown, who = field.empty[0 if zh else 1], "empty"
        else:
            value = field.read(schedule, config)
            who = field.source
            if value is None:
                shown, who = NOTHING, "unknown"
            elif isinstance(value, bool):
                shown = str(value)
            elif isinstance(value, list | dict) and not value:
                shown = EMPTY[0 if zh else 1]
            else:
                shown = show(value, lang)
        lines.append(f"| `{field.name}` | {shown} | {WHO_FILLS[who][0 if zh else 1]} |")
    return "\n".join(lines)


def block(example: WorkedExample, lang: str) -> str:
    """Render ``{{example <id>}}``: the setting, the step's table and the simulator link."""
    zh = lang == "zh"
    if zh:
        caption = f"**例**：{example.setting.zh}（账本重放的第 {example.step} 步）"
        link = f"[在模拟器中打开这个例子]({example.simulator_link()})"
    else:
        caption = f"**Example:** {example.setting.en} (step {example.step} of the ledger's replay)"
        link = f"[Open this example in the simulator]({example.simulator_link()})"
    body = fields_table(example, lang) if example.view == "fields" else table(example, lang)
    return "\n\n".join([caption, body, link])


def expand(markdown: str, examples: Mapping[str, WorkedExample], lang: str,
           quotes: Quotes | None = None) -> str:
    """Replace every example block and quote of ``markdown`` by what the replays say."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in examples:
            raise QuoteError(f"no example {name!r}")
        return block(examples[name], lang)

    with_blocks = BLOCK.sub(one, markdown)
    found = quotes or Quotes({k: (v.trace, v.step) for k, v in examples.items()})
    return found.fill(with_blocks, lang)


def placed(markdown: str) -> list[str]:
    """Return the ids of the example blocks in ``markdown``, in order."""
    return BLOCK.findall(markdown)
