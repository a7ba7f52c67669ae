"""The audit of the noise inside a secure sum: never above the claim; catches an under-noised sum."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mpc_rr.adversary import audit_sum_noise
from mpc_rr.core import UsageError
from mpc_rr.privacy import dependence_sensitivity
from mpc_rr.secure_sum import calibrate_noise

NOISE = calibrate_noise(2.0, 1e-6, 20, dependence_sensitivity(4), max_dropout=0.1, max_corrupt=0.1)


def test_the_audit_stays_under_the_claim_and_sees_the_noise() -> None:
    a = audit_sum_noise(NOISE, 6000, np.random.default_rng(1))
    assert a.honest == 16 and a.consistent()
    assert 0.2 < a.epsilon_lower <= NOISE.epsilon


def test_the_audit_catches_an_under_noised_sum() -> None:
    """The planted bug: the per-party variance a tenth of what the claim needs."""
    bad = dataclasses.replace(NOISE, central_variance=NOISE.central_variance / 10)
    a = audit_sum_noise(bad, 6000, np.random.default_rng(1))
    assert not a.consistent() and a.epsilon_lower > NOISE.epsilon


def test_the_audit_refuses_too_few_trials() -> None:
    with pytest.raises(UsageError, match="trials"):
        audit_sum_noise(NOISE, 10, np.random.default_rng(1))
