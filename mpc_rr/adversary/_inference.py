"""Bayes-optimal inference of each party's true values from its randomized records.

An eavesdropper who reads plaintext payloads (the memory transport, or a
relay that terminates TLS) sees every randomized record a party sends: in the
pipeline its Sec. 4.1 dependence record (keep-or-uniform per attribute) and
its clustered release; in RRBA its answers drawn from the public table.  The
mechanisms are public, so for party ``i`` with observations ``o_i`` the
posterior over its true values is ``P(t | o_i) ∝ pi(t) prod_obs M_obs[t, o]``;
the MAP guess is Bayes-optimal for the prior ``pi``.

* **success** is the Bayes-optimal MAP guess, with the true empirical
  distribution of the parties' values as the prior (the best any attacker
  can do on average: it knows the population, and reads the records);
* **baseline** guesses the prior's mode without reading any record (the
  same attacker, knowing the population, before the protocol ran);
* the **practical attacker** estimates the prior from the very records it
  attacks -- the maximum-likelihood prior, by iterative Bayesian update
  (Agrawal, Srikant & Thomas 2005) -- and is reported next to them.

Observations sharing attributes are combined in *blocks*: the connected
components of the attribute sets observed (a cluster of the release with the
singletons of the dependence record inside it).  Everything is vectorized over
parties and the block's joint domain; the only loops are over blocks and
observations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mpc_rr.adversary._stats import check_confidence, cp_two_sided
from mpc_rr.core import UsageError
from mpc_rr.core._views import View

if TYPE_CHECKING:
    from mpc_rr.pipeline import PipelineConfig
    from mpc_rr.rrba import RRBAConfig

__all__ = [
    "AttributeInference",
    "Observation",
    "bayes_inference",
    "dense_matrix",
    "pipeline_observations",
    "pool_inference",
    "rrba_observations",
]

#: Largest joint domain of one block (parties x cells floats are held at once, chunked).
MAX_BLOCK_CELLS = 1 << 16
_CHUNK_FLOATS = 1 << 24


def dense_matrix(mechanism: object) -> np.ndarray:
    """The ``P[true, reported]`` matrix of a mechanism over its flat joint domain."""
    for name in ("dense", "dense_matrix"):
        f = getattr(mechanism, name, None)
        if callable(f):
            return np.asarray(f(), dtype=float)
    m = getattr(mechanism, "matrix", None)
    if m is not None:
        return np.asarray(m, dtype=float)
    raise UsageError(f"dense_matrix: {type(mechanism).__name__} exposes no matrix")


@dataclass(frozen=True)
class Observation:
    """What the observer saw of one release: ``codes[i]`` is party ``i``'s report.

    ``attributes``: the attributes the release randomized jointly (in the
    order of the matrix's product domain); ``matrix``: ``P[true, reported]``
    over the flat joint domain; ``codes``: ``(n, len(attributes))`` reports.
    """

    attributes: tuple[int, ...]
    matrix: np.ndarray
    codes: np.ndarray
    label: str = ""


@dataclass(frozen=True)
class AttributeInference:
    """Per-attribute accuracy of the Bayes-optimal guess against guessing the prior's mode.

    ``success_per_attribute[a]`` (CI ``ci_per_attribute[a]``): MAP with the
    true prior; ``baseline_per_attribute[a]``: the prior's mode, no record
    read (realized on the same parties); ``attacker[a]``: MAP with the prior
    the attacker estimated from the records.  The headline ``success`` /
    ``baseline`` are the means over attributes; ``ci`` pools the ``n * m``
    guesses in one Clopper-Pearson interval (indicative: one party's guesses
    are not independent).
    """

    attributes: tuple[str, ...]
    parties: int
    success_per_attribute: tuple[float, ...]
    baseline_per_attribute: tuple[float, ...]
    ci_per_attribute: tuple[tuple[float, float], ...]
    attacker: tuple[float, ...]
    success: float
    baseline: float
    ci: tuple[float, float]
    attacker_mean: float
    confidence: float
    observations: tuple[str, ...]

    @property
    def leaks(self) -> bool:
        """Some attribute is guessed better than its prior mode, beyond the interval."""
        pairs = zip(self.ci_per_attribute, self.baseline_per_attribute, strict=True)
        return any(lo > b for (lo, _), b in pairs)

    def to_dict(self) -> dict[str, object]:
        return {
            "attributes": list(self.attributes),
            "parties": self.parties,
            "success": self.success,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "confidence": self.confidence,
            "success_per_attribute": list(self.success_per_attribute),
            "baseline_per_attribute": list(self.baseline_per_attribute),
            "ci_per_attribute": [list(c) for c in self.ci_per_attribute],
            "attacker_estimated_prior": list(self.attacker),
            "attacker_mean": self.attacker_mean,
            "observations": list(self.observations),
            "leaks": self.leaks,
        }


def _blocks(m: int, obs: Sequence[Observation]) -> list[tuple[int, ...]]:
    parent = list(range(m))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for o in obs:
        for a in o.attributes[1:]:
            parent[find(a)] = find(o.attributes[0])
    seen = sorted({a for o in obs for a in o.attributes})
    groups: dict[int, list[int]] = {}
    for a in seen:
        groups.setdefault(find(a), []).append(a)
    return [tuple(g) for g in sorted(groups.values())]


def _check(obs: Sequence[Observation], sizes: tuple[int, ...], n: int) -> None:
    for o in obs:
        if not o.attributes or len(set(o.attributes)) != len(o.attributes):
            raise UsageError(f"observation {o.label!r}: attributes must be distinct, got {o.attributes}")
        if min(o.attributes) < 0 or max(o.attributes) >= len(sizes):
            raise UsageError(f"observation {o.label!r}: attributes outside 0..{len(sizes) - 1}")
        cells = math.prod(sizes[a] for a in o.attributes)
        if o.matrix.shape != (cells, cells):
            raise UsageError(
                f"observation {o.label!r}: matrix must be ({cells}, {cells}), got {o.matrix.shape}"
            )
        c = np.asarray(o.codes)
        if c.shape != (n, len(o.attributes)):
            raise UsageError(
                f"observation {o.label!r}: codes must have shape ({n}, {len(o.attributes)}), got {c.shape}"
            )


def _block_loglik(
    block: tuple[int, ...], sizes: tuple[int, ...], obs: Sequence[Observation], rows: slice
) -> np.ndarray:
    """``log P(observations of parties rows | t)`` for every joint value ``t`` of the block."""
    shape = tuple(sizes[a] for a in block)
    grid = np.indices(shape).reshape(len(block), -1)  # (|block|, N_B): t's codes
    pos = {a: i for i, a in enumerate(block)}
    out = np.zeros((rows.stop - rows.start, grid.shape[1]))
    for o in obs:
        if not set(o.attributes) <= set(block):
            continue
        osizes = tuple(sizes[a] for a in o.attributes)
        t_flat = np.ravel_multi_index(tuple(grid[pos[a]] for a in o.attributes), osizes)
        z = np.asarray(o.codes)[rows]
        z_flat = np.ravel_multi_index(tuple(z.T), osizes)
        with np.errstate(divide="ignore"):
            logm = np.log(o.matrix)
        out += logm[:, z_flat].T[:, t_flat]
    return out


def _posterior(loglik: np.ndarray, prior: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        lp = loglik + np.log(prior)[None, :]
    top = lp.max(axis=1, keepdims=True)
    impossible = ~np.isfinite(top[:, 0])
    if impossible.any():  # records the prior rules out: the likelihood alone decides
        lp[impossible] = loglik[impossible]
        top[impossible] = lp[impossible].max(axis=1, keepdims=True)
        top[~np.isfinite(top)] = 0.0
    lp -= top
    post = np.exp(lp)
    post /= post.sum(axis=1, keepdims=True)
    out: np.ndarray = post
    return out


def _chunks(n: int, cells: int) -> list[slice]:
    step = max(1, _CHUNK_FLOATS // max(cells, 1))
    return [slice(i, min(n, i + step)) for i in range(0, n, step)]


def _em_prior(
    block: tuple[int, ...], sizes: tuple[int, ...], obs: Sequence[Observation], n: int,
    iterations: int, cache: list[np.ndarray] | None,
) -> np.ndarray:
    cells = math.prod(sizes[a] for a in block)
    pi = np.full(cells, 1.0 / cells)
    for _ in range(iterations):
        acc = np.zeros(cells)
        for k, rows in enumerate(_chunks(n, cells)):
            ll = cache[k] if cache is not None else _block_loglik(block, sizes, obs, rows)
            acc += _posterior(ll, pi).sum(axis=0)
        new = acc / n
        if np.abs(new - pi).max() < 1e-7:
            pi = new
            break
        pi = new
    return pi


def _as_prior(p: np.ndarray, cells: int, block: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(p, dtype=float).reshape(-1)
    if a.size != cells or (a < 0).any() or a.sum() <= 0:
        raise UsageError(f"prior of attributes {block}: need {cells} non-negative cells, got {a.size}")
    out: np.ndarray = a / a.sum()
    return out


def bayes_inference(
    observations: Sequence[Observation],
    sizes: Sequence[int],
    truth: np.ndarray,
    *,
    names: Sequence[str] | None = None,
    em_iterations: int = 200,
    confidence: float = 0.95,
    priors: Mapping[tuple[int, ...], np.ndarray] | None = None,
    attacker_priors: Mapping[tuple[int, ...], np.ndarray] | None = None,
) -> AttributeInference:
    """MAP inference of every observed attribute of every party (see the module docstring).

    Parameters
    ----------
    observations:
        The releases the observer saw, all for the same ``n`` parties (row ``i``
        of every ``codes`` is party ``i``).
    sizes:
        Category count of every attribute.
    truth:
        ``(n, m)`` true codes (for scoring and for the oracle's prior only).
    em_iterations:
        Iterations of the attacker's prior estimate (iterative Bayesian update).
    priors:
        The true prior of a block (its attributes in ascending order -> joint
        distribution over them), e.g. the population's when ``truth`` is a
        small group of it; default: the empirical distribution of ``truth``.
    attacker_priors:
        The prior the attacker uses for a block (e.g. the public RRBA table);
        default: estimated from the records by iterative Bayesian update.
    """
    confidence = check_confidence(confidence)
    sz = tuple(int(s) for s in sizes)
    tr = np.asarray(truth)
    if tr.ndim != 2 or tr.shape[1] != len(sz):
        raise UsageError(f"truth must have shape (n, {len(sz)}), got {tr.shape}")
    n = tr.shape[0]
    if not observations:
        raise UsageError("bayes_inference: no observations")
    _check(observations, sz, n)
    label = list(names) if names is not None else [f"A{j}" for j in range(len(sz))]
    attrs: list[int] = []
    succ, base, att = [], [], []
    cis: list[tuple[float, float]] = []
    for block in _blocks(len(sz), observations):
        shape = tuple(sz[a] for a in block)
        cells = math.prod(shape)
        if cells > MAX_BLOCK_CELLS:
            raise UsageError(
                f"bayes_inference: attributes {block} span {cells} joint cells (> {MAX_BLOCK_CELLS})"
            )
        chunks = _chunks(n, cells)
        cache = [_block_loglik(block, sz, observations, r) for r in chunks] if len(chunks) <= 4 else None
        if attacker_priors is not None and block in attacker_priors:
            pi_hat = _as_prior(attacker_priors[block], cells, block)
        else:
            pi_hat = _em_prior(block, sz, observations, n, em_iterations, cache)
        t_flat = np.ravel_multi_index(tuple(tr[:, list(block)].T), shape)
        if priors is not None and block in priors:
            pi_true = _as_prior(priors[block], cells, block)
        else:
            pi_true = np.bincount(t_flat, minlength=cells) / n
        guess_orc = np.empty((n, len(block)), np.int64)
        guess_att = np.empty((n, len(block)), np.int64)
        for k, rows in enumerate(chunks):
            ll = cache[k] if cache is not None else _block_loglik(block, sz, observations, rows)
            for prior, out in ((pi_true, guess_orc), (pi_hat, guess_att)):
                post = _posterior(ll, prior).reshape(-1, *shape)
                for j in range(len(block)):
                    axes = tuple(i + 1 for i in range(len(block)) if i != j)
                    out[rows, j] = np.argmax(post.sum(axis=axes) if axes else post, axis=1)
        for j, a in enumerate(block):
            axes = tuple(i for i in range(len(block)) if i != j)
            marg = pi_true.reshape(shape).sum(axis=axes) if axes else pi_true
            hits = int(np.count_nonzero(guess_orc[:, j] == tr[:, a]))
            attrs.append(a)
            succ.append(hits / n)
            cis.append(cp_two_sided(hits, n, confidence))
            base.append(float(np.mean(tr[:, a] == int(np.argmax(marg)))))
            att.append(float(np.mean(guess_att[:, j] == tr[:, a])))
    order = np.argsort(attrs)
    s = np.asarray(succ)[order]
    hits_all = round(float(s.sum()) * n)
    m = len(attrs)
    return AttributeInference(
        attributes=tuple(label[attrs[i]] for i in order),
        parties=n,
        success_per_attribute=tuple(float(v) for v in s),
        baseline_per_attribute=tuple(float(base[i]) for i in order),
        ci_per_attribute=tuple(cis[i] for i in order),
        attacker=tuple(float(att[i]) for i in order),
        success=float(s.mean()),
        baseline=float(np.mean(base)),
        ci=cp_two_sided(hits_all, n * m, confidence),
        attacker_mean=float(np.mean(att)),
        confidence=confidence,
        observations=tuple(o.label for o in observations),
    )


def pipeline_observations(view: View, config: PipelineConfig) -> tuple[list[int], list[Observation]]:
    """The randomized records an observer of a pipeline run read, as :class:`Observation` s.

    From the decoded messages: every party's Sec. 4.1 dependence record
    (``RandomizedRecord``: keep-or-uniform(p) per attribute) and its clustered
    ``Release`` (the clusters from the signed broadcast, the mechanisms from
    the public configuration).  Parties that sent neither are left out;
    returns their ids (row order) and the observations.
    """
    from mpc_rr.pipeline import RandomizedRecord, Release, SignedClustering

    m = len(config.sizes)
    dep = {s.src: r.codes.to_numpy().astype(np.int64) for s, r in view.select(RandomizedRecord)}
    rel = {s.src: r.codes.to_numpy().astype(np.int64) for s, r in view.select(Release)}
    signed = view.first(SignedClustering)
    ids = sorted(set(dep) | set(rel))
    if dep and rel:
        ids = sorted(set(dep) & set(rel))
    obs: list[Observation] = []
    if dep and ids:
        y = np.stack([dep[i] for i in ids]).reshape(len(ids), m)
        for a, mech in enumerate(config.attribute_mechanisms()):
            obs.append(Observation((a,), dense_matrix(mech), y[:, [a]], f"dependence record, {a}"))
    if rel and signed is not None and ids:
        clusters = tuple(tuple(int(i) for i in c) for c in signed.clusters)
        z = np.stack([rel[i] for i in ids]).reshape(len(ids), m)
        for c, mech in zip(clusters, config.release_mechanisms(clusters), strict=True):
            obs.append(Observation(c, dense_matrix(mech), z[:, list(c)], f"release, cluster {c}"))
    return ids, obs


def rrba_observations(
    view: View, config: RRBAConfig
) -> list[tuple[list[int], list[Observation], dict[tuple[int, ...], np.ndarray]]]:
    """What an observer of an RRBA run read, grouped by what each client was asked.

    A client's ``Answer`` (one reported cell per subset) is randomized at the
    tables of its ``AskBlock``: ``P(y | x) = p [y = x] + (1 - p) T[y]``.
    Clients asked the same subsets at the same tables (one view in one block)
    form a group: ``(client ids, one Observation per subset, the tables as
    the attacker's prior per subset)``.  Tallies through SecAgg+
    (``secure_tally``) leave no answer to read: no group.
    """
    from mpc_rr.rrba._messages import Answer, AskBlock
    from mpc_rr.rrba._privacy import implied_matrix

    sizes = config.sizes
    asks = {s.dst: a for s, a in view.select(AskBlock, src=0)}
    answers = {s.src: a.cells.to_numpy().astype(np.int64) for s, a in view.select(Answer, dst=0)}
    Key = tuple[int, int, tuple[tuple[int, ...], ...], tuple[float, ...]]
    groups: dict[Key, list[int]] = {}
    for i in sorted(set(asks) & set(answers)):
        a = asks[i]
        key: Key = (a.step, a.view, tuple(tuple(x) for x in a.subsets), tuple(a.tables))
        if answers[i].shape == (len(a.subsets),):
            groups.setdefault(key, []).append(i)
    out = []
    for key, ids in groups.items():
        subsets = key[2]
        flat = np.asarray(key[3], dtype=float)
        cells = np.stack([answers[i] for i in ids])
        obs: list[Observation] = []
        tables: dict[tuple[int, ...], np.ndarray] = {}
        start = 0
        for j, sub in enumerate(subsets):
            shape = tuple(sizes[x] for x in sub)
            width = int(np.prod(shape))
            table = flat[start : start + width]
            start += width
            codes = np.stack(np.unravel_index(cells[:, j], shape), axis=1)
            obs.append(Observation(tuple(sub), implied_matrix(table, config.p), codes,
                                   f"answer, block {key[0]}, subset {tuple(sub)}"))  # fmt: skip
            tables[tuple(sub)] = table
        out.append((ids, obs, tables))
    return out


def pool_inference(parts: Sequence[tuple[int, AttributeInference]], confidence: float = 0.95) -> AttributeInference:
    """Per-attribute results of disjoint groups of parties as one (weighted by group size)."""
    if not parts:
        raise UsageError("pool_inference: no groups")
    names = sorted({a for _, r in parts for a in r.attributes}, key=lambda a: min(
        r.attributes.index(a) for _, r in parts if a in r.attributes))
    hits: dict[str, float] = dict.fromkeys(names, 0.0)
    base: dict[str, float] = dict.fromkeys(names, 0.0)
    att: dict[str, float] = dict.fromkeys(names, 0.0)
    units: dict[str, int] = dict.fromkeys(names, 0)
    for n, r in parts:
        for k, a in enumerate(r.attributes):
            hits[a] += r.success_per_attribute[k] * n
            base[a] += r.baseline_per_attribute[k] * n
            att[a] += r.attacker[k] * n
            units[a] += n
    succ = [hits[a] / units[a] for a in names]
    total_hits, total = round(sum(hits.values())), sum(units.values())
    return AttributeInference(
        attributes=tuple(names),
        parties=sum(n for n, _ in parts),
        success_per_attribute=tuple(succ),
        baseline_per_attribute=tuple(base[a] / units[a] for a in names),
        ci_per_attribute=tuple(cp_two_sided(round(hits[a]), units[a], confidence) for a in names),
        attacker=tuple(att[a] / units[a] for a in names),
        success=sum(hits.values()) / total,
        baseline=sum(base.values()) / total,
        ci=cp_two_sided(total_hits, total, confidence),
        attacker_mean=sum(att.values()) / total,
        confidence=confidence,
        observations=tuple(o for _, r in parts for o in r.observations),
    )
