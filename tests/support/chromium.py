"""Launch Debian's Chromium for the browser tests (never a downloaded browser); keep their
screenshots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
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


# A full-page picture makes Chromium draw the whole page, even when clipped to its top: 8 to
# 10 s for the lesson (~35,000 px on a desktop, ~60,000 on a phone). A taller page is kept
# as its first screen, which is what a learner sees on arriving and costs ~0.1 s.
PICTURE_HEIGHT = 4000


def keep_picture(page: Any, path: Path) -> Path:
    """Save a PNG of ``page`` at ``path``: the whole page, or its first screen when the page is
    taller than ``PICTURE_HEIGHT``. A picture is an artifact for people, never the check."""
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(path=str(path), full_page=height <= PICTURE_HEIGHT, timeout=60_000)
    return path


def screenshot_folder(config: pytest.Config) -> Path:
    """Return where the browser tests keep their screenshots: ``test-output/screenshots/``."""
    return Path(config.rootpath) / "test-output" / "screenshots"


def forget_old_screenshots(config: pytest.Config) -> None:
    """Delete the previous run's screenshots, so that what is there was taken by this run.

    Called once per run, as it starts, by the process that runs it (under pytest-xdist the
    controller: a worker doing it would delete what the other workers had taken already).
    """
    for old in screenshot_folder(config).glob("*.png"):
        old.unlink()
