"""Compare a trace against a recorded golden trace, field by field (FORMAT.md "Compared fields")."""

from __future__ import annotations

from typing import Any

STEP_FIELDS = (
    ("schedule", "total_num_scheduled_tokens"),
    ("schedule", "num_scheduled_tokens"),
    ("schedule", "scheduled_spec_decode_tokens"),
    ("schedule", "preempted_ids"),
    ("update", "finished_ids"),
)
# Fields beyond FORMAT.md's compared ones that the trace also keeps true (``strict=True``).
STRICT_STEP_FIELDS = (
    ("schedule", "new_req_ids"),
    ("schedule", "resumed_req_ids"),
    ("schedule", "finished_ids_notified"),
    ("schedule", "sampling_req_ids"),
    ("update", "finish_reasons"),
    ("update", "returned"),
)
STRICT_RECORD_FIELDS = ("arrivals", "aborted", "running", "waiting", "kv_free_blocks")
SNAPSHOT_FIELDS = (
    "status", "num_tokens", "num_tokens_with_spec", "num_computed_tokens", "num_output_tokens",
    "num_spec_token_ids", "num_output_placeholders", "num_preemptions",
)
REQUEST_FIELDS = (
    ("after_schedule", "status"),
    ("after_schedule", "num_computed_tokens"),
    ("after_update", "status"),
    ("after_update", "num_tokens"),
    ("after_update", "num_tokens_with_spec"),
    ("after_update", "num_computed_tokens"),
    ("after_update", "num_output_tokens"),
)


def compare_traces(
    expected: dict[str, Any], actual: dict[str, Any], strict: bool = False
) -> list[str]:
    """Return one line per compared field that differs (empty when the traces agree).

    With ``strict`` every recorded field is compared, not only FORMAT.md's compared ones.
    """
    problems: list[str] = []
    step_fields = STEP_FIELDS + STRICT_STEP_FIELDS if strict else STEP_FIELDS
    request_fields = (
        tuple((part, name) for part in ("before_schedule", "after_schedule", "after_update")
              for name in SNAPSHOT_FIELDS)
        if strict else REQUEST_FIELDS
    )
    actual_steps = {step["step"]: step for step in actual.get("steps", [])}
    for golden in expected.get("steps", []):
        number = golden["step"]
        mine = actual_steps.get(number)
        if mine is None:
            problems.append(f"step {number}: missing")
            continue
        if strict:
            for name in STRICT_RECORD_FIELDS:
                if golden.get(name) != mine.get(name):
                    problems.append(f"step {number}: {name} want {golden.get(name)} "
                                    f"got {mine.get(name)}")
        for part, name in step_fields:
            want = (golden.get(part) or {}).get(name) if golden.get(part) is not None else None
            if golden.get(part) is None:
                if mine.get(part) is not None:
                    problems.append(f"step {number}: {part} should be null")
                continue
            got = (mine.get(part) or {}).get(name)
            if want != got:
                problems.append(f"step {number}: {part}.{name} want {want} got {got}")
        for request_id, golden_request in golden.get("requests", {}).items():
            mine_request = mine.get("requests", {}).get(request_id)
            if mine_request is None:
                problems.append(f"step {number}: request {request_id} missing")
                continue
            for part, name in request_fields:
                if part not in golden_request:
                    continue
                want = golden_request[part][name]
                got = (mine_request.get(part) or {}).get(name)
                if want != got:
                    problems.append(
                        f"step {number}: {request_id}.{part}.{name} want {want} got {got}"
                    )
    extra = sorted(set(actual_steps) - {s["step"] for s in expected.get("steps", [])})
    if extra:
        problems.append(f"extra steps {extra}")
    return problems



def check_expectations(scenario: dict[str, Any], trace: dict[str, Any]) -> list[str]:
    """Check a scenario's own ``expect`` list against a trace; return the mismatches.

    Step-level keys name schedule or update fields (or ``kv_free_blocks``); a ``request``
    entry checks snapshot fields, where ``N_minus_C`` means ``num_tokens - num_computed_tokens``.
    """
    problems: list[str] = []
    steps = {record["step"]: record for record in trace["steps"]}
    for expectation in scenario.get("expect", []):
        number = expectation["step"]
        record = steps.get(number)
        if record is None:
            problems.append(f"step {number}: missing")
            continue
        for key, want in expectation.items():
            if key in ("step", "request") or key.endswith("_schedule") or key == "after_update":
                continue
            if key == "kv_free_blocks":
                got = record.get(key)
            elif key == "finished_ids":
                got = (record.get("update") or {}).get(key)
            else:
                got = (record.get("schedule") or {}).get(key)
            if got != want:
                problems.append(f"step {number}: {key} want {want} got {got}")
        request_id = expectation.get("request")
        if request_id is None:
            continue
        entry = record["requests"].get(request_id, {})
        for part in ("before_schedule", "after_schedule", "after_update"):
            snapshot = entry.get(part) or {}
            for field, want in expectation.get(part, {}).items():
                if field == "N_minus_C":
                    got = snapshot.get("num_tokens", 0) - snapshot.get("num_computed_tokens", 0)
                else:
                    got = snapshot.get(field)
                if got != want:
                    problems.append(f"step {number}: {request_id}.{part}.{field} want {want} "
                                    f"got {got}")
    return problems
