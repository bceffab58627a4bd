"""Count the CPU time each side of a benchmark phase spends: server workers, client, database.

A throughput ratio says how far the service is from bare Flask, not where the time goes. On a
machine whose cores the load generator, the gunicorn workers and PostgreSQL share, the split
says it: CPU seconds per request of the workers (children of the gunicorn master), of the
client process, and of every PostgreSQL server process on this machine (``/proc``, Linux only;
elsewhere the figures are left out).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu(pid: int) -> float:
    """Return the user + system CPU seconds of process ``pid`` so far (0 if it is gone)."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def processes() -> Iterable[tuple[int, int, str]]:
    """Yield (pid, parent pid, command name) of every process this machine shows."""
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, _, rest = (entry / "stat").read_text().partition(") ")
            yield int(entry.name), int(rest.split()[1]), name.split("(", 1)[1]
        except (OSError, IndexError, ValueError):
            continue


def tree_cpu(pid: int) -> float:
    """Return the CPU seconds so far of process ``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for child, parent, _ in processes():
        children.setdefault(parent, []).append(child)
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += process_cpu(current)
        todo.extend(children.get(current, ()))
    return total


@dataclass
class CpuShares:
    """CPU seconds spent during one phase, by side."""

    workers: float
    client: float
    postgres: float | None  # None: not counted (SQLite), or no server process was seen

    def worker_ms(self, requests: int) -> float:
        """Return the workers' CPU milliseconds per request."""
        return 1000 * self.workers / max(requests, 1)

    def per_request(self, requests: int) -> str:
        """Describe the split in milliseconds per request."""
        n = max(requests, 1)
        parts = [f"workers {self.worker_ms(n):.2f}", f"client {1000 * self.client / n:.2f}"]
        if self.postgres is not None:
            parts.append(f"PostgreSQL {1000 * self.postgres / n:.2f}")
        return "CPU ms per request: " + ", ".join(parts)


class CpuMeter:
    """Measure one phase: ``start()`` before it, ``stop()`` after the client was joined.

    The client's time is this process's reaped children's (the client runs in a child
    process, joined before ``stop``); PostgreSQL processes that start during the phase (its
    connections) count from zero.
    """

    def __init__(self, server_pid: int, count_postgres: bool) -> None:
        self.server_pid = server_pid
        self.count_postgres = count_postgres
        self.available = PROC.is_dir()

    def snapshot(self) -> tuple[dict[int, float], dict[int, float], float]:
        """Return the workers' and PostgreSQL's CPU by pid, and the reaped children's."""
        workers: dict[int, float] = {}
        postgres: dict[int, float] = {}
        if self.available:
            for pid, parent, name in processes():
                if parent == self.server_pid:
                    workers[pid] = process_cpu(pid)
                elif self.count_postgres and name.startswith("postgres"):
                    postgres[pid] = process_cpu(pid)
        times = os.times()
        return workers, postgres, times.children_user + times.children_system

    def start(self) -> None:
        """Take the readings the phase is measured from."""
        self.before = self.snapshot()

    def stop(self) -> CpuShares | None:
        """Return what each side spent since ``start`` (None without ``/proc``)."""
        workers, postgres, client = self.snapshot()
        if not self.available:
            return None
        old_workers, old_postgres, old_client = self.before
        return CpuShares(
            workers=sum(cpu - old_workers.get(pid, 0.0) for pid, cpu in workers.items()),
            client=client - old_client,
            postgres=(sum(cpu - old_postgres.get(pid, 0.0) for pid, cpu in postgres.items())
                      if postgres else None))
