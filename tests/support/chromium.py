"""Launch Debian's Chromium for the browser tests (never a downloaded browser)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


def launch_chromium() -> Iterator[Any]:
    """Yield a headless Chromium (missing: skip locally, fail under CI); close it after."""
    if not os.access(CHROMIUM, os.X_OK):
        reason = f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/test does)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run the browser tests", pytrace=False)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
