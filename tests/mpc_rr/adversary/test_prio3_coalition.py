"""Prio3's two aggregators together recover every input; either one alone guesses at chance."""

from __future__ import annotations

import numpy as np
from scipy.stats import binom

from mpc_rr.adversary._prio3_coalition import prio3_recover
from mpc_rr.core import HarnessRunner
from mpc_rr.secure_sum import secure_sum_roles


def test_both_aggregators_recover_every_input_and_one_alone_does_not() -> None:
    n, cells = 60, 4
    x = np.zeros((n, cells), np.int64)
    x[np.arange(n), np.random.default_rng(11).integers(0, cells, n)] = 1
    roles, _ = secure_sum_roles("prio3", x, run="coalition", options={"circuit": "histogram"})
    res = HarnessRunner()(roles)
    leader, helper = res.roles[0], res.roles[1]
    truth = {i: x[i - 1] for i in range(1, n + 1)}
    both = prio3_recover(leader, helper, truth)
    assert both.exact == both.targets == n
    # alone: at most the 99.9% quantile of Binomial(n, 1/4) right guesses (chance is 15 of 60)
    ceiling = binom.ppf(0.999, n, 1 / cells)
    for use_leader, use_helper in ((True, False), (False, True)):
        alone = prio3_recover(leader, helper, truth, use_leader=use_leader, use_helper=use_helper)
        assert alone.targets == n and alone.exact <= ceiling, (alone.views, alone.exact)
