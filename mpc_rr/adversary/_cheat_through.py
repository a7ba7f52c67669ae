"""A cheating SecAgg+ server inside the pipeline: its secure-sum dependence as the cheat's stage.

The pipeline's coordinator runs its dependence sum through ``SumSpec.role``
(:func:`mpc_rr.pipeline.dependence_role`).  :func:`pipeline_cheat` registers,
for the duration of the run only, a sum protocol ``secagg-cheat`` whose party
0 is :class:`~mpc_rr.adversary.CheatingServer` playing a server strategy and
whose data parties are our :class:`~mpc_rr.secure_sum.secagg.SecAggClient`
(or, for the broken variant, :class:`~mpc_rr.adversary.TrustingClient`), runs
the whole pipeline with it as the inner sum, and reports as
:func:`~mpc_rr.adversary.cheat` does: what the server learned (each party's
dependence input, exactly), whether the honest parties' pipeline roles aborted
and whom they named.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from mpc_rr.adversary._cheats import CheatingServer, TrustingClient
from mpc_rr.core import (
    COORDINATOR,
    HarnessRunner,
    Role,
    UsageError,
    register_protocol,
    unregister_protocol,
)
from mpc_rr.secure_sum.secagg import SPEC, SecAggClient

__all__ = ["PIPELINE_CHEATS", "pipeline_cheat"]

PIPELINE_CHEATS = ("key-substitution", "equivocate")
"""Server strategies played through the pipeline."""

_NAME = "secagg-cheat"


def pipeline_cheat(strategy: str, *, broken: bool, n: int = 20, trials: int = 3, seed: int = 0) -> dict[str, Any]:
    """Play ``strategy`` through the pipeline's secure-sum dependence (module docstring)."""
    from mpc_rr.data import Attribute, Schema
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles, signing

    if strategy not in PIPELINE_CHEATS:
        raise UsageError(f"pipeline: the strategies played are {', '.join(PIPELINE_CHEATS)}, not {strategy!r}")
    made: dict[int, Role] = {}

    def role(party_id: int, pub: Any, x: np.ndarray | None, *, entropy: Any = None, identity: Any = None) -> Role:
        if party_id == COORDINATOR:
            srv = CheatingServer(pub.config, pub.graph, strategy=strategy, identity=identity)
            srv.sign_receipts = not broken
            made[COORDINATOR] = srv
            return srv
        if x is None:
            raise UsageError(f"data party {party_id} needs an input vector")
        cls = TrustingClient if broken else SecAggClient
        made[party_id] = cls(party_id, pub.config, pub.graph, x, entropy=entropy, identity=identity)
        return made[party_id]

    schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
    key = signing.new_signing_key(bytes(range(32)))
    detections, recovered, total, named, baseline = 0, 0, 0, set(), 0.0
    register_protocol(dataclasses.replace(SPEC, name=_NAME, role=role, hooks={}))
    try:
        for trial in range(trials):
            made.clear()
            rng = np.random.default_rng([seed, trial])
            records = np.stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n)], axis=1)
            cfg = PipelineConfig(
                schema=schema, n=n, p=0.8, dependence="secure-sum", sum_protocol=_NAME,
                sum_options={"threshold": 5}, coordinator_key=signing.public_bytes(key), run=f"cheat-{seed}-{trial}",
            )  # fmt: skip
            roles = pipeline_roles(cfg, records, seed + trial, key)
            HarnessRunner()(roles)
            blamed = {c for i in range(1, n + 1) if (e := roles[i].error) is not None for c in e.culprits}
            named |= blamed
            detections += COORDINATOR in blamed
            server = made.get(COORDINATOR)
            learned = getattr(server, "learned", {})
            clients = {u: r for u, r in made.items() if isinstance(r, SecAggClient)}
            recovered += len([u for u, v in learned.items() if u in clients and np.array_equal(v, clients[u].x)])
            total += n
            # a guess that knows the inputs' distribution: everyone holds the most common vector
            inputs = [r.x.tobytes() for r in clients.values()]
            baseline += max((inputs.count(v) for v in set(inputs)), default=0)
    finally:
        unregister_protocol(_NAME)
    return {
        "protocol": "pipeline", "strategy": strategy, "side": "server", "variant": "broken" if broken else "ours",
        "trials": trials, "n": n, "detected": detections == trials, "detections": detections,
        "culprits": sorted(named), "culprit_named": COORDINATOR in named, "inputs_recovered": recovered,
        "inputs_total": total, "baseline": baseline,
        "notes": ["inputs: each party's dependence-sum input (its pair one-hot vector), recovered exactly"],
    }  # fmt: skip
