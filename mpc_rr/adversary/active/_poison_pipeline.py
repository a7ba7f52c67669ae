"""Poisoning the pipeline's dependence: how far ``M`` malicious parties move the dependences
and the clustering broadcast through the secure-sum dependence (Sec. 4.2 / 4.3).

The pipeline's dependence phase sums each party's pair cells (one one-hot
block per attribute pair, 1,582 cells on Adult) with the run's sum protocol;
every party then computes the dependences and the clustering from the total.
The last ``M`` parties want two attributes that are independent in the data
to look dependent (so that Algorithm 1 merges them into one cluster: the
release then spends its budget on a meaningless joint domain).  The target
pair is the least dependent pair whose joint domain may be merged
(``|A| |B| <= tv``).  Strategies (as in :mod:`mpc_rr.adversary.active._poison`):

* ``out-of-range`` -- a vector that adds ``boost`` to every "diagonal" cell
  ``(k, k)`` of the target pair's block and subtracts it from the others
  (default ``boost``: the expected count of a cell over ``M``, so the
  malicious together empty the off-diagonal cells); no valid encoding has it.
  SecAgg+ adds it modulo its modulus (a negative count wraps to a large
  one); prio3's one-hot-blocks proof rejects it and names the sender.
* ``chosen`` -- a valid vector (one 1 per pair block) whose target block puts
  the 1 on a diagonal cell (party ``k`` on ``(k mod |A|, k mod |B|)``).
  No validity proof can refuse it: each party moves each pair table by at
  most one count (the bound: ``M`` counts per table).
* ``skip-rr`` -- the pairwise-RR dependence (Sec. 4.3): honest parties
  randomize each pair; the malicious report ``chosen``'s cells without
  randomization, each worth ``1 / (p - q)`` true reports in the estimate
  (the bound: ``M / (p - q)`` per cell).

The honest run has the same parties, records and draws, so the change of the
dependence matrix and of the clustering is what the malicious parties bought.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.adversary.active._poison import POISON_STRATEGIES
from mpc_rr.core import COORDINATOR, HarnessRunner, UsageError
from mpc_rr.data import Dataset
from mpc_rr.mdrr import cluster_attributes
from mpc_rr.mdrr._pair_cells import pair_layout
from mpc_rr.pipeline import PipelineConfig
from mpc_rr.pipeline._dependence import (
    dependence_input,
    dependence_public,
    dependence_role,
    dependence_sum,
    dependences_from_aggregate,
)
from mpc_rr.secure_sum._trust import NO_VALIDITY

__all__ = ["PIPELINE_POISON_STRATEGIES", "PipelinePoisonResult", "poison_dependence"]

PIPELINE_POISON_STRATEGIES = POISON_STRATEGIES  # the same three, played on the dependence sum


@dataclass(frozen=True)
class PipelinePoisonResult:
    """What ``M`` malicious parties did to the dependences and the clusters."""

    protocol: str
    strategy: str
    parties: int
    malicious: tuple[int, ...]
    seed: int
    target: tuple[str, str]
    rejected: tuple[int, ...]
    dependence_honest: float
    dependence_attacked: float
    max_dependence_change: float
    clusters_honest: tuple[tuple[str, ...], ...]
    clusters_attacked: tuple[tuple[str, ...], ...]
    bound: str
    #: the released total is the plain sum of the valid vectors of the parties it includes
    exact_over_valid: bool = True
    #: what the dependence sum proved of each party's input (SumProtocol.validity_of)
    validity: str = NO_VALIDITY
    data: str = ""  # the records' data set (its name)

    @property
    def clusters_changed(self) -> bool:
        return self.clusters_honest != self.clusters_attacked

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol, "strategy": self.strategy, "parties": self.parties,
            "malicious": list(self.malicious), "seed": self.seed, "target_pair": list(self.target),
            "rejected": {"count": len(self.rejected), "ids": list(self.rejected)},
            "dependence_honest": self.dependence_honest,
            "dependence_attacked": self.dependence_attacked,
            "target_shift": self.dependence_attacked - self.dependence_honest,
            "max_dependence_change": self.max_dependence_change,
            "clusters_honest": [list(c) for c in self.clusters_honest],
            "clusters_attacked": [list(c) for c in self.clusters_attacked],
            "clusters_changed": self.clusters_changed, "bound": self.bound,
            "exact_over_valid": self.exact_over_valid, "validity": self.validity,
            "data": self.data,
        }  # fmt: skip


def _run(cfg: PipelineConfig, xs: dict[int, np.ndarray], encoded: dict[int, np.ndarray]) -> tuple[np.ndarray, tuple[int, ...]]:  # fmt: skip
    """The dependence sum over ``xs``; parties in ``encoded`` submit that vector as it is."""
    roles: dict[int, Any] = {COORDINATOR: dependence_role(cfg, COORDINATOR, None)}
    for pid, x in xs.items():
        roles[pid] = dependence_role(cfg, pid, x)
    for pid, vec in encoded.items():
        role = roles[pid]
        if hasattr(role, "pub") and hasattr(role.pub, "vdaf"):  # a proof-checked sum: cheat in the encoding
            from mpc_rr.secure_sum.prio3 import Prio3Client

            roles[pid] = Prio3Client(pid, role.pub, xs[pid], encoded=role.pub.vdaf.field.array(vec))
        elif hasattr(role, "x"):  # a masking sum adds whatever it masks: skip the role's own input check
            modulus = getattr(getattr(role, "config", None), "modulus", 2**32)
            role.x = (np.asarray(vec, np.int64) % modulus).astype(role.x.dtype)
        else:
            raise UsageError(f"{cfg.sum_protocol}: this attack cannot place an out-of-range input")
    res = HarnessRunner()(roles)
    r = dependence_sum(cfg).result_of(res.roles[COORDINATOR])
    return np.asarray(r.total, dtype=np.int64), tuple(getattr(r, "rejected", ()))


def poison_dependence(
    protocol: str,
    data: Dataset,
    *,
    parties: int,
    malicious: int,
    strategy: str,
    seed: int = 0,
    boost: int | None = None,
    p: float = 0.5,
) -> PipelinePoisonResult:
    """Run the honest dependence sum and the attacked one over ``protocol`` (module doc)."""
    if strategy not in PIPELINE_POISON_STRATEGIES:
        raise UsageError(f"unknown strategy {strategy!r}; the strategies are {', '.join(PIPELINE_POISON_STRATEGIES)}")
    if not 1 <= malicious < parties:
        raise UsageError(f"--malicious must be in [1, parties - 1 = {parties - 1}], got {malicious}")
    if parties > len(data.codes):
        raise UsageError(f"--parties {parties} exceeds the {len(data.codes)} records of {data.name}")
    rng = np.random.default_rng(seed)
    rows = data.codes[rng.choice(len(data.codes), parties, replace=False)]
    cfg = PipelineConfig(
        schema=data.schema, n=parties, p=p, coordinator_key=bytes(32), sum_protocol=protocol,
        dependence="pairwise-rr" if strategy == "skip-rr" else "secure-sum", run=f"poison-{protocol}-{seed}",
    )  # fmt: skip
    layout, sizes, names = pair_layout(cfg.sizes), cfg.sizes, data.schema.names
    draws = np.random.default_rng([seed, 1])
    xs = {i + 1: dependence_input(cfg, rows[i], draws) for i in range(parties)}
    honest_total, _ = _run(cfg, xs, {})
    deps_h = dependences_from_aggregate(cfg, honest_total)
    ch = cluster_attributes(deps_h, sizes, cfg.tv, cfg.td)
    a, b = _target(deps_h, sizes, cfg.tv, ch.clusters)
    block = layout.block(a, b)
    bad = tuple(range(parties - malicious + 1, parties + 1))
    attack = dict(xs)
    encoded: dict[int, np.ndarray] = {}
    for k, pid in enumerate(bad):
        chosen = np.asarray(layout.one_hot(rows[pid - 1][None, :])[0], np.int64)
        chosen[block] = 0
        chosen[block.start + (k % sizes[a]) * sizes[b] + (k % sizes[b])] = 1
        attack[pid] = chosen
        if strategy == "out-of-range":  # + on the diagonal, - elsewhere: no valid encoding has it
            cells = np.arange(sizes[a] * sizes[b])
            sign = np.where(cells // sizes[b] == cells % sizes[b], 1, -1)
            step = boost if boost is not None else max(1, round(parties / (sizes[a] * sizes[b]) / malicious))
            encoded[pid] = chosen.copy()
            encoded[pid][block] += sign * step
    total, rejected = _run(cfg, attack, encoded)
    deps_a = dependences_from_aggregate(cfg, total)
    valid_sum = sum((attack[pid] for pid in attack if pid not in rejected), np.zeros(layout.cells, np.int64))
    ca = cluster_attributes(deps_a, sizes, cfg.tv, cfg.td)
    q = (1 - p) / (sizes[a] * sizes[b])
    bound = {
        "chosen": f"{malicious} counts per pair table (one per party and pair)",
        "skip-rr": f"{malicious / p:.4g} counts per cell of the estimate (M / (p - q), p - q = {p:.3g}; q = {q:.3g})",
        "out-of-range": "unbounded below the modulus" if not rejected else "rejected: 0",
    }[strategy]  # fmt: skip
    return PipelinePoisonResult(
        protocol, strategy, parties, bad, seed, (names[a], names[b]), rejected,
        float(deps_h[a, b]), float(deps_a[a, b]), float(np.nanmax(np.abs(deps_a - deps_h))),
        tuple(tuple(names[i] for i in c) for c in ch.clusters),
        tuple(tuple(names[i] for i in c) for c in ca.clusters), bound,
        bool(np.array_equal(total, valid_sum)), dependence_sum(cfg).validity_of(dependence_public(cfg)),
        data.name,
    )  # fmt: skip


def _target(deps: np.ndarray, sizes: tuple[int, ...], tv: int,
            clusters: tuple[tuple[int, ...], ...]) -> tuple[int, int]:  # fmt: skip
    """The least dependent pair of attributes in two honest clusters whose joint domain is
    ``<= tv``: pushed above the other dependences, Algorithm 1 merges it first and the
    broadcast changes."""
    where = {i: c for c in clusters for i in c}
    m = len(sizes)
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)
             if where[i] != where[j] and sizes[i] * sizes[j] <= tv]  # fmt: skip
    if not pairs:
        pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    return min(pairs, key=lambda ij: (float(deps[ij]), ij))
