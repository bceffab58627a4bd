#!/usr/bin/env bash
# Time the ledger core and vLLM 0.33.0's own scheduler on the same scenarios, in one run.
#
# Usage: tools/side_by_side.sh [SCENARIO.json ...]   (default: bench/decode_heavy.json and
#        bench/prefill_heavy.json). Both sides time only schedule(), update_from_output() and
#        update_draft_token_ids(), best of REPEAT runs (default 3), and must agree on the number
#        of schedule calls and scheduled requests, or the figures are not comparable.
# Environment: VLLM_PYTHON (default /opt/vllm-venv/bin/python), LEDGER_PYTHON (default
#        .venv/bin/python), REPEAT, CLOCK=wall|cpu (default wall: time.perf_counter, as
#        bench/ledger_bench.py; cpu: time.thread_time on both sides, which other processes on
#        a busy machine cannot inflate; the ledger's bench is then run with its clock swapped).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vllm_python="${VLLM_PYTHON:-/opt/vllm-venv/bin/python}"
ledger_python="${LEDGER_PYTHON:-$repo/.venv/bin/python}"
repeat="${REPEAT:-3}"
clock="${CLOCK:-wall}"
case "$clock" in wall | cpu) ;; *) echo "error: CLOCK must be wall or cpu" >&2; exit 2 ;; esac
if [ "$#" -eq 0 ]; then
  set -- "$repo/bench/decode_heavy.json" "$repo/bench/prefill_heavy.json"
fi
if [ ! -x "$vllm_python" ]; then
  echo "error: no vLLM python at $vllm_python (see tools/README.md, or set VLLM_PYTHON)" >&2
  exit 2
fi

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
run_ledger() {
  if [ "$clock" = cpu ]; then
    # bench/ledger_bench.py reads time.perf_counter when it measures: swap in CPU time.
    "$ledger_python" -c 'import runpy, sys, time
time.perf_counter = time.thread_time
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")' "$repo/bench/ledger_bench.py" "$@"
  else
    "$ledger_python" "$repo/bench/ledger_bench.py" "$@"
  fi
}
# Interleave the two sides per scenario so a load spike on the machine hits both alike.
for scenario in "$@"; do
  run_ledger "$scenario" --json --repeat "$repeat" \
    | sed 's/^{/{"side": "ledger", /' >>"$results"
  "$vllm_python" "$repo/tools/vllm_oracle.py" --time --json --clock "$clock" \
    --repeat "$repeat" "$scenario" 2>/dev/null | sed 's/^{/{"side": "vllm", /' >>"$results"
done
echo "clock: $clock, best of $repeat runs; machine load: $(cut -d' ' -f1-3 /proc/loadavg)"

"$ledger_python" - "$results" <<'EOF'
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by_scenario: dict[str, dict[str, dict]] = {}
for row in rows:
    by_scenario.setdefault(row["scenario"], {})[row["side"]] = row
print(f"{'scenario':<16}{'side':<8}{'steps':>7}{'sched reqs':>12}{'seconds':>10}"
      f"{'steps/s':>10}{'us/sched req':>14}")
status = 0
for name, sides in by_scenario.items():
    for side in ("ledger", "vllm"):
        r = sides[side]
        print(f"{name:<16}{side:<8}{r['steps']:>7}{r['scheduled_requests']:>12}"
              f"{r['seconds']:>10.4f}{r['steps_per_s']:>10.1f}{r['us_per_scheduled_request']:>14.2f}")
    ledger, vllm = sides["ledger"], sides["vllm"]
    same = (ledger["steps"], ledger["scheduled_requests"]) == (vllm["steps"],
                                                              vllm["scheduled_requests"])
    ratio = ledger["steps_per_s"] / vllm["steps_per_s"]
    print(f"{name:<16}ledger/vllm speed-up {ratio:.2f}x"
          + ("" if same else "  (NOT comparable: the two replays scheduled differently)"))
    status |= not same
sys.exit(status)
EOF
