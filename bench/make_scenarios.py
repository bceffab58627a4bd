"""Write the two benchmark scenarios (decode-heavy, prefill-heavy) as FORMAT.md JSON.

Run ``python bench/make_scenarios.py`` to regenerate ``bench/decode_heavy.json`` and
``bench/prefill_heavy.json``; the files are committed so the benchmark needs no set-up.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def decode_heavy() -> dict:
    """Return 256 requests with 64-token prompts decoding with K=3, one draft accepted a step."""
    return {
        "name": "decode_heavy",
        "description": "256 x 64-token prompts, ngram K=3, 1 accepted per step, budget 8192",
        "config": {
            "max_num_batched_tokens": 8192,
            "max_num_seqs": 256,
            "max_model_len": 8192,
            "block_size": 16,
            "num_gpu_blocks": 140000,
            "num_speculative_tokens": 3,
            "spec_method": "ngram",
            "max_steps": 2000,
        },
        "requests": [
            {"id": f"d{i}", "prompt_len": 64, "max_tokens": 4000} for i in range(256)
        ],
        "default_outcome": {"accepted": 1, "drafts": 3},
    }


def prefill_heavy() -> dict:
    """Return 1,000 requests with 600-1,800-token prompts arriving 8 a step, threshold 512."""
    return {
        "name": "prefill_heavy",
        "description": "1000 prompts of 600-1800 tokens, 8 arrivals a step, budget 2048, "
        "threshold 512, prefix caching on",
        "config": {
            "max_num_batched_tokens": 2048,
            "max_num_seqs": 128,
            "max_model_len": 4096,
            "long_prefill_token_threshold": 512,
            "block_size": 16,
            "num_gpu_blocks": 20000,
            "enable_prefix_caching": True,
            "max_steps": 2000,
        },
        "requests": [
            {
                "id": f"p{i}",
                "prompt_len": 600 + (i * 7919) % 1201,
                "max_tokens": 8,
                "arrival_step": i // 8,
            }
            for i in range(1000)
        ],
    }


if __name__ == "__main__":
    for scenario in (decode_heavy(), prefill_heavy()):
        path = HERE / f"{scenario['name']}.json"
        path.write_text(json.dumps(scenario, indent=1) + "\n")
        print(path)
