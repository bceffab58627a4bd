"""Replay the question bank's exported numeric variants on the real vLLM 0.33.0 scheduler.

Run with the vLLM venv's python (see tools/README.md), after exporting the bank:

    .venv/bin/quizsvc bank export --json --seeds 0-14 > /tmp/export.jsonl
    PYTHONHASHSEED=0 HF_HUB_OFFLINE=1 /opt/vllm-venv/bin/python \\
        tools/check_bank_against_vllm.py /tmp/export.jsonl

Every numeric variant carries its FORMAT.md ``scenario`` and one RFC 6901 pointer per answer
element (``answer_ref``); the answer real vLLM gives must equal the bank's. Exit status 1 if
any variant differs or fails to replay.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import vllm_oracle  # noqa: E402  (needs the path above; runs only in the vLLM venv)


def resolve(document: Any, pointer: str) -> Any:
    """Return the value an RFC 6901 JSON Pointer names inside ``document``."""
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def main(path: str) -> int:
    """Check every numeric variant in the JSON-lines export at ``path``."""
    checked = failed = 0
    for line in Path(path).read_text().splitlines():
        variant = json.loads(line)
        if not variant.get("scenario"):
            continue
        checked += 1
        label = f"{variant['question_id']} seed {variant['seed']}"
        try:
            trace = vllm_oracle.replay(variant["scenario"])
            got = [resolve(trace, pointer) for pointer in variant["answer_ref"]]
        except Exception as error:  # report and go on: one bad variant must not hide others
            failed += 1
            print(f"ERROR {label}: {type(error).__name__}: {error}")
            continue
        want = variant["answer"] if isinstance(variant["answer"], list) else [variant["answer"]]
        if got != want:
            failed += 1
            print(f"DIFF {label}: bank {want}, vLLM {got}")
    print(f"checked {checked} numeric variants, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
