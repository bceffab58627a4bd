"""The waiting queue in its two policies: FCFS (a deque) and priority (a heap).

FCFS puts a preempted request back at the front; priority orders by
``(priority, arrival_time, request_id)`` as ``Request.__lt__`` does in vLLM 0.33.0.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Iterator

from quizsvc.ledger.request import Request


class FcfsQueue:
    """Serve waiting requests first come, first served; preempted ones go to the front."""

    def __init__(self) -> None:
        self._queue: deque[Request] = deque()

    def add(self, request: Request) -> None:
        """Append a newly arrived request at the back."""
        self._queue.append(request)

    def prepend(self, request: Request) -> None:
        """Put a preempted request at the front."""
        self._queue.appendleft(request)

    def prepend_many(self, requests: list[Request]) -> None:
        """Put ``requests`` back at the front, keeping their order."""
        self._queue.extendleft(reversed(requests))

    def peek(self) -> Request:
        """Return the request the waiting loop would try next."""
        return self._queue[0]

    def pop(self) -> Request:
        """Remove and return the head."""
        return self._queue.popleft()

    def remove_many(self, requests: Iterable[Request]) -> None:
        """Drop ``requests`` wherever they stand."""
        doomed = set(map(id, requests))
        self._queue = deque(r for r in self._queue if id(r) not in doomed)

    def __len__(self) -> int:
        return len(self._queue)

    def __iter__(self) -> Iterator[Request]:
        return iter(self._queue)


class PriorityQueue:
    """Serve the lowest ``(priority, arrival_time, request_id)`` first."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, float, str, Request]] = []

    def add(self, request: Request) -> None:
        """Insert ``request`` by its priority key."""
        heapq.heappush(
            self._heap, (request.priority, request.arrival_time, request.request_id, request)
        )

    prepend = add

    def prepend_many(self, requests: list[Request]) -> None:
        """Re-insert skipped requests (order comes from their keys)."""
        for request in requests:
            self.add(request)

    def peek(self) -> Request:
        """Return the request the waiting loop would try next."""
        return self._heap[0][3]

    def pop(self) -> Request:
        """Remove and return the head."""
        return heapq.heappop(self._heap)[3]

    def remove_many(self, requests: Iterable[Request]) -> None:
        """Drop ``requests`` and restore the heap."""
        doomed = set(map(id, requests))
        self._heap = [item for item in self._heap if id(item[3]) not in doomed]
        heapq.heapify(self._heap)

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[Request]:
        return iter(item[3] for item in sorted(self._heap, key=lambda item: item[:3]))
