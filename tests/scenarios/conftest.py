"""Fixtures of the scenario tests: a SecAgg+ study to sweep into a results store."""

from __future__ import annotations

import pytest

SECURE_SUM = """
[scenario]
name = "kill-test"
seed = 11
repeats = 2
metrics = ["completed", "exact", "survivors", "messages", "bytes"]

[protocol]
kind = "secure-sum"
protocol = "secagg"
parties = {parties}
cells = 8
transport = "harness"
max_dropout = 0.3333      # main's default became 0.1: the test sweeps past 1/3

[grid]
dropout = [0.0, 0.1, 0.2, 0.3, 0.4]
drop_step = ["shares", "masked"]
"""


@pytest.fixture(scope="session")
def secure_sum_study() -> str:
    """A study's TOML, ``{parties}`` to fill in: "kill-test", SecAgg+ (harness) at 5 dropout
    rates x 2 steps, 2 repeats, seed 11 -- 20 runs."""
    return SECURE_SUM
