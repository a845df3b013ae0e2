"""A PNG of the HTML report, taken by headless Chromium (for docs and quick looks)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from readout_audit._exceptions import ReadoutError

CHROMIUM_FLAGS = (
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
"""Headless, offline: no connection is attempted, so a closed network raises no errors."""


def screenshot(html: Path, png: Path, *, width: int = 1280, height: int = 2000) -> Path:
    """Render ``html`` in headless Chromium and save the top ``width`` × ``height`` as PNG.

    Chromium writes a temporary file beside ``png``, renamed over it only once complete.
    """
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise ReadoutError("a screenshot needs Chromium (Debian package: chromium)")
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp = png.with_name(png.name + ".tmp.png")
    tmp.unlink(missing_ok=True)  # left by an interrupted screenshot
    with tempfile.TemporaryDirectory() as profile:
        command = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={tmp.resolve()}",
            html.resolve().as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        raise ReadoutError(f"Chromium could not take the screenshot: {done.stderr.strip()[-500:]}")
    os.replace(tmp, png)
    return png
