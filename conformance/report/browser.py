"""Headless Chromium for report.html: the DOM after its script ran, and screenshots.

Used by the browser test and by ``nox -s report``. Chromium comes from the distribution's packages
(``apt-get install chromium`` on Debian); nothing is downloaded. It runs with a fresh profile and with
background networking off, so it makes no connection of its own: the page must stand alone.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


class BrowserError(RuntimeError):
    """Chromium failed; the message holds the end of what it printed."""


def find_chromium() -> str | None:
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


def _run(chromium: str, *args: str, timeout: float = 120) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run(
            [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        raise BrowserError(f"{chromium} exited {done.returncode}: {done.stderr.strip()[-1500:]}")
    return done.stdout


def dump_dom(chromium: str, url: str, *flags: str) -> str:
    """The serialised DOM once the page has loaded and its inline script has run; ``flags`` are more
    Chromium switches (``--allow-file-access-from-files`` lets a local page read the frames it embeds)."""
    return _run(chromium, *flags, "--virtual-time-budget=5000", "--dump-dom", url)


def screenshot(chromium: str, url: str, path: Path, size: tuple[int, int] = (1400, 1000)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    _run(chromium, f"--window-size={size[0]},{size[1]}", f"--screenshot={path}", url)
    if not path.is_file():
        raise BrowserError(f"{chromium} printed no error but wrote no screenshot to {path}")
    return path
