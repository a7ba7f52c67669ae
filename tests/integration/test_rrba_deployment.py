"""RRBA deployed as one OS process per party: equal to the centralized engine with seeded noise,
fresh answers with the deployed CSPRNG."""

from __future__ import annotations

import pytest

from mpc_rr.core import COORDINATOR
from mpc_rr.data import Dataset
from mpc_rr.rrba import run_rrba


@pytest.mark.slow
@pytest.mark.parametrize("secure", [False, True], ids=["plain", "secure"])
def test_one_process_per_party_equals_the_centralized_engine(survey: Dataset, secure: bool) -> None:
    from parties.procs import run_processes

    n, seed = 12, 3
    params = {"schema": "survey", "block": 6, "p": 0.5, "noise": "seeded", "secure_tally": secure}
    r = run_processes("rrba", n + 1, seed=seed, params=params, step_timeout=30, timeout=240, linger=120)
    assert r.ok, r.errors
    ref = run_rrba(Dataset(survey.schema, survey.codes[:n]), p=0.5, block=6, seed=seed)
    for est, want in zip(r.results[0]["estimates"], ref.estimates, strict=True):
        assert est == want.reshape(-1).tolist()
    assert r.results[0]["dropouts"]["answered"] == n
    assert r.costs.parties[COORDINATOR].messages_received == (5 * n if secure else n)  # SecAgg+: 5 steps
    # deployed (CSPRNG) clients: another run with the same seed releases different answers
    params["noise"] = "csprng"
    a = run_processes("rrba", n + 1, seed=seed, params=params, step_timeout=30, timeout=240, linger=120)
    assert a.ok and a.results[0]["estimates"] != r.results[0]["estimates"]
