"""Scenario builders shared by the ledger tests."""

from __future__ import annotations

from typing import Any


def step_of(trace: dict[str, Any], step: int) -> dict[str, Any]:
    """Return loop step ``step`` of ``trace``."""
    return next(record for record in trace["steps"] if record["step"] == step)


def mixed_step(async_scheduling: bool = False) -> dict[str, Any]:
    """Reach A: N=10/C=9, B: N=10/C=4 by warm-up steps, then let C (prompt 5) arrive."""
    return {
        "name": "lesson_1_6_1",
        "config": {"max_num_batched_tokens": 8, "max_num_seqs": 8, "max_model_len": 64,
                   "block_size": 4,
                   "num_gpu_blocks": 64, "async_scheduling": async_scheduling},
        "requests": [
            {"id": "D", "prompt_len": 3, "max_tokens": 1, "arrival_step": 0},
            {"id": "A", "prompt_len": 9, "max_tokens": 3, "arrival_step": 0},
            {"id": "B", "prompt_len": 10, "max_tokens": 3, "arrival_step": 1},
            {"id": "C", "prompt_len": 5, "max_tokens": 2, "arrival_step": 2},
        ],
    }
