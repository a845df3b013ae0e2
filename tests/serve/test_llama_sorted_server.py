"""The test server's ``zip`` hands llama-cpp-python's vocabulary sort its pairs already in the
sort's own order, and leaves every other ``zip`` alone."""

from __future__ import annotations

import numpy as np
from llama_sorted_server import presorted_zip


def _logprobs() -> np.ndarray:
    """Float32 log-probs of a 49,152-token vocabulary with many ties, a -0.0 and a -inf."""
    rng = np.random.default_rng(7)
    values = np.round(np.minimum(rng.normal(-12.0, 3.0, 49_152), -1.0), 1).astype(np.float32)
    values[[5, 9, 40_000]] = 0.0
    values[17] = -0.0
    values[23] = -np.inf
    return values


def test_pairs_come_in_the_order_sorted_puts_them_in():
    values = _logprobs()
    expected = sorted(zip(values, range(len(values)), strict=True), reverse=True)
    pairs = list(presorted_zip(values, range(len(values))))
    assert [(float(v), i) for v, i in pairs] == [(float(v), i) for v, i in expected]
    assert [type(v) for v, _ in pairs[:3]] == [np.float32] * 3 and pairs[0][1] == 40_000
    as_list = values.tolist()  # the streaming path's log-probs
    expected = sorted(zip(as_list, range(len(as_list)), strict=True), reverse=True)
    assert list(presorted_zip(as_list, range(len(as_list)))) == expected


def test_other_zips_keep_their_order():
    ids = np.array([3, 1, 2])
    assert list(presorted_zip(ids, range(3))) == [(3, 0), (1, 1), (2, 2)]
    assert list(presorted_zip([3, 1, 2], range(3))) == [(3, 0), (1, 1), (2, 2)]
    assert list(presorted_zip([0.5, 0.7], [1, 2])) == [(0.5, 1), (0.7, 2)]
    assert list(presorted_zip([0.5, 0.7], range(1, 3))) == [(0.5, 1), (0.7, 2)]
    assert list(presorted_zip(ids, [1, 2, 3], [4, 5, 6])) == [(3, 1, 4), (1, 2, 5), (2, 3, 6)]
