"""Auditing the pipeline end to end: a party's whole output, dependence phase + release, composed.

The distributed pipeline (:mod:`mpc_rr.pipeline`) releases two things about
each party to the coordinator with dependence source ``rr``: its Sec. 4.1
record randomized attribute by attribute, and -- after the clustering, which
depends on everybody's first release -- its record randomized cluster by
cluster.  The pipeline accounts ``epsilon = sum_A eps_A + eps_release``
(sequential composition).  This audit checks that figure on the real roles:

* **one-run design** (Steinke, Nasr & Jagielski 2023): every party of one
  simulated collection is a canary holding ``x_0 = (0, ..., 0)`` or
  ``x_1 = (1, ..., 1)`` by a secret fair coin; the whole pipeline runs once
  (real roles, the synchronous harness); the auditor sees what the
  coordinator received from each party and guesses the coin when *both*
  releases equal one canary exactly, abstaining otherwise;
* for keep-or-uniform attributes and the cluster / lambda releases that
  output is the one with the largest likelihood ratio, ``e^eps`` with eps the
  pipeline's accounting, so the test is tight; the lower bound is the logit
  of the Clopper-Pearson bound on the guesses' precision (pure epsilon,
  delta = 0: their theorem holds although the canaries share one run and the
  clustering depends on all of them).

Records are synthetic (``sizes`` attributes, two canaries); a planted bug is
a data-party class that releases more than it declares (``planted=``, e.g.
:class:`~mpc_rr.adversary.RawRecordParty`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from mpc_rr.adversary._audit import AuditVerdict, epsilon_from_precision
from mpc_rr.adversary._stats import check_confidence, check_count, cp_lower, cp_two_sided
from mpc_rr.core import COORDINATOR, HarnessRunner, Runner, UsageError
from mpc_rr.data import Attribute, Schema
from mpc_rr.pipeline import DataParty, PipelineConfig, pipeline_roles
from mpc_rr.pipeline import _signing as signing

__all__ = ["PipelineAuditResult", "pipeline_audit", "synthetic_schema"]

PartyClass = Callable[..., DataParty]


def synthetic_schema(sizes: Sequence[int]) -> Schema:
    """Attributes ``A0, A1, ...`` with ``sizes[j]`` categories ``"0", "1", ...``."""
    if not sizes or min(int(s) for s in sizes) < 2:
        raise UsageError(f"sizes must list attributes with at least 2 categories, got {list(sizes)}")
    return Schema(
        tuple(Attribute(f"A{j}", tuple(str(c) for c in range(int(s)))) for j, s in enumerate(sizes))
    )


@dataclass(frozen=True, kw_only=True)
class PipelineAuditResult(AuditVerdict):
    """A one-run audit of the pipeline (fields as :class:`~mpc_rr.adversary.OneRunResult`).

    ``epsilon_claimed``: the pipeline's own accounting for each party
    (``dependence + release``); ``epsilon_true``: the exact composed epsilon
    of the honest mechanisms (``None`` for a planted party: unknown to the
    auditor); ``clusters``: the clustering the run broadcast.
    """

    parties: int
    epsilon_dependence: float
    epsilon_release: float
    mechanism: str
    p: float
    sizes: tuple[int, ...]
    clusters: tuple[tuple[int, ...], ...]
    trials: int

    def to_dict(self) -> dict[str, object]:
        out = asdict(self) | {"violation": self.violation, "ci": list(self.ci)}
        out["clusters"] = [list(c) for c in self.clusters]
        out["sizes"] = list(self.sizes)
        return out


def pipeline_audit(
    sizes: Sequence[int],
    parties: int,
    rng: np.random.Generator,
    *,
    p: float = 0.3,
    mechanism: str = "cluster",
    confidence: float = 0.95,
    tv: int = 100,
    td: float = 0.1,
    planted: PartyClass | None = None,
    runner: Runner | None = None,
) -> PipelineAuditResult:
    """One-run audit of ``parties`` canaries through the real pipeline roles (module docstring).

    ``rng`` draws the coins and the parties' seed (each party then has its
    own generator, as in every simulation).  ``runner`` defaults to the
    harness without codec round trips (the messages are those of the real
    run; only the re-decoding is skipped).
    """
    parties = check_count(parties, "parties", 2)
    confidence = check_confidence(confidence)
    start = time.perf_counter()
    schema = synthetic_schema(sizes)
    m = len(schema.sizes)
    coins = rng.integers(0, 2, size=parties)
    canary = np.stack([np.zeros(m, np.int64), np.ones(m, np.int64)])
    records = canary[coins]
    key = signing.new_signing_key()
    cfg = PipelineConfig(
        schema, n=parties, p=p, tv=tv, td=td, dependence="rr", mechanism=mechanism, adjust=False,
        coordinator_key=signing.public_bytes(key), run="pipeline-audit",
    )  # fmt: skip
    seed = int(rng.integers(2**63))
    roles = pipeline_roles(cfg, records, seed, key)
    if planted is not None:
        from mpc_rr.core import party_generators

        gens = party_generators(seed, parties)
        for i in range(1, parties + 1):
            roles[i] = planted(i, cfg, records[i - 1], gens[i - 1])
    run = (runner if runner is not None else HarnessRunner(roundtrip=False))(roles)
    if not run.ok and COORDINATOR in run.errors:
        raise UsageError(f"pipeline audit: the run failed: {run.errors[COORDINATOR]}")
    res = roles[COORDINATOR].result
    dep_ids = list(res.parties_dependence)
    rel_ids = list(res.parties_release)
    y = {i: row for i, row in zip(dep_ids, np.asarray(res.dependence_randomized), strict=True)}
    z = {i: row for i, row in zip(rel_ids, res.rows(), strict=True)}
    both = [i for i in rel_ids if i in y]
    guesses = correct = 0
    for i in both:
        for b in (0, 1):
            if np.array_equal(y[i], canary[b]) and np.array_equal(z[i], canary[b]):
                guesses += 1
                correct += int(coins[i - 1] == b)
    lo = cp_lower(correct, guesses, 1.0 - confidence)
    eps_lower = max(0.0, epsilon_from_precision(lo, 2)) if lo > 0 else 0.0
    eps = res.epsilon
    return PipelineAuditResult(
        parties=parties,
        guesses=guesses,
        correct=correct,
        success=correct / guesses if guesses else 0.5,
        baseline=0.5,
        ci=cp_two_sided(correct, guesses, confidence) if guesses else (0.0, 1.0),
        confidence=confidence,
        epsilon_lower=eps_lower,
        epsilon_true=None if planted is not None else float(eps["total"]),
        epsilon_claimed=float(eps["total"]),
        epsilon_dependence=float(eps["dependence"]),
        epsilon_release=float(eps["release"]),
        mechanism=mechanism,
        p=float(p),
        sizes=tuple(int(s) for s in schema.sizes),
        clusters=tuple(tuple(int(a) for a in c) for c in res.clustering.clusters),
        trials=len(both),
        seconds=time.perf_counter() - start,
    )
