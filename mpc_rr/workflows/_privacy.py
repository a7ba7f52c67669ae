"""Privacy planning and the ledger of each run (docs/privacy.md).

* :func:`plan_privacy` -- ``mpc-rr privacy``: given a randomizer (eps0, or
  keep-or-uniform's p over k values), n, delta and the channel, the central
  (epsilon, delta) before anything runs, and the inverse questions (the
  smallest n, the largest eps0 / p that meet a target);
* :func:`central_curve` -- central epsilon against n for one randomizer and
  channel (the plot every run draws, with the run marked);
* :func:`pipeline_ledger`, :func:`rrba_ledger` -- the phases of a pipeline or
  RRBA run, as :class:`~mpc_rr.privacy.PhaseSpec`, and their ledger;
* :func:`sum_assumption`, :func:`channel_assumption` -- the threat model a shuffled figure
  holds under (:class:`~mpc_rr.privacy.Assumption`): a sum protocol's own
  (:meth:`~mpc_rr.secure_sum.SumProtocol.trust_of`: who must be honest, how many clients may
  collude with the aggregator), or a planned channel's with ``max_corrupt`` colluders.

**Colluders.**  A coalition of ``c`` clients colluding with the aggregator knows its own
reports, so a release of ``n`` reports hides the target among ``n - c - 1`` honest others:
every shuffled figure is FMT21's at ``n - c``.  ``c = floor(max_corrupt * n)`` of the
run's roster; ``max_corrupt`` defaults to what the channel's protocol assumes
(:func:`default_max_corrupt`): the secure-sum protocols' 0.1 (SecAgg+ sizes its threshold
for it; the full mesh and Prio3 are read under the same coalition), and 0 for an
``anonymous`` channel, FMT21's ideal shuffler whose analyst holds no client's report (no
protocol of ours runs one; plan a coalition with ``max_corrupt``).  ``n`` is what the run
completed.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.pipeline import PipelineConfig
from mpc_rr.privacy import (
    CHANNELS,
    SHUFFLING,
    Assumption,
    Ledger,
    PhaseSpec,
    Release,
    amplification_curve,
    build_ledger,
    central_epsilon,
    closed_form_epsilon,
    compose,
    epsilon_for_delta,
    largest_epsilon0,
    skellam_epsilon,
    smallest_n,
)
from mpc_rr.secure_sum import DEFAULT_SUM
from mpc_rr.secure_sum._noisy_sum import NoisySum

__all__ = [
    "PlanSolution",
    "PrivacyPlan",
    "central_curve",
    "channel_assumption",
    "channel_protocol",
    "default_max_corrupt",
    "keep_probability",
    "ledger_curve",
    "local_epsilon",
    "pipeline_ledger",
    "plan_privacy",
    "rrba_crowds",
    "rrba_ledger",
    "sum_assumption",
    "sum_channel",
]

CURVE_NS = np.unique(np.geomspace(1e2, 1e7, 31).astype(np.int64))


def local_epsilon(*, epsilon0: float | None, p: float | None, k: int | None) -> float:
    """eps0 given directly, or keep-or-uniform(p) over k values: ``ln(1 + p k / (1 - p))``."""
    if (epsilon0 is None) == (p is None):
        raise UsageError("give exactly one of --epsilon0 and --p")
    if epsilon0 is not None:
        return epsilon0
    assert p is not None
    if k is None:
        raise UsageError("--p needs --k (the domain size of keep-or-uniform / k-RR)")
    if not 0 < p < 1:
        raise UsageError(f"--p must be in (0, 1) for a finite epsilon, got {p}")
    return math.log1p(p * k / (1 - p))


def keep_probability(eps0: float, k: int) -> float:
    """Inverse of :func:`local_epsilon`: the keep probability p of keep-or-uniform at eps0."""
    return math.expm1(eps0) / (math.expm1(eps0) + k)


def default_max_corrupt(channel: str) -> float:
    """The colluding fraction a channel's figure assumes when none is given (module docstring)."""
    from mpc_rr.secure_sum import DEFAULT_MAX_CORRUPT, sum_protocols

    return DEFAULT_MAX_CORRUPT if channel in {p.ledger_channel for p in sum_protocols()} else 0.0


def channel_protocol(channel: str) -> str | None:
    """The sum protocol a planned ledger channel stands for (``secure-sum``: the default sum,
    :data:`~mpc_rr.secure_sum.DEFAULT_SUM`; a channel of its own, such as Prio3's: that
    protocol), or None for a channel that is no sum."""
    from mpc_rr.secure_sum import DEFAULT_SUM, sum_protocol, sum_protocols

    if channel == sum_protocol(DEFAULT_SUM).ledger_channel:
        return DEFAULT_SUM
    return next((p.name for p in sum_protocols() if p.ledger_channel == channel), None)


def sum_assumption(
    protocol: str, options: Any, n: int, *, max_corrupt: float | None = None
) -> Assumption:
    """The assumption of reports summed by ``protocol`` among a roster of ``n`` clients with
    ``options`` (:meth:`~mpc_rr.secure_sum.SumProtocol.trust_of`; ``max_corrupt``: the colluding
    fraction, ``None``: the protocol's own)."""
    from mpc_rr.secure_sum import sum_protocol

    t = sum_protocol(protocol).trust_of(options, n, max_corrupt)
    return Assumption(t.colluders, t.max_corrupt, t.bound, t.honest, t.hides)


def channel_assumption(channel: str, n: int, max_corrupt: float | None = None) -> Assumption:
    """The assumption of a planned channel among ``n`` parties (``max_corrupt``, default
    :func:`default_max_corrupt`): ``secure-sum`` is SecAgg+ sized for that coalition (the
    run ``mpc-rr run --max-corrupt F`` would launch), ``prio3`` Prio3 at its default minimum
    batch, ``anonymous`` an ideal shuffler."""
    from mpc_rr.privacy import DIRECT_ASSUMPTION
    from mpc_rr.secure_sum._trust import colluders_in

    f = default_max_corrupt(channel) if max_corrupt is None else float(max_corrupt)
    protocol = channel_protocol(channel)
    if protocol is not None:
        # a sum sized for the coalition takes it as an option (SecAgg+), others as the trust bound
        from mpc_rr.secure_sum import sum_protocol

        if "max_corrupt" in sum_protocol(protocol).options.__struct_fields__:
            return sum_assumption(protocol, {"max_corrupt": f}, n)
        return sum_assumption(protocol, {}, n, max_corrupt=f)
    if channel == "anonymous":
        c = colluders_in(f, n)
        return Assumption(
            c, f, None, f"the shuffler is honest and at most {c} clients show the analyst their reports",
            "anonymous channel (an ideal shuffler, FMT21's model): hides senders from the analyst; "
            "reports of clients colluding with it leave the blanket",
        )  # fmt: skip
    colluders_in(f, n)  # (validated: the same rule for every channel)
    return DIRECT_ASSUMPTION


def _central(eps0: float, n: int, delta: float, channel: str, k: int | None, releases: int,
             bound: str, assumption: Assumption) -> tuple[float | None, float | None, str, str | None]:  # fmt: skip
    spec = PhaseSpec("plan", channel, n, tuple(Release(eps0, k) for _ in range(releases)), assumption=assumption)
    if channel not in SHUFFLING:
        return eps0 * releases, 0.0, "none: direct channel, no amplification", None
    broken = assumption.broken()
    if broken is not None:
        return None, None, "none", broken
    hide = assumption.hiding(n)
    if releases == 1:
        amp = central_epsilon(eps0, hide, delta, bound=bound, k=None if bound != "numerical" else k)
        return amp.central_epsilon, delta, amp.bound, None
    if bound != "numerical":
        raise UsageError("--releases > 1 composes with the PLD accountant: use --bound numerical")
    eps = epsilon_for_delta(compose(spec.mechanisms()), delta)
    return min(eps, eps0 * releases), delta, "FMT21 clone reduction per release, PLD composition", None


def _roster_for(hiding: int, max_corrupt: float) -> int:
    """The fewest parties ``n`` whose honest part ``n - floor(max_corrupt n)`` is ``hiding``."""
    from mpc_rr.secure_sum._trust import colluders_in

    n = max(hiding, math.ceil(hiding / (1.0 - max_corrupt)) - 1)
    while n - colluders_in(max_corrupt, n) < hiding:
        n += 1
    return n


def central_curve(
    eps0: float, delta: float, channel: str, *, k: int | None = None, releases: int = 1,
    ns: np.ndarray | None = None, max_corrupt: float = 0.0,
) -> list[dict[str, float]]:  # fmt: skip
    """``[{"n", "central_epsilon", "closed_form"}]`` over ``ns`` (default 10^2..10^7), with
    ``floor(max_corrupt n)`` colluders' reports out of each blanket (no bound checked: the curve
    shows what the honest part amplifies)."""
    from mpc_rr.secure_sum._trust import colluders_in

    grid = CURVE_NS if ns is None else ns
    hide = np.asarray([max(1, int(n) - colluders_in(max_corrupt, int(n))) for n in grid], np.int64)
    fast = None  # one shuffled release: the whole curve at once, warm-started along n
    if channel in SHUFFLING and releases == 1:
        fast = [a.central_epsilon for a in amplification_curve(eps0, hide, delta, k=k)]
    out = []
    for i, n in enumerate(grid):
        if fast is not None:
            eps = fast[i]
        else:
            got = _central(eps0, int(hide[i]), delta, channel, k, releases, "numerical", Assumption())[0]
            eps = math.nan if got is None else got
        cf = closed_form_epsilon(eps0, int(hide[i]), delta)
        out.append({"n": int(n), "central_epsilon": eps,
                    "closed_form": cf.central_epsilon if channel in SHUFFLING and releases == 1 else math.nan})  # fmt: skip
    return out


@dataclass(frozen=True)
class PlanSolution:
    """The inverse solver's answer for a target central epsilon (``None``: not solved for)."""

    note: str | None = None
    smallest_parties: int | None = None  # the fewest parties that reach the target
    largest_epsilon0: float | None = None  # the largest local epsilon that reaches it at this n
    largest_p: float | None = None  # and k-RR's keep probability for it

    def to_json(self) -> dict[str, Any]:
        if self.note is not None and self.largest_epsilon0 is None:
            return {"note": self.note}
        out: dict[str, Any] = {} if self.note is None else {"note": self.note}
        out.update(largest_epsilon0=self.largest_epsilon0, largest_p=self.largest_p,
                   smallest_parties=self.smallest_parties)  # fmt: skip
        return out


@dataclass(frozen=True)
class PrivacyPlan:
    """One planned release (``mpc-rr privacy``): the local epsilon a party's randomizer spends,
    the central (epsilon, delta) the channel licenses for the honest parties under the coalition
    assumed (``None`` with the ``reason`` where it licenses none), and the assumption."""

    mechanism: str
    epsilon0: float  # per release
    p: float | None  # k-RR's keep probability (None: a generic eps0-LDP randomizer)
    k: int | None
    parties: int
    channel: str
    releases: int
    max_corrupt: float  # the colluding fraction assumed
    colluders: int  # the parties whose reports the analyst knows
    honest_parties: int  # the reports a target's report hides among (itself included)
    local_epsilon: float  # over every release
    central_epsilon: float | None
    delta: float | None
    bound: str  # which bound gave the central figure
    reason: str | None  # why there is no central figure
    amplified: bool
    assumption: Mapping[str, Any]  # who must be honest, how many may collude, what the channel hides
    seconds: float
    target_epsilon: float | None = None
    solve: PlanSolution | None = None

    def to_json(self) -> dict[str, Any]:
        """The document ``mpc-rr privacy --json`` prints."""
        doc = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("target_epsilon", "solve")}  # fmt: skip
        doc["assumption"] = dict(self.assumption)
        if self.target_epsilon is not None:
            doc["target_epsilon"] = self.target_epsilon
            if self.solve is not None:
                doc["solve"] = self.solve.to_json()
        return doc


def plan_privacy(
    *, epsilon0: float | None = None, p: float | None = None, k: int | None = None,
    parties: int, delta: float = 1e-6, channel: str = "secure-sum", bound: str = "numerical",
    releases: int = 1, target: float | None = None, max_corrupt: float | None = None,
) -> PrivacyPlan:  # fmt: skip
    """The ledger of one planned release (``mpc-rr privacy``), with the inverse solver on ``target``
    (:class:`PrivacyPlan`; ``plan.to_json()`` is what ``mpc-rr privacy --json`` prints).

    ``max_corrupt``: the fraction of the parties colluding with the analyst (default
    :func:`default_max_corrupt`); their reports leave the blanket, and a coalition beyond what
    the channel hides senders against gives no central figure (``central_epsilon`` None and
    the ``reason``).  ``assumption`` in the result names who must be honest."""
    if channel not in CHANNELS:
        raise UsageError(f"channel must be one of {CHANNELS}, got {channel!r}")
    if releases < 1:
        raise UsageError(f"releases must be >= 1, got {releases}")
    if k is not None and k < 2:
        raise UsageError(f"--k must be >= 2, got {k}")
    eps0 = local_epsilon(epsilon0=epsilon0, p=p, k=k)
    f = default_max_corrupt(channel) if max_corrupt is None else float(max_corrupt)
    assumption = channel_assumption(channel, parties, f)
    t0 = time.perf_counter()
    eps, dlt, name, reason = _central(eps0, parties, delta, channel, k, releases, bound, assumption)
    shuffled = channel in SHUFFLING
    hide = assumption.hiding(parties) if shuffled else parties
    fields: dict[str, Any] = {
        "mechanism": "generic eps0-LDP" if k is None else f"k-RR (keep-or-uniform) over k={k}",
        "epsilon0": eps0, "p": p if p is not None else (keep_probability(eps0, k) if k else None),
        "k": k, "parties": parties, "channel": channel, "releases": releases,
        "max_corrupt": f, "colluders": assumption.colluders if shuffled else 0, "honest_parties": hide,
        "local_epsilon": eps0 * releases, "central_epsilon": eps, "delta": dlt, "bound": name,
        "reason": reason, "amplified": shuffled and eps is not None,
        "assumption": assumption.to_json(),
        "seconds": time.perf_counter() - t0,
    }  # fmt: skip
    solve: PlanSolution | None = None
    if target is not None:
        if reason is not None:
            solve = PlanSolution(note=f"no central figure to solve for: {reason}")
        elif channel not in SHUFFLING:
            per = target / releases
            solve = PlanSolution(note="direct channel: central = local, n does not help",
                                 largest_epsilon0=per, largest_p=keep_probability(per, k) if k else None,
                                 smallest_parties=None if eps is not None and eps > target else 1)  # fmt: skip
        elif releases > 1:
            solve = PlanSolution(note="the inverse solver covers one release (--releases 1)")
        else:
            e0max = largest_epsilon0(hide, target, delta, k=k)
            need = smallest_n(eps0, target, delta, k=k)
            solve = PlanSolution(smallest_parties=None if need is None else _roster_for(need, f),
                                 largest_epsilon0=e0max,
                                 largest_p=keep_probability(e0max, k) if k else None)  # fmt: skip
    return PrivacyPlan(**fields, target_epsilon=target, solve=solve)


def sum_channel(protocol: str) -> str:
    """The ledger's channel for reports summed by ``protocol``: ``secure-sum`` (``prio3`` for
    Prio3's two aggregators) only when the protocol hides each input from whoever learns the
    total (``SumProtocol.hides_inputs``, ``SumProtocol.ledger_channel``); ``plainsum`` shows every
    input, which is a direct channel."""
    from mpc_rr.secure_sum import sum_protocol

    spec = sum_protocol(protocol)
    return spec.ledger_channel if spec.hides_inputs else "direct"


def pipeline_ledger(
    cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...], *, parties_dependence: int,
    parties_release: int, delta: float = 1e-6, max_corrupt: float | None = None,
) -> tuple[Ledger, list[PhaseSpec]]:  # fmt: skip
    """The two phases of a pipeline run (Sec. 4.1/4.2/4.3 dependence, then the clustered release).

    ``parties_dependence``, ``parties_release``: the parties each phase actually included; the
    dependence sum's assumption (:func:`sum_assumption`) counts its colluders in the roster of
    ``cfg.n`` (``max_corrupt``: the colluding fraction, ``None``: the sum protocol's own).

    Dependence ``rr``: per-attribute keep-or-uniform reports sent directly to the coordinator.
    ``secure-sum``: the exact bivariate counts are the output -- not DP; with ``dp_epsilon``
    the counts carry Skellam noise and the phase's central figure is the accountant's.  ``pairwise-rr``: each
    pair's keep-or-uniform report enters the secure sum as a one-hot vector, so the coordinator
    learns only each pair's histogram over the parties: m(m-1)/2 shuffled releases.  Release:
    each cluster's report goes to the coordinator signed, i.e. direct; ``cluster`` is k-RR on
    the cluster's joint domain, the other mechanisms count as generic eps0-LDP.
    """
    sizes = cfg.sizes
    if cfg.dependence == "rr":
        dep = PhaseSpec("dependence (4.1 rr)", "direct", parties_dependence,
                        tuple(Release(e, s) for e, s in zip(cfg.attribute_epsilons(), sizes, strict=True)))  # fmt: skip
    elif cfg.dependence == "secure-sum" and (noise := cfg.dp_noise()) is not None:
        channel, cells = sum_channel(cfg.sum_protocol), noise.noise.sensitivity.cells
        own = skellam_epsilon(noise.noise.client_variance, cells, noise.noise.delta)
        if channel == "direct":  # every input is seen: only the party's own share of the noise
            central = (own, noise.delta, f"the sum shows every input: only the party's own Skellam "
                                         f"noise (variance {noise.noise.client_variance:.4g} per cell)")  # fmt: skip
        elif (honest := parties_dependence - (noise.noise.colluders or 0)) < noise.noise.honest_min:
            honest = max(1, honest)  # the target's own noise is always in its counts
            central = (noise.epsilon_for(honest), noise.delta, f"Skellam noise in the sum, tight PLD "
                       f"(dp-accounting) over {cells} unit shifts: only {parties_dependence} parties "
                       f"were included, so as few as {honest} honest parties' noise is in the "
                       f"counts, fewer than the {noise.noise.honest_min} it was calibrated for")  # fmt: skip
        else:
            central = (noise.noise.epsilon, noise.delta, f"Skellam noise in the sum, tight PLD "
                       f"(dp-accounting) over {cells} unit shifts, assuming {noise.noise.assumption()}")  # fmt: skip
        dep = PhaseSpec("dependence (4.2 sum)", channel, parties_dependence, (Release(own),),
                        central=central, note="local: a party's own vector with only its share "
                        f"of the noise, at delta {noise.delta:.2g}")  # fmt: skip
    elif cfg.dependence == "secure-sum":
        dep = PhaseSpec("dependence (4.2 sum)", sum_channel(cfg.sum_protocol), parties_dependence, (),
                        not_dp="the secure sum publishes exact bivariate counts (not DP)")  # fmt: skip
    else:
        pairs = [(i, j) for i in range(len(sizes)) for j in range(i + 1, len(sizes))]
        rels = tuple(Release(m.epsilon, sizes[i] * sizes[j])
                     for m, (i, j) in zip(cfg.pair_mechanisms(), pairs, strict=True))  # fmt: skip
        dep = PhaseSpec("dependence (4.3 pairs)", sum_channel(cfg.sum_protocol), parties_dependence, rels,
                        paper_epsilon=max(r.epsilon0 for r in rels),
                        note="paper: parallel composition (max pair epsilon), from unlinkability",
                        assumption=sum_assumption(cfg.sum_protocol, cfg.sum_options, cfg.n,
                                                  max_corrupt=max_corrupt))  # fmt: skip
    mechs = cfg.release_mechanisms(clusters)
    rel = PhaseSpec("release (clusters)", "direct", parties_release, tuple(
        Release(m.epsilon, math.prod(sizes[a] for a in c) if cfg.mechanism == "cluster" else None)
        for m, c in zip(mechs, clusters, strict=True)))  # fmt: skip
    return build_ledger([dep, rel], delta), [dep, rel]


def rrba_ledger(
    *, epsilon_tables: list[float], paper_epsilon: float, view_len: int, crowds: list[int],
    secure_tally: bool, sum_protocol: str = DEFAULT_SUM, delta: float = 1e-6,
    sum_options: Mapping[str, Any] | None = None, block: int | None = None,
    max_corrupt: float | None = None, central: tuple[float, float, str] | None = None,
) -> tuple[Ledger, list[PhaseSpec]]:  # fmt: skip
    """An RRBA run: each client answers its view's tables once, in one block (blocks are disjoint).

    ``epsilon_tables``: the largest true epsilon each table of the worst view was sent at
    (over the blocks).  Direct answers: no amplification.  A secure tally (SecAgg+ over
    one-hot answers, docs/rrba.md) reveals per block and table the histogram of the answers
    of the block's included clients *asked that table* -- a table shared by several views is
    counted over all of them, and a client's own view is known to the aggregator (it chose
    it).  So table s of a client's answer hides among ``crowds[s]`` reports: the fewest
    answers table s received in any block that released it (:func:`rrba_crowds`).  Using,
    per table, the largest epsilon and the smallest crowd over the blocks bounds every
    block's client (the central epsilon grows with eps0 and shrinks with n).

    Each block's tally is its own sum among the block's ``block`` clients (default: the largest
    crowd), so its assumption (:func:`sum_assumption` with ``sum_options``) is a block's: at most
    ``floor(max_corrupt * block)`` of the block's clients collude, and their answers leave every
    crowd of that block.  ``central``: the tally's own ``(epsilon, delta, bound)`` when its
    sums carry distributed noise (:func:`rrba_noise_central`), which the phase states instead
    of the amplification.
    """
    if len(crowds) != len(epsilon_tables):
        raise UsageError(f"rrba_ledger: {len(crowds)} crowds for {len(epsilon_tables)} tables")
    channel = sum_channel(sum_protocol) if secure_tally else "direct"
    hide = max(1, min(crowds, default=1))
    rels = tuple(Release(e, None, max(1, c)) for e, c in zip(epsilon_tables, crowds, strict=True))
    assumption = Assumption()
    if channel != "direct":
        per_block = block if block is not None else max(max(crowds, default=1), 2)
        assumption = sum_assumption(sum_protocol, dict(sum_options or {}), max(per_block, 2),
                                    max_corrupt=max_corrupt)  # fmt: skip
    note = None if channel == "direct" else (
        f"each table's tally mixes >= {hide} answers (its block's clients asked it), "
        f"{assumption.colluders} of the block's clients colluding")  # fmt: skip
    if central is not None:
        note = "local: a client's RR answers (its share of the tally's noise adds to them)"
    phase = PhaseSpec("rrba answers", channel, hide, rels, paper_epsilon=paper_epsilon * view_len,
                      note=note, assumption=assumption, central=central)  # fmt: skip
    return build_ledger([phase], delta), [phase]


def rrba_noise_central(
    blocks: Sequence[tuple[int, int]], noise_of: Callable[[int], NoisySum], channel: str
) -> tuple[float, float, str]:
    """The central ``(epsilon, delta, bound)`` per record of RRBA tallies with distributed noise.

    ``blocks``: ``(clients, included)`` of each block whose tally was used; ``noise_of(m)``:
    the noise of a block of ``m`` clients.  A record is in one block (parallel composition),
    so the figure is the worst block's: its calibrated epsilon, or -- when a block included
    fewer clients than calibrated for -- the epsilon of the honest clients it did include
    (the included less the colluders, at least the target itself).  ``channel`` ``direct``
    (a sum that shows every input): only a client's own share of the noise.
    """
    if not blocks:
        raise UsageError("rrba_noise_central: no block's tally was used")
    worst, text, delta = 0.0, "", 0.0
    for m, included in blocks:
        noise = noise_of(int(m))
        delta = max(delta, noise.delta)
        honest = 1 if channel == "direct" else max(1, int(included) - (noise.noise.colluders or 0))
        eps = noise.noise.epsilon if honest >= noise.noise.honest_min else noise.epsilon_for(honest)
        if eps >= worst:
            worst = eps
            if channel == "direct":
                text = ("the sum shows every input: only the client's own Skellam noise "
                        f"(variance {noise.noise.client_variance:.4g} per cell)")  # fmt: skip
            elif honest >= noise.noise.honest_min:
                text = (f"Skellam noise in each block's tally, tight PLD (dp-accounting) over "
                        f"{noise.noise.sensitivity.cells} unit shifts, assuming {noise.noise.assumption()}")  # fmt: skip
            else:
                text = (f"Skellam noise in each block's tally: a block of {m} included {included}, "
                        f"so as few as {honest} honest clients' noise, fewer than the "
                        f"{noise.noise.honest_min} it was calibrated for")  # fmt: skip
    return worst, delta, text


def rrba_crowds(tuples: np.ndarray) -> np.ndarray:
    """Per table, the fewest answers any block contributed to it (0: never answered).

    ``tuples[b, s]``: answers to table s collected up to block b (cumulative, as
    :class:`~mpc_rr.rrba.RRBARun` records them); a block's own answers are the increments.
    """
    t = np.asarray(tuples, dtype=np.int64)
    if t.ndim != 2 or t.shape[0] == 0:
        return np.zeros(t.shape[-1] if t.ndim == 2 else 0, np.int64)
    per_block = np.diff(t, axis=0, prepend=0)
    masked = np.where(per_block > 0, per_block, np.iinfo(np.int64).max)
    low = masked.min(axis=0)
    return np.where(low == np.iinfo(np.int64).max, 0, low)


def ledger_curve(ledger: Ledger, phases: list[PhaseSpec]) -> dict[str, Any]:
    """The plot of a run: central epsilon vs n for the run's weakest single report, shuffled.

    The curve is the amplification one report of the largest eps0 would get from a shuffling
    channel (FMT21, k-RR where known); the run is marked at its n, on the curve when that phase's
    channel shuffles and on the eps0 line (no amplification) when it is direct.
    """
    best = None
    for spec in phases:
        for r in spec.releases:
            if math.isfinite(r.epsilon0) and (best is None or r.epsilon0 > best[1].epsilon0):
                best = (spec, r)
    if best is None:
        return {}
    spec, r = best
    frac = spec.assumption.fraction if spec.channel in SHUFFLING else 0.0
    curve = central_curve(r.epsilon0, ledger.delta, "secure-sum", k=r.k, max_corrupt=frac)
    if spec.channel in SHUFFLING:
        mark = central_epsilon(r.epsilon0, spec.hiding(r), ledger.delta, k=r.k).central_epsilon
    else:
        mark = r.epsilon0
    return {"epsilon0": r.epsilon0, "k": r.k, "phase": spec.name, "channel": spec.channel,
            "parties": spec.parties, "mark": mark, "curve": curve}  # fmt: skip
