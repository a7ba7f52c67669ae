"""The ledger's empirical lower bound: which phases are audited, how, and what the total shows."""

from __future__ import annotations

import math

import pytest

from mpc_rr.core import UsageError
from mpc_rr.privacy import PhaseSpec, Release, build_ledger, with_audits
from mpc_rr.workflows import audit_ledger
from mpc_rr.workflows._ledger_audit import audit_phase


def test_shuffled_krr_phase_is_audited_on_its_multiset_and_stays_below_the_claim() -> None:
    # few parties: little amplification, so the audit has something to find
    spec = PhaseSpec("pairs", "secure-sum", 10, (Release(1.0, 3), Release(2.5, 3)))
    ledger = build_ledger([spec])
    lower = audit_phase(spec, ledger.delta, trials=40_000, seed=1)
    assert lower is not None and 0.5 < lower <= ledger.entries[0].central_epsilon


def test_direct_krr_phase_is_audited_on_the_randomizer() -> None:
    spec = PhaseSpec("release", "direct", 500, (Release(2.0, 4), Release(1.0, 4)))
    lower = audit_phase(spec, 1e-6, trials=40_000, seed=2)
    assert lower is not None and 1.0 < lower <= 2.0  # the strongest release: eps0 = 2


def test_what_cannot_be_audited_says_none() -> None:
    exact = PhaseSpec("sum", "secure-sum", 100, (), not_dp="exact counts")
    generic = PhaseSpec("lambda", "direct", 100, (Release(3.0),))  # not k-RR: no model to audit
    assert audit_phase(exact, 1e-6, trials=1000) is None
    assert audit_phase(generic, 1e-6, trials=1000) is None


def test_total_shows_the_largest_phase_audit_and_lines_print_it() -> None:
    specs = [PhaseSpec("a", "direct", 100, (Release(1.0, 2),)), PhaseSpec("b", "direct", 100, (Release(2.0),))]
    ledger = audit_ledger(build_ledger(specs), specs, trials=20_000, seed=3)
    a, b = ledger.entries
    assert a.audit_lower is not None and b.audit_lower is None
    assert ledger.total.audit_lower == a.audit_lower
    assert ledger.to_json()["total"]["audit_lower"] == a.audit_lower  # type: ignore[index]
    assert any("audit >= " in line for line in ledger.lines())
    with pytest.raises(UsageError, match="audits for"):
        with_audits(ledger, [1.0])
    assert math.isclose(with_audits(ledger, [None, None]).entries[0].audit_lower or 0.0, 0.0)
