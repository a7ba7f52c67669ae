"""Hostile inputs over TCP: a SecAgg+ party whose shares claim 2^64 recipients is named by the
aggregator and left out, and every other party gets the sum (tests/mpc_rr/secure_sum has the
same attack on the roles alone)."""

from __future__ import annotations

import numpy as np

from mpc_rr.core import COORDINATOR
from mpc_rr.secure_sum import SeededEntropy


def test_an_overflowing_shape_over_tcp_leaves_the_aggregator_serving(
    hostile_shares, hostile_run_roles
) -> None:
    from parties.tcp_runner import TcpRunner

    pub, x, roles = hostile_run_roles(seed=1)
    roles[5] = hostile_shares(5, pub.config, pub.graph, x[4], entropy=SeededEntropy(1).spawn(5))
    res = TcpRunner(step_timeout=2.0)(roles)
    server = roles[COORDINATOR]
    assert server.error is None and 5 not in server.result.included
    assert any(e.peer == 5 for e in res.costs.parties[COORDINATOR].peer_errors)
    for i in set(range(1, 9)) - {5}:
        np.testing.assert_array_equal(roles[i].result.total, server.result.total)
