"""Why a read from the Hugging Face Hub found nothing, naming the fix that applies.

Without ``--allow-download`` the fix is to pass it; with it, the download itself failed, and
the reason is an offline switch in the environment or the network, never the missing flag.
"""

from __future__ import annotations

import os

OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
"""Environment variables that keep the Hugging Face libraries offline when set true."""
_TRUE = {"1", "ON", "YES", "TRUE"}


def offline_switches() -> list[str]:
    """The offline variables set true in the environment, as ``NAME=VALUE``."""
    return [
        f"{name}={os.environ[name]}"
        for name in OFFLINE_VARIABLES
        if os.environ.get(name, "").strip().upper() in _TRUE
    ]


def hub_hint(allow_download: bool) -> str:
    """What to do about a hub read that found nothing: the flag to pass, or why it failed."""
    if not allow_download:
        return "offline: pass --allow-download (allow_download=True) to fetch it"
    switches = offline_switches()
    if switches:
        return (
            f"downloading is allowed but failed: {', '.join(switches)} is set in the "
            "environment, which keeps the hub offline (unset it to download)"
        )
    return "downloading is allowed but failed: the Hugging Face Hub could not be reached"
