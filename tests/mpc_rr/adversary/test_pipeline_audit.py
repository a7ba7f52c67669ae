"""Audits of the pipeline end to end (every party's output, the real roles): the composed epsilon
approached, nothing leaks -> 0, never above the accounting beyond the confidence level, a
planted raw record flagged."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mpc_rr.adversary import pipeline_audit
from mpc_rr.adversary._broken import RawRecordParty
from mpc_rr.adversary._pipeline_audit import synthetic_schema
from mpc_rr.core import UsageError


def test_pipeline_end_to_end_honest_nothing_and_planted():
    rng = np.random.default_rng(12)
    honest = pipeline_audit((2, 2, 2), 1500, rng, p=0.3)
    assert honest.epsilon_claimed == pytest.approx(honest.epsilon_dependence + honest.epsilon_release)
    assert 0.0 < honest.epsilon_lower <= honest.epsilon_claimed and not honest.violation
    assert honest.epsilon_lower > 1.0  # the composed figure is approached, not only one phase
    nothing = pipeline_audit((2, 2, 2), 1500, rng, p=1e-9)
    assert nothing.epsilon_lower == 0.0 and nothing.ci[0] <= 0.5 <= nothing.ci[1]
    bug = pipeline_audit((2, 2, 2), 1500, rng, p=0.3, planted=RawRecordParty)
    assert bug.violation and bug.epsilon_lower > bug.epsilon_claimed and bug.epsilon_true is None


def test_pipeline_audit_never_above_its_accounting_beyond_alpha():
    rng = np.random.default_rng(13)
    runs = [pipeline_audit((2, 2), 400, rng, p=0.6) for _ in range(12)]
    above = sum(r.epsilon_lower > r.epsilon_claimed for r in runs)
    assert above <= stats.binom.ppf(0.999, len(runs), 0.05)
    assert all(r.guesses > 0 for r in runs)


def test_usage_errors():
    with pytest.raises(UsageError, match="at least 2 categories"):
        synthetic_schema([2, 1])
    with pytest.raises(UsageError, match="parties must be an integer >= 2, got 1"):
        pipeline_audit((2, 2), 1, np.random.default_rng(0))
