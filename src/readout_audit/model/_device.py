"""Where a model runs and in what precision: ``--device``, ``--dtype`` and ``--device-map``."""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator

from readout_audit._exceptions import InputError

DEVICES = "auto, cpu, cuda, cuda:N or mps"
Dtype = Literal["auto", "float32", "float64", "bfloat16", "float16"]
DTYPES: tuple[str, ...] = get_args(Dtype)
_CUDA = re.compile(r"cuda(?::([0-9]{1,4}))?")
"""``cuda`` or ``cuda:N``: ASCII digits only (``int`` would read ``cuda:٣`` as GPU 3)."""


def _unknown(device: str) -> str:
    """Why ``device`` is refused, quoting it escaped (it may hold a terminal's control codes)."""
    return f"unknown device {device!r}; expected {DEVICES}"


def _named(device: str) -> str:
    """``device`` when it names a device, whether or not this machine has it."""
    if device not in ("auto", "cpu", "mps") and _CUDA.fullmatch(device) is None:
        raise ValueError(_unknown(device))
    return device


Device = Annotated[str, AfterValidator(_named)]
"""A settings field naming a device: refused when built, not when the model loads."""


def resolve_device(device: str) -> str:
    """The torch device a spec names: ``auto`` is cuda if available, else mps, else cpu.

    A device this machine does not have is an ``InputError`` naming it, never a silent CPU.
    """
    import torch

    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if torch.backends.mps.is_available() else "cpu"
    if device == "cpu":
        return "cpu"
    if device == "mps":
        if not torch.backends.mps.is_available():
            raise InputError("device 'mps' is not available on this machine", field="device")
        return "mps"
    found = _CUDA.fullmatch(device)
    if found is None:
        raise InputError(_unknown(device), field="device")
    if not torch.cuda.is_available():
        build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU-only build"
        raise InputError(
            f"device {device!r} is not available: this machine has no usable CUDA GPU "
            f"(torch {torch.__version__}, {build})",
            field="device",
        )
    index = int(found.group(1) or 0)
    if index >= torch.cuda.device_count():
        raise InputError(
            f"device {device!r} is not available: this machine has "
            f"{torch.cuda.device_count()} CUDA device(s)",
            field="device",
        )
    return device


def resolve_dtype(dtype: str, device: str) -> str:
    """The weights' dtype: ``auto`` is float32 on cpu and mps, and bfloat16 on a GPU.

    A GPU without bfloat16 gets float16.
    """
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    if dtype != "auto":
        return dtype
    if device.startswith("cuda"):
        import torch

        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "float32"
