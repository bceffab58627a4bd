"""Keep values one app computes again and again, for as long as their key still names them.

A bounded, thread-safe least-recently-used map. What goes in must be keyed by everything it
depends on (a learner's ``review_seq``, the bank's version, the day...), so that a changed
input is a new key and a stale value is never read, only pushed out in time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class Memo:
    """A bounded least-recently-used map, shared by the threads of one process."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """Return the value kept under ``key`` (None when there is none)."""
        with self._lock:
            found = self._values.get(key)
            if found is not None:
                self._values.move_to_end(key)
            return found

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key``, pushing out the least recently used past the size."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)
