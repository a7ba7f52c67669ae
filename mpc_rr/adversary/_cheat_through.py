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

__all__ = ["PIPELINE_CHEATS", "pipeline_cheat", "rrba_cheat"]

PIPELINE_CHEATS = ("key-substitution", "equivocate")
"""Server strategies played through the pipeline."""

_NAME = "secagg-cheat"


def pipeline_cheat(strategy: str, *, broken: bool, n: int = 20, trials: int = 3, seed: int = 0) -> dict[str, Any]:
    """Play ``strategy`` through the pipeline's secure-sum dependence (module docstring)."""
    return _through("pipeline", strategy, broken=broken, n=n, trials=trials, seed=seed)


def rrba_cheat(strategy: str, *, broken: bool, n: int = 40, trials: int = 3, seed: int = 0) -> dict[str, Any]:
    """Play ``strategy`` through RRBA's secure tally: every block's SecAgg+ server cheats."""
    return _through("rrba", strategy, broken=broken, n=n, trials=trials, seed=seed)


def _build(outer: str, n: int, rng: np.random.Generator, run: str, seed: int) -> dict[int, Role]:
    from mpc_rr.data import Attribute, Schema
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles, signing
    from mpc_rr.rrba import RRBAConfig, rrba_roles

    records = np.stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n)], axis=1)
    if outer == "rrba":
        rcfg = RRBAConfig(sizes=(3, 2, 2), n_clients=n, block=n // 2, p=0.5, run=run, secure_tally=True,
                          sum_protocol=_NAME, sum_options={"threshold": 5})  # fmt: skip
        return rrba_roles(rcfg, records, seed)
    schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
    key = signing.new_signing_key(bytes(range(32)))
    cfg = PipelineConfig(
        schema=schema, n=n, p=0.8, dependence="secure-sum", sum_protocol=_NAME,
        sum_options={"threshold": 5}, coordinator_key=signing.public_bytes(key), run=run,
    )  # fmt: skip
    return pipeline_roles(cfg, records, seed, key)


def _through(outer: str, strategy: str, *, broken: bool, n: int, trials: int, seed: int) -> dict[str, Any]:

    if strategy not in PIPELINE_CHEATS:
        raise UsageError(f"pipeline: the strategies played are {', '.join(PIPELINE_CHEATS)}, not {strategy!r}")
    made: dict[tuple[str, int], Role] = {}  # (inner run id, inner party id): RRBA runs one sum per block
    servers: list[CheatingServer] = []

    def role(party_id: int, pub: Any, x: np.ndarray | None, *, entropy: Any = None, identity: Any = None) -> Role:
        if party_id == COORDINATOR:
            srv = CheatingServer(pub.config, pub.graph, strategy=strategy, identity=identity)
            srv.sign_receipts = not broken
            servers.append(srv)
            return srv
        if x is None:
            raise UsageError(f"data party {party_id} needs an input vector")
        cls = TrustingClient if broken else SecAggClient
        made[(pub.config.run, party_id)] = cls(party_id, pub.config, pub.graph, x, entropy=entropy, identity=identity)
        return made[(pub.config.run, party_id)]

    detections, recovered, total, named, baseline = 0, 0, 0, set(), 0.0
    register_protocol(dataclasses.replace(SPEC, name=_NAME, role=role, hooks={}))
    try:
        for trial in range(trials):
            made.clear()
            servers.clear()
            rng = np.random.default_rng([seed, trial])
            roles = _build(outer, n, rng, f"cheat-{seed}-{trial}", seed + trial)
            HarnessRunner()(roles)
            blamed = {c for i in range(1, n + 1) if (e := roles[i].error) is not None for c in e.culprits}
            # RRBA: a failed block tally ends the client's block, not the client; its SecAgg+ role
            # (ids within the block; 0 is the aggregator in both) holds whom it named
            inner = [getattr(roles[i], "sub_error", lambda: None)() for i in range(1, n + 1)]
            blamed |= {COORDINATOR for e in inner if e is not None and COORDINATOR in e.culprits}
            named |= blamed
            detections += COORDINATOR in blamed
            learned = {(srv.cfg.run, u): v for srv in servers for u, v in srv.learned.items()}
            clients = {k: r for k, r in made.items() if isinstance(r, SecAggClient)}
            recovered += len([k for k, v in learned.items() if k in clients and np.array_equal(v, clients[k].x)])
            total += n
            # a guess that knows the inputs' distribution: everyone holds the most common vector
            inputs = [r.x.tobytes() for r in clients.values()]
            baseline += max((inputs.count(v) for v in set(inputs)), default=0)
    finally:
        unregister_protocol(_NAME)
    return {
        "protocol": outer, "strategy": strategy, "side": "server", "variant": "broken" if broken else "ours",
        "trials": trials, "n": n, "detected": detections == trials, "detections": detections,
        "culprits": sorted(named), "culprit_named": COORDINATOR in named, "inputs_recovered": recovered,
        "inputs_total": total, "baseline": baseline,
        "notes": ["inputs: each party's input to the inner SecAgg+ (pipeline: its pair one-hot vector; "
                  "RRBA: its block's tally vector), recovered exactly"],
    }  # fmt: skip
