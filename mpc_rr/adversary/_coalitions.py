"""Scoring recovery attacks and sweeping coalition sizes (Bell et al. 2020's threshold, the full mesh's n - 1).

:func:`score` turns the attacks of :mod:`~mpc_rr.adversary._recovery` into a
:class:`~mpc_rr.adversary.RecoveryResult` (success against the
ideal functionality's baseline, with Clopper-Pearson intervals);
:func:`coalition_sweep` runs them for every coalition size, the coalition
chosen as the worst case for each target (:func:`coalition_members`); and
:func:`pool` merges independent runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpc_rr.adversary._extensions import attacked, attacks_for
from mpc_rr.adversary._recovery import MemberState, Recovery, RecoveryResult, recover_full_mesh
from mpc_rr.adversary._secagg_recovery import SecAggView, recover_secagg
from mpc_rr.adversary._stats import check_confidence, cp_two_sided
from mpc_rr.core import COORDINATOR, UsageError, get_protocol
from mpc_rr.core._views import View
from mpc_rr.secure_sum.full_mesh import BOARD_SPEC as BOARD
from mpc_rr.secure_sum.full_mesh import SPEC as MESH
from mpc_rr.secure_sum.secagg import SPEC as SECAGG
from mpc_rr.secure_sum.secagg import SecAggConfig
from mpc_rr.secure_sum.secagg._params import fixed_graph

__all__ = [
    "CoalitionModel",
    "coalition_members",
    "coalition_model",
    "coalition_sweep",
    "draw_exposure",
    "full_mesh_coalition",
    "pool",
    "score",
    "secagg_coalition",
]


@dataclass(frozen=True)
class CoalitionModel:
    """Who colludes in a protocol and what it declares it withstands (registered per protocol: :func:`~mpc_rr.adversary.attacks_for`).

    ``threshold`` and ``rule``: the collusion bound the run declared (SecAgg+:
    Shamir threshold ``t``; the full mesh: ``n - 1``); ``smallest``: the
    smallest coalition worth attacking (0 when the server alone may try);
    ``server_colludes``: the server's view joins the members' states (else
    the members pool their own views); ``neighbours``: each party's graph
    neighbours when the graph is sparse (targets then face their worst
    coalition), else ``None``.
    """

    threshold: int
    rule: str
    smallest: int
    server_colludes: bool
    neighbours: Mapping[int, Sequence[int]] | None = None


def secagg_coalition(public: Any, parties: int) -> CoalitionModel:
    """SecAgg+: the server plus ``C`` clients; up to ``t - 1`` of a party's neighbours learn nothing.

    The adaptive adversary chooses its colluders before the draw with everything
    public then: the roster, the run label and its nonce, the parameters.  Its best
    prediction of the graph is the one the label determines
    (:func:`~mpc_rr.secure_sum.secagg.fixed_graph`, or a graph the public
    parameters pin): exact under the broken variant that draws from the label,
    worthless under the protocol's joint draw (the seed depends on every honest
    party's fresh contribution).
    """
    cfg = public.config
    nb = None
    if cfg.degree < parties - 1:
        graph = public.graph if public.graph is not None else fixed_graph(cfg)
        nb = {u: graph.of(u).tolist() for u in range(1, parties + 1)}
    return CoalitionModel(
        cfg.threshold, f"Shamir threshold t = {cfg.threshold} (degree k = {cfg.degree})", 0, True, nb
    )


def draw_exposure(n: int, degree: int, threshold: int, size: int) -> float:
    """Probability that a fresh uniform graph gives one target at least ``threshold`` of its
    ``degree`` neighbours among ``size`` colluders fixed beforehand (hypergeometric tail over
    the ``n - 1`` other parties: the neighbours of a random regular graph are a uniform
    ``degree``-subset for a fixed target).

    What the adversary can reach under the joint draw: each abort-and-rerun is one more
    independent draw, so ``R`` runs expose a given target with probability at most ``R`` times
    this.
    """
    others = n - 1
    size = min(size, others)
    if degree >= others:
        return 1.0 if size >= threshold else 0.0
    total = math.comb(others, degree)
    hits = sum(math.comb(size, i) * math.comb(others - size, degree - i) for i in range(threshold, min(size, degree) + 1))
    return float(Fraction(hits, total))


def full_mesh_coalition(public: Any, parties: int) -> CoalitionModel:
    """The full mesh: ``C`` parties pool their views; up to ``n - 2`` learn nothing (Sec. 4.2)."""
    n = parties
    return CoalitionModel(n - 1, f"n - 1 = {n - 1} (Sec. 4.2: up to n - 2 colluders learn nothing)", 1, False)


def coalition_model(protocol: str, public: Any, parties: int) -> CoalitionModel:
    """``protocol``'s coalition model (registered: :func:`~mpc_rr.adversary.attacks_for`), or a :class:`UsageError`."""
    get_protocol(protocol)  # a UsageError naming the known ones
    make = attacks_for(protocol).coalition
    if make is None:
        known = ", ".join(attacked("coalition"))
        raise UsageError(f"{protocol} has no coalition attack (protocols with one: {known})")
    model: CoalitionModel = make(public, parties)
    return model


def score(
    rec: Recovery | Sequence[Recovery],
    truth: Mapping[int, int],
    *,
    confidence: float = 0.95,
) -> RecoveryResult:
    """Score recoveries against the targets' true cells (``truth``: honest included parties).

    A sequence of recoveries (one per target, e.g. each target with its own
    coalition) is scored target by target: recovery ``k`` is used for the
    ``k``-th target of ``truth`` in sorted order.
    """
    confidence = check_confidence(confidence)
    ids = sorted(int(u) for u in truth)
    if not ids:
        raise UsageError("score: no targets (truth is empty)")
    recs = [rec] * len(ids) if isinstance(rec, Recovery) else list(rec)
    if len(recs) != len(ids):
        raise UsageError(f"score: {len(recs)} recoveries for {len(ids)} targets")
    correct = recovered = wrong = 0
    base = 0.0
    for u, r in zip(ids, recs, strict=True):
        if u in r.coalition:
            raise UsageError(f"score: target {u} is in the coalition {list(r.coalition)}")
        cell = int(truth[u])
        correct += r.guess(u) == cell
        if u in r.recovered:
            recovered += 1
            wrong += r.recovered[u] != cell
        if r.honest_sum is not None and r.honest_sum.sum() > 0:
            base += float(r.honest_sum.max() / r.honest_sum.sum())
    n = len(ids)
    first = recs[0]
    sizes = {len(r.coalition) for r in recs}
    return RecoveryResult(
        protocol=first.protocol,
        observer=first.observer,
        coalition=first.coalition if len(recs) == 1 or all(r is first for r in recs) else (),
        coalition_size=sizes.pop() if len(sizes) == 1 else -1,
        targets=n,
        correct=correct,
        recovered=recovered,
        wrong_recoveries=wrong,
        success=correct / n,
        baseline=base / n,
        ci=cp_two_sided(correct, n, confidence),
        recovery_rate=recovered / n,
        recovery_ci=cp_two_sided(recovered, n, confidence),
        threshold=first.threshold,
        confidence=confidence,
    )


def coalition_members(
    target: int, size: int, parties: Sequence[int], neighbours: Sequence[int] | None = None
) -> list[int]:
    """The coalition of ``size`` data parties chosen against ``target`` (worst case for it).

    Its graph ``neighbours`` first (they hold its shares), then the other
    parties, each in increasing id order; never the target itself.
    """
    nb = [int(v) for v in (neighbours if neighbours is not None else ()) if int(v) != target]
    rest = [int(v) for v in parties if int(v) != target and int(v) not in set(nb)]
    pool = nb + rest
    if not 0 <= size <= len(pool):
        raise UsageError(f"coalition size must be in 0..{len(pool)}, got {size}")
    return pool[:size]


def coalition_sweep(
    protocol: str,
    view: View,
    states: Mapping[int, MemberState],
    truth: Mapping[int, int],
    sizes: Sequence[int],
    *,
    public: Any = None,
    config: SecAggConfig | None = None,
    neighbours: Mapping[int, Sequence[int]] | None = None,
    n: int | None = None,
    modulus: int | None = None,
    confidence: float = 0.95,
) -> list[RecoveryResult]:
    """Recovery success against coalition size ``C`` (one result per size).

    SecAgg+: the server colludes (its view holds every message: all of them
    route through it) with ``C`` clients' role states.  Full mesh
    (all-to-all): ``C`` parties pool their own views (``view.of(*coalition)``)
    and inputs.  With ``neighbours`` (a sparse graph) every target faces its
    own worst coalition, :func:`coalition_members` (its neighbours first);
    without (complete graph, full mesh: every coalition of a size is alike)
    the coalition is the ``C`` lowest ids and the targets are the others.
    ``public``: the run's public parameters (a spec's; or SecAgg+'s ``config``,
    the full mesh's ``n`` and ``modulus``).  ``full-mesh-board`` is attacked as
    the full mesh (its board sees no more than a relay).
    """
    confidence = check_confidence(confidence)
    parties = sorted(int(u) for u in states)
    out = []
    sv = None
    if public is not None:
        if protocol == SECAGG.name:
            config = public.config
        else:
            n, modulus = public.n, public.modulus
    if protocol == SECAGG.name:
        if config is None:
            raise UsageError(f"coalition_sweep: {SECAGG.name} needs config")
        sv = SecAggView(view.of(COORDINATOR, observer="server"), config)
    elif protocol not in (MESH.name, BOARD.name):
        raise UsageError(
            f"coalition_sweep: protocol must be one of {', '.join(attacked('coalition'))}, "
            f"got {protocol!r}"
        )
    elif n is None:
        raise UsageError(f"coalition_sweep: {protocol} needs n")

    def attack(coal: list[int], targets: list[int]) -> Recovery:
        mem = [states[c] for c in coal]
        if sv is not None:
            return recover_secagg(sv, mem, targets=targets)
        assert n is not None
        obs = view.of(*coal, observer=f"{len(coal)} colluding parties")
        return recover_full_mesh(obs, mem, n=n, modulus=modulus)

    for size in sizes:
        if neighbours is None:
            coal = parties[:size]
            left = {u: c for u, c in truth.items() if u not in set(coal)}
            if not left:
                raise UsageError(f"coalition size {size} leaves no honest target")
            out.append(score(attack(coal, sorted(left)), left, confidence=confidence))
            continue
        recs = [
            attack(coalition_members(u, size, parties, neighbours.get(u)), [u]) for u in sorted(truth)
        ]
        out.append(score(recs, truth, confidence=confidence))
    return out


def pool(results: Sequence[RecoveryResult]) -> RecoveryResult:
    """Several scored recoveries of one setting (e.g. repeated runs) as one, intervals recomputed."""
    if not results:
        raise UsageError("pool: no results")
    first = results[0]
    n = sum(r.targets for r in results)
    correct = sum(r.correct for r in results)
    recovered = sum(r.recovered for r in results)
    sizes = {r.coalition_size for r in results}
    return RecoveryResult(
        protocol=first.protocol,
        observer=first.observer,
        coalition=(),
        coalition_size=sizes.pop() if len(sizes) == 1 else -1,
        targets=n,
        correct=correct,
        recovered=recovered,
        wrong_recoveries=sum(r.wrong_recoveries for r in results),
        success=correct / n,
        baseline=sum(r.baseline * r.targets for r in results) / n,
        ci=cp_two_sided(correct, n, first.confidence),
        recovery_rate=recovered / n,
        recovery_ci=cp_two_sided(recovered, n, first.confidence),
        threshold=first.threshold,
        confidence=first.confidence,
    )
