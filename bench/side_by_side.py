"""Run ``bench/api_bench.py`` of two checkouts side by side, backend by backend, in one run.

The machine is noisy, so the checkouts take turns on each backend (old, new, old again by
default with ``--rounds 3``) and every figure is printed as measured, in the order it ran:
compare the rows of one backend, never figures from different runs. Each checkout runs its
own bench with its own virtualenv (``<checkout>/.venv``), so the old code is measured as it
stood, harness included.

    .venv/bin/python bench/side_by_side.py --old ../baseline [--new .]
        [--backends sqlite,postgresql] [--rounds 3] [--seconds 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_bench(checkout: Path, backend: str, seconds: float, extra: list[str]) -> str:
    """Run one checkout's api_bench on one backend; return what it printed."""
    python = checkout / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), str(checkout / "bench" / "api_bench.py"), "--backends", backend,
         "--seconds", str(seconds), *extra],
        cwd=checkout, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"(failed, exit {done.returncode})\n{done.stderr[-2000:]}"
    return done.stdout


def git_head(checkout: Path) -> str:
    """Return the checkout's commit, abbreviated."""
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def main() -> int:
    """Alternate the two checkouts on each backend and print every run's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=ROOT)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--rounds", type=int, default=3, help="old, new, old, ... per backend")
    parser.add_argument("--seconds", type=float, default=5.0)
    args, extra = parser.parse_known_args()
    checkouts = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, path in checkouts.items():
        print(f"{name}: {path} at {git_head(path)}")
    for backend in args.backends.split(","):
        for turn in range(args.rounds):
            name = "old" if turn % 2 == 0 else "new"
            print(f"\n##### {backend}, round {turn + 1}: {name} ({git_head(checkouts[name])})",
                  flush=True)
            print(run_bench(checkouts[name], backend.strip(), args.seconds, extra), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
