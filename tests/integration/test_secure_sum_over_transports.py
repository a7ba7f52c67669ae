"""Every registered sum protocol over the runtime: memory transport (virtual time) and TCP + mutual TLS."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import COORDINATOR
from mpc_rr.data import ADULT_SCHEMA
from mpc_rr.mdrr import PairLayout
from mpc_rr.mdrr._pair_cells import crosstabs
from mpc_rr.secure_sum import sum_protocol, sum_protocol_names
from mpc_rr.workflows import exact_bivariate_counts, run_secure_sum
from parties.runners import runner_for


def _tolerance(protocol: str) -> dict:
    """A dropout bound, where the protocol takes one (SecAgg+)."""
    return {"max_dropout": 0.1} if "max_dropout" in sum_protocol(protocol).option_names() else {}


def _memory_transport_exact(n: int, seed: int, protocol: str) -> None:
    x = np.random.default_rng(seed).integers(0, 2, size=(n, 3))
    rep = run_secure_sum(protocol, x, seed=seed, runner=runner_for("memory"), **_tolerance(protocol))
    assert rep.exact and rep.survivors == n, rep.aborted


NAMES = sum_protocol_names()  # every registered sum protocol
PROTOCOLS = st.sampled_from(NAMES)


# the full mesh is O(n^2): one draw near n = 200 took 14 s under load, so the default tier
# stops at 64 parties and the slow tier goes on to 200
@settings(max_examples=6, deadline=None)
@given(n=st.integers(2, 64), seed=st.integers(0, 10**6), protocol=PROTOCOLS)
def test_property_memory_transport_exact(n: int, seed: int, protocol: str) -> None:
    _memory_transport_exact(n, seed, protocol)


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(n=st.integers(65, 200), seed=st.integers(0, 10**6), protocol=PROTOCOLS)
def test_property_memory_transport_exact_up_to_200_parties(n: int, seed: int, protocol: str) -> None:
    _memory_transport_exact(n, seed, protocol)


@settings(max_examples=3, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 10**6), protocol=PROTOCOLS)
def test_property_tcp_tls_exact(n: int, seed: int, protocol: str) -> None:
    x = np.random.default_rng(seed).integers(0, 2, size=(n, 3))
    rep = run_secure_sum(protocol, x, seed=seed, runner=runner_for("tcp"), **_tolerance(protocol))
    assert rep.exact and rep.survivors == n, rep.aborted


@pytest.mark.parametrize("protocol", NAMES)
@pytest.mark.parametrize("n", [2, 9])
def test_tcp_tls_matches_harness_costs(protocol: str, n: int) -> None:
    x = np.random.default_rng(n).integers(0, 2, size=(n, 7))
    tcp = run_secure_sum(protocol, x, seed=1, runner=runner_for("tcp", step_timeout=5.0))
    ref = run_secure_sum(protocol, x, seed=1, runner=runner_for("harness"))
    assert tcp.exact and ref.exact
    np.testing.assert_array_equal(tcp.total, ref.total)
    assert tcp.costs.messages == ref.costs.messages
    if protocol != "secagg":  # secagg key material is fresh per run: sizes may differ by bytes
        assert tcp.costs.bytes == ref.costs.bytes


# The memory transport runs in virtual time (a MockClock that jumps when every task waits), so
# its deadlines are exact whatever the load: every step, within the bound and beyond it.  On TCP
# the kernel's sockets run in wall time and each run waits out the silent parties' deadline, so
# one dropout run there, with a deadline generous enough that no live party under load (two
# suites side by side on 2 cores) misses it; the claim checked is the outcome, not the timing.
DROPOUT_RUNS = {
    "memory": {"step_timeout": 0.5, "steps": ("keys", "shares", "masked", "unmask"), "beyond": True},
    "tcp": {"step_timeout": 3.0, "steps": ("masked",), "beyond": False},
}


@pytest.mark.parametrize("transport", ["memory", "tcp"])
def test_secagg_dropouts_over_transports_within_and_beyond(transport: str) -> None:
    x = np.random.default_rng(3).integers(0, 2, size=(20, 5))
    plan = DROPOUT_RUNS[transport]
    kw = {"runner": runner_for(transport, step_timeout=plan["step_timeout"]), "max_dropout": 0.2, "seed": 4}
    for step in plan["steps"]:
        rep = run_secure_sum("secagg", x, dropout=0.2, drop_step=step, **kw)
        assert rep.exact, (step, rep.aborted)
        assert rep.inputs_in_sum == (20 if step == "unmask" else 16) and rep.survivors == 16
    if plan["beyond"]:
        rep = run_secure_sum("secagg", x, dropout=0.25, drop_step="masked", **kw)
        assert not rep.exact and "5 of 20 parties dropped out by step MASKED" in rep.aborted
        assert set(rep.culprits) == set(rep.dropped)  # the abort names the missing parties by id


def test_bivariate_counts_memory_transport() -> None:
    rng = np.random.default_rng(8)
    codes = rng.integers(0, ADULT_SCHEMA.sizes, size=(120, len(ADULT_SCHEMA)))
    out = exact_bivariate_counts(codes, ADULT_SCHEMA, seed=2, runner=runner_for("memory"))
    for k, t in crosstabs(codes, ADULT_SCHEMA.sizes).items():
        np.testing.assert_array_equal(out.tables[k], t)


@pytest.mark.slow
def test_bivariate_counts_300_parties_tcp_tls_equal_memory() -> None:
    rng = np.random.default_rng(9)
    codes = rng.integers(0, ADULT_SCHEMA.sizes, size=(300, len(ADULT_SCHEMA)))
    mem = exact_bivariate_counts(codes, ADULT_SCHEMA, seed=3, runner=runner_for("memory"))
    tcp = exact_bivariate_counts(codes, ADULT_SCHEMA, seed=3, runner=runner_for("tcp"))
    assert tcp.report.cells == PairLayout(ADULT_SCHEMA.sizes).cells
    for k, t in mem.tables.items():
        np.testing.assert_array_equal(tcp.tables[k], t)


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["secagg", "full-mesh-board"])
def test_one_os_process_per_party_over_tls(protocol: str) -> None:
    from mpc_rr.secure_sum import expected_total
    from parties.procs import run_processes

    r = run_processes(protocol, 6, seed=3, params={"cells": 40}, timeout=120)
    assert r.ok, r.errors
    for pid in range(6):
        np.testing.assert_array_equal(r.results[pid]["total"], expected_total(5, 3, 40))


def test_secagg_dropouts_at_two_different_steps_within_the_bound() -> None:
    """In virtual time (memory transport): TCP's dropout run is the one above."""
    x = np.random.default_rng(5).integers(0, 2, size=(12, 6))
    rep = run_secure_sum(
        "secagg", x, seed=2, max_dropout=0.25, runner=runner_for("memory", step_timeout=1.0),
        victims={2: "keys", 6: "masked", 9: "unmask"},
    )  # fmt: skip
    assert rep.exact, rep.aborted
    assert set(rep.run.roles[COORDINATOR].result.included) == set(range(1, 13)) - {2, 6}
