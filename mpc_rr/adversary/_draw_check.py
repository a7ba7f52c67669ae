"""A conformance check of a protocol's public randomness against an adaptive adversary.

:func:`check_public_draws` runs the protocol a few times and checks what its
security argument needs of every public draw (SecAgg+'s neighbour graph and
consistency committee: Bell et al. 2020, Sec. 3, fix the corrupt set first and
draw the graph after):

* **fresh** -- two runs with the same roster and the same run label draw
  different graphs and committees (nothing public fixes them);
* **equivocation named** -- an aggregator that shows one party a different
  commitment set (one contribution left out: a seed it could steer that
  party's view with) is caught by that party, which leaves naming it;
* **withholding named** -- a colluder that withholds its reveal after
  committing cannot drop out of the draw: the run restarts without it, named
  in the retry's reason, and completes over a fresh draw (the seed uses exactly
  the committed contributions, so withholding buys a rerun, never a choice
  among the seeds of subsets);
* **adaptive coalition at the baseline** -- the server plus ``max_corrupt`` of
  the parties, placed before the draw on each target's neighbours as
  everything public predicts them, recovers no more than the ideal
  functionality allows (recovery rate at most ``2 %``), while the same
  coalition against the broken ``fixed-draw`` variant recovers them.

A sum protocol's conformance kit calls ``check_public_draws(name).ok`` for every
name in :data:`PUBLIC_DRAW_PROTOCOLS` (the protocols that make public draws).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpc_rr.adversary._broken import SECAGG_PLANTS
from mpc_rr.adversary._coalitions import coalition_sweep, secagg_coalition
from mpc_rr.adversary._recovery import RecoveryResult, member_state
from mpc_rr.core import COORDINATOR, DropAt, Send, UsageError, WireArray, run_roles
from mpc_rr.core._views import observe
from mpc_rr.secure_sum import sum_protocols
from mpc_rr.secure_sum._public_randomness import commitments_digest, joint_seed
from mpc_rr.secure_sum.secagg import (
    SECAGG_MESSAGES,
    DrawCommitted,
    DrawReveal,
    NeighborKeys,
    SecAggServer,
    secagg_public,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg import SPEC as SECAGG
from mpc_rr.secure_sum.secagg._messages import bitmap
from mpc_rr.secure_sum.secagg._params import drawn_graph, parties_in

__all__ = ["PUBLIC_DRAW_PROTOCOLS", "PublicDrawCheck", "check_public_draws"]

PUBLIC_DRAW_PROTOCOLS: tuple[str, ...] = tuple(p.name for p in sum_protocols() if p.public_draws)
"""The registered sum protocols whose runs make public draws (``SumProtocol.public_draws``)."""
"""The registered sum protocols whose security argument needs a public draw after corruption."""

MAX_RECOVERY = 0.02
"""Largest recovery rate of the adaptive coalition the check accepts (the ideal functionality's
level: the sum alone determines no honest input of a run this size)."""


@dataclass(frozen=True)
class PublicDrawCheck:
    """What :func:`check_public_draws` found (``ok``: every property holds)."""

    protocol: str
    parties: int
    fresh: bool
    equivocation_named: bool
    equivocation_reason: str
    withholding_named: bool
    withholding_reason: str
    adaptive_recovery: float
    adaptive_success: float
    baseline: float
    broken_recovery: float
    coalition_size: int

    @property
    def ok(self) -> bool:
        return (
            self.fresh and self.equivocation_named and self.withholding_named
            and self.adaptive_recovery <= MAX_RECOVERY and self.broken_recovery > MAX_RECOVERY
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"ok": self.ok}


class _ShowsAnotherSet(SecAggServer):
    """Shows ``target`` a commitment set without ``left_out``'s contribution, and then the keys
    of its neighbours in the graph that set's seed draws (every key and signature genuine)."""

    target = 1
    left_out = 2

    def _commit_draw(self) -> list[Send]:
        out = super()._commit_draw()
        members = self.ledger.contributors.copy()
        members[self.left_out] = False
        ids = np.flatnonzero(members)
        self._other = members
        self._other_digest = commitments_digest(SECAGG.name, self.run, members, self.ledger.draw_commit[ids].tobytes())
        return [Send(s.dst, DrawCommitted(run=self.run, step=0, digest=self._other_digest))
                if s.dst == self.target else s for s in out]  # fmt: skip

    def _check_draw(self, src: int, msg: DrawReveal, digest: bytes) -> None:
        super()._check_draw(src, msg, self._other_digest if src == self.target else digest)

    def _send_neighbor_keys(self) -> list[Send]:
        reveals = dict(self.ledger.draw_reveals)
        draw_sigs = {u: m.signature for u, m in reveals.items()}
        out = super()._send_neighbor_keys()
        ids = np.flatnonzero(self._other).tolist()
        shown = b"".join(reveals[u].reveal for u in ids)
        graph = drawn_graph(self.cfg, joint_seed(self._other_digest, shown))
        nb = [v for v in graph.of(self.target).tolist() if v != self.left_out and self.alive[v]]
        rows = np.asarray(nb)
        msg = NeighborKeys(
            run=self.run, step=0, ids=WireArray.from_numpy(rows.astype("<u4")),
            c_pks=WireArray.from_numpy(self.ledger.c_pk[rows]), s_pks=WireArray.from_numpy(self.ledger.s_pk[rows]),
            commits=WireArray.from_numpy(self.ledger.commit[rows]), signatures=[self.ledger.key_sigs[v] for v in nb],
            draw_commits=WireArray.from_numpy(self.ledger.draw_commit[rows]),
            contributors=bitmap(self._other), reveals=shown, draw_signatures=[draw_sigs[v] for v in nb],
        )  # fmt: skip
        return [Send(s.dst, msg) if s.dst == self.target else s for s in out]


def _fresh(n: int, run: str) -> bool:
    """Two runs, same roster and label (fresh contributions): different graphs and committees."""
    drawn = []
    for _ in range(2):
        roles = secagg_roles(np.zeros((n, 2), np.int64), secagg_public(n, 2, run=run))
        if not run_roles(roles).ok:
            return False
        server = roles[COORDINATOR]
        drawn.append((server.graph.neighbors.copy(), server.committee.copy()))  # type: ignore[attr-defined]
    (g1, c1), (g2, c2) = drawn
    return not np.array_equal(g1, g2) and (bool(c1[1:].all()) or not np.array_equal(c1, c2))  # everyone: no draw


def _adaptive_coalition(parties: int, size: int, seed: int, variant: str | None) -> RecoveryResult:
    """The server plus ``size`` clients per target, placed before the run on the target's
    neighbours in the graph the label determines (:func:`secagg_coalition`), against one run
    (one-hot inputs over 16 cells; ``variant``: a broken variant of :data:`SECAGG_PLANTS`)."""
    rng = np.random.default_rng(seed)
    hot = rng.integers(0, 16, parties)
    x = np.eye(16, dtype=np.int64)[hot]
    pub = secagg_public(parties, 16, run=f"secagg-{seed}")
    roles = secagg_roles(x, pub)
    if variant is not None:
        roles = SECAGG_PLANTS[variant](roles, x, pub)
    res = run_roles(roles, transcript=True)
    if not res.ok or res.transcript is None:
        raise UsageError(f"check_public_draws: the run did not finish: {res.errors}")
    view = observe(res.transcript, SECAGG_MESSAGES)
    states = {i: member_state(roles[i]) for i in range(1, parties + 1)}
    model = secagg_coalition(pub, parties)
    truth = {i + 1: int(c) for i, c in enumerate(hot)}
    return coalition_sweep(SECAGG.name, view, states, truth, [size], neighbours=model.neighbours, public=pub)[0]


def check_public_draws(protocol: str = SECAGG.name, *, parties: int = 200, seed: int = 0) -> PublicDrawCheck:
    """Check ``protocol``'s public draws against an adaptive adversary (module docstring).

    ``parties``: the run size of the coalition attack (at least 200 at the defaults: below,
    ``max_corrupt`` of the parties cannot reach a threshold even where it knows the graph, and
    the broken variant would pass too).  About 20 s at 200 parties.
    """
    if protocol not in PUBLIC_DRAW_PROTOCOLS:
        raise UsageError(f"check_public_draws: {protocol!r} makes no public draw (those that do: "
                         f"{', '.join(PUBLIC_DRAW_PROTOCOLS)})")  # fmt: skip
    if parties < 200:
        raise UsageError(f"check_public_draws: parties must be >= 200, got {parties}")
    small = 60  # a sparse graph (k = 14), the committee everyone
    fresh = _fresh(small, f"draw-check-{seed}")
    # equivocation: one party shown another commitment set
    pub = secagg_public(small, 2, run=f"draw-check-eq-{seed}")
    roles = secagg_roles(np.zeros((small, 2), np.int64), pub)
    honest = roles[COORDINATOR]
    roles[COORDINATOR] = _ShowsAnotherSet(pub.config, None, identity=honest.identity)  # type: ignore[attr-defined]
    run_roles(roles)
    err = roles[_ShowsAnotherSet.target].error
    eq_named = err is not None and tuple(err.culprits) == (COORDINATOR,) and "equivocation" in str(err)
    eq_why = "" if err is None else str(err)
    # withholding: a colluder commits and never reveals
    roles = secagg_roles(np.zeros((small, 2), np.int64), secagg_public(small, 2, run=f"draw-check-wh-{seed}"))
    withholder = 3
    roles[withholder] = DropAt(roles[withholder], DrawReveal)
    run_roles(roles)
    server = roles[COORDINATOR]
    assert isinstance(server, SecAggServer)
    wh_why = server.retries[0] if server.retries else ("" if server.error is None else str(server.error))
    wh_named = (
        server.error is None and server.attempt == 1 and f"[{withholder}]" in wh_why
        and withholder not in server.result.included
    )  # fmt: skip
    # the adaptive coalition: max_corrupt of the parties (the default 10 %) plus the server
    size = parties_in(secagg_public(parties, 2, run="size").config.max_corrupt, parties)
    ours = _adaptive_coalition(parties, size, seed, None)
    broken = _adaptive_coalition(parties, size, seed, "fixed-draw")
    return PublicDrawCheck(
        protocol=protocol, parties=parties, fresh=fresh, equivocation_named=eq_named,
        equivocation_reason=eq_why, withholding_named=wh_named, withholding_reason=wh_why,
        adaptive_recovery=ours.recovery_rate, adaptive_success=ours.success, baseline=ours.baseline,
        broken_recovery=broken.recovery_rate, coalition_size=size,
    )  # fmt: skip

