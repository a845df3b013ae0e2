"""llama-cpp-python's server, its vocabulary handed to its own sort already in order.

llama-cpp-python sorts all (log-prob, token id) pairs of the vocabulary in Python for every
position it returns log-probs for (``sorted(zip(logprobs, range(len(logprobs))),
reverse=True)``, ~0.07 s a position on 49,152 tokens: most of an echoed prompt's time). Here
that ``zip`` yields the pairs already in the order ``sorted`` puts them in (numpy orders them),
so the sort is one linear pass; ``sorted`` still decides the order, so every answer is the same.

Run as ``python llama_sorted_server.py ARGS`` with the arguments of ``python -m
llama_cpp.server``.
"""

from __future__ import annotations

import builtins
import runpy
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np


def presorted_zip(*iterables: Iterable[Any], strict: bool = False) -> Iterator[tuple[Any, ...]]:
    """``zip``, except that ``zip(logprobs, range(len(logprobs)))`` yields its pairs in
    descending order, ties by descending token id (``sorted(..., reverse=True)``'s order)."""
    if len(iterables) == 2 and isinstance(iterables[1], range):
        values, ids = iterables
        array = isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.ndim == 1
        floats = isinstance(values, list) and bool(values) and isinstance(values[0], float)
        if (array or floats) and ids == range(len(values)):
            keys = np.asarray(values, dtype=np.float64)[::-1]
            order = len(keys) - 1 - np.argsort(-keys, kind="stable")
            if isinstance(values, np.ndarray):
                return builtins.zip(values[order], order.tolist(), strict=True)
            return ((values[i], i) for i in order.tolist())
    return builtins.zip(*iterables, strict=strict)


if __name__ == "__main__":
    import llama_cpp.llama

    llama_cpp.llama.zip = presorted_zip
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
