"""Privacy planning and the ledger of each run (docs/privacy.md).

* :func:`plan_privacy` -- ``mpc-rr privacy``: given a randomizer (eps0, or
  keep-or-uniform's p over k values), n, delta and the channel, the central
  (epsilon, delta) before anything runs, and the inverse questions (the
  smallest n, the largest eps0 / p that meet a target);
* :func:`central_curve` -- central epsilon against n for one randomizer and
  channel (the plot every run draws, with the run marked);
* :func:`pipeline_ledger`, :func:`rrba_ledger` -- the phases of a pipeline or
  RRBA run, as :class:`~mpc_rr.privacy.PhaseSpec`, and their ledger.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.pipeline import PipelineConfig
from mpc_rr.privacy import (
    CHANNELS,
    SHUFFLING,
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

__all__ = [
    "central_curve",
    "keep_probability",
    "ledger_curve",
    "local_epsilon",
    "pipeline_ledger",
    "plan_privacy",
    "rrba_crowds",
    "rrba_ledger",
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


def _central(eps0: float, n: int, delta: float, channel: str, k: int | None, releases: int,
             bound: str) -> tuple[float, float, str]:  # fmt: skip
    spec = PhaseSpec("plan", channel, n, tuple(Release(eps0, k) for _ in range(releases)))
    if channel not in SHUFFLING:
        return eps0 * releases, 0.0, "none: direct channel, no amplification"
    if releases == 1:
        amp = central_epsilon(eps0, n, delta, bound=bound, k=None if bound != "numerical" else k)
        return amp.central_epsilon, delta, amp.bound
    if bound != "numerical":
        raise UsageError("--releases > 1 composes with the PLD accountant: use --bound numerical")
    eps = epsilon_for_delta(compose(spec.mechanisms()), delta)
    return min(eps, eps0 * releases), delta, "FMT21 clone reduction per release, PLD composition"


def central_curve(
    eps0: float, delta: float, channel: str, *, k: int | None = None, releases: int = 1,
    ns: np.ndarray | None = None,
) -> list[dict[str, float]]:  # fmt: skip
    """``[{"n", "central_epsilon", "closed_form"}]`` over ``ns`` (default 10^2..10^7)."""
    grid = CURVE_NS if ns is None else ns
    fast = None  # one shuffled release: the whole curve at once, warm-started along n
    if channel in SHUFFLING and releases == 1:
        fast = [a.central_epsilon for a in amplification_curve(eps0, grid, delta, k=k)]
    out = []
    for i, n in enumerate(grid):
        eps = fast[i] if fast is not None else _central(eps0, int(n), delta, channel, k, releases, "numerical")[0]
        cf = closed_form_epsilon(eps0, int(n), delta)
        out.append({"n": int(n), "central_epsilon": eps,
                    "closed_form": cf.central_epsilon if channel in SHUFFLING and releases == 1 else math.nan})  # fmt: skip
    return out


def plan_privacy(
    *, epsilon0: float | None = None, p: float | None = None, k: int | None = None,
    parties: int, delta: float = 1e-6, channel: str = "secure-sum", bound: str = "numerical",
    releases: int = 1, target: float | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The ledger of one planned release (``mpc-rr privacy``), with the inverse solver on ``target``."""
    if channel not in CHANNELS:
        raise UsageError(f"channel must be one of {CHANNELS}, got {channel!r}")
    if releases < 1:
        raise UsageError(f"releases must be >= 1, got {releases}")
    if k is not None and k < 2:
        raise UsageError(f"--k must be >= 2, got {k}")
    eps0 = local_epsilon(epsilon0=epsilon0, p=p, k=k)
    t0 = time.perf_counter()
    eps, dlt, name = _central(eps0, parties, delta, channel, k, releases, bound)
    doc: dict[str, Any] = {
        "mechanism": "generic eps0-LDP" if k is None else f"k-RR (keep-or-uniform) over k={k}",
        "epsilon0": eps0, "p": p if p is not None else (keep_probability(eps0, k) if k else None),
        "k": k, "parties": parties, "channel": channel, "releases": releases,
        "local_epsilon": eps0 * releases, "central_epsilon": eps, "delta": dlt, "bound": name,
        "amplified": channel in SHUFFLING,
        "seconds": time.perf_counter() - t0,
    }  # fmt: skip
    if target is not None:
        doc["target_epsilon"] = target
        if channel not in SHUFFLING:
            per = target / releases
            doc["solve"] = {"note": "direct channel: central = local, n does not help",
                            "largest_epsilon0": per,
                            "largest_p": keep_probability(per, k) if k else None,
                            "smallest_parties": None if eps > target else 1}  # fmt: skip
        elif releases > 1:
            doc["solve"] = {"note": "the inverse solver covers one release (--releases 1)"}
        else:
            e0max = largest_epsilon0(parties, target, delta, k=k)
            doc["solve"] = {
                "smallest_parties": smallest_n(eps0, target, delta, k=k),
                "largest_epsilon0": e0max,
                "largest_p": keep_probability(e0max, k) if k else None,
            }
    return doc


def sum_channel(protocol: str) -> str:
    """The ledger's channel for reports summed by ``protocol``: ``secure-sum`` only when the
    protocol hides each input from whoever learns the total (``SumSpec.hides_inputs``);
    ``plainsum`` shows every input, which is a direct channel."""
    from mpc_rr.secure_sum import sum_protocol

    return "secure-sum" if getattr(sum_protocol(protocol), "hides_inputs", True) else "direct"


def pipeline_ledger(
    cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...], *, parties_dependence: int,
    parties_release: int, delta: float = 1e-6,
) -> tuple[Ledger, list[PhaseSpec]]:  # fmt: skip
    """The two phases of a pipeline run (Sec. 4.1/4.2/4.3 dependence, then the clustered release).

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
                        note="paper: parallel composition (max pair epsilon), from unlinkability")  # fmt: skip
    mechs = cfg.release_mechanisms(clusters)
    rel = PhaseSpec("release (clusters)", "direct", parties_release, tuple(
        Release(m.epsilon, math.prod(sizes[a] for a in c) if cfg.mechanism == "cluster" else None)
        for m, c in zip(mechs, clusters, strict=True)))  # fmt: skip
    return build_ledger([dep, rel], delta), [dep, rel]


def rrba_ledger(
    *, epsilon_tables: list[float], paper_epsilon: float, view_len: int, crowds: list[int],
    secure_tally: bool, sum_protocol: str = "secagg", delta: float = 1e-6,
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
    """
    if len(crowds) != len(epsilon_tables):
        raise UsageError(f"rrba_ledger: {len(crowds)} crowds for {len(epsilon_tables)} tables")
    channel = sum_channel(sum_protocol) if secure_tally else "direct"
    hide = max(1, min(crowds, default=1))
    rels = tuple(Release(e, None, max(1, c)) for e, c in zip(epsilon_tables, crowds, strict=True))
    phase = PhaseSpec("rrba answers", channel, hide, rels, paper_epsilon=paper_epsilon * view_len,
                      note=None if channel == "direct" else
                      f"each table's tally hides a report among >= {hide} (its block's clients asked it)")  # fmt: skip
    return build_ledger([phase], delta), [phase]


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
    curve = central_curve(r.epsilon0, ledger.delta, "secure-sum", k=r.k)
    if spec.channel in SHUFFLING:
        mark = central_epsilon(r.epsilon0, spec.parties, ledger.delta, k=r.k).central_epsilon
    else:
        mark = r.epsilon0
    return {"epsilon0": r.epsilon0, "k": r.k, "phase": spec.name, "channel": spec.channel,
            "parties": spec.parties, "mark": mark, "curve": curve}  # fmt: skip
