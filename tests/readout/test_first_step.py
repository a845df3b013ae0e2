"""lm-polygraph's first-step log-probability, against a hand-worked logits processor chain."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax

from readout_audit.model._distribution import TokenDistribution
from readout_audit.readout._first_step import first_step_logprob

LOGITS = np.array([2.0, 1.0, 0.0, -1.0, 0.5])
EOS = 1


def test_suppressed_tokens_take_the_row_minimum_logit_as_the_sanitizer_gives_them():
    plain = log_softmax(LOGITS)
    # min_new_tokens=1 sets the EOS logit to -inf; the sanitizer replaces it with the smallest
    # finite logit (-1.0); the score hook takes the log-softmax of that row.
    processed = log_softmax(np.array([2.0, -1.0, 0.0, -1.0, 0.5]))
    value, removed = first_step_logprob(TokenDistribution(plain), 0, [EOS])
    assert value == pytest.approx(processed[0], abs=1e-6)
    assert removed == pytest.approx(np.exp(plain[EOS]), abs=1e-7)
    assert value > plain[0] + 0.1  # the renormalisation is material here


def test_partial_distribution_removes_the_suppressed_tokens_outright():
    plain = log_softmax(LOGITS)
    known = {0: float(plain[0]), EOS: float(plain[EOS])}
    value, removed = first_step_logprob(TokenDistribution(known=known), 0, [EOS])
    without = log_softmax(np.array([2.0, -np.inf, 0.0, -1.0, 0.5]))
    assert value == pytest.approx(without[0], abs=1e-6)
    assert removed == pytest.approx(np.exp(plain[EOS]), abs=1e-7)


def test_no_suppressed_ids_is_the_plain_value_and_reading_a_suppressed_id_is_none():
    plain = log_softmax(LOGITS)
    assert first_step_logprob(TokenDistribution(plain), 0, []) == (
        pytest.approx(plain[0], abs=1e-6),
        0.0,
    )
    assert first_step_logprob(TokenDistribution(plain), EOS, [EOS]) == (None, None)
    assert first_step_logprob(TokenDistribution(known={0: -1.0}), 0, [EOS]) == (None, None)
