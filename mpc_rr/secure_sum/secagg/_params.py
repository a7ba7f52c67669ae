"""Public parameters of SecAgg+: degree, threshold, modulus, dropout bound; graph and committee.

:func:`secagg_public` is the ONE place that builds the configuration: every
simulation, every separate party process and the pipeline's dependence phase
call it, so all parties of a run agree on it.  The graph and the consistency
committee are *not* part of it: the security argument of Bell et al. 2020
(Sec. 3) samples them after the adversary chose whom to corrupt, so each run
draws them from the seed its parties derive jointly in the draw step
(:mod:`mpc_rr.secure_sum._public_randomness`): :func:`drawn_graph` and
:meth:`SecAggConfig.committee_for`.  :func:`fixed_graph` and
``committee_for(None)`` are the derivation from the run label alone, which an
adversary knows before the run: only unit tests that pin a graph and the
adversary module's broken variant use them.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._entropy import smallest_uint
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._public_randomness import seeded_generator
from mpc_rr.secure_sum._trust import SumTrust, colluders_in

__all__ = [
    "DEFAULT_FAILURE",
    "DEFAULT_MAX_CORRUPT",
    "DEFAULT_MAX_DROPOUT",
    "SecAggConfig",
    "SecAggPublic",
    "consistency_committee",
    "default_degree",
    "default_threshold",
    "drawn_graph",
    "fixed_graph",
    "parties_in",
    "secagg_public",
    "secure_threshold",
    "trust",
]

DEFAULT_MAX_DROPOUT = 0.1
"""Tolerated fraction of dropouts when the caller gives none (lowered only where a
threshold >= 2 would be impossible on a complete graph)."""

DEFAULT_MAX_CORRUPT = 0.1
"""Tolerated fraction of parties colluding with the aggregator when the caller gives none."""

DEFAULT_FAILURE = 1e-6
"""Allowed probability that some party loses its threshold of live neighbours."""


def default_degree(n: int) -> int:
    """Graph degree ``2 * ceil(log2 n)`` (even); the complete graph for ``n <= 32``."""
    if n <= 32:
        return n - 1
    return min(n - 1, 2 * math.ceil(math.log2(n)))


def _binomial_pmf(m: int, q: float) -> np.ndarray:
    """``P[Binomial(m, q) = i]`` for ``i = 0..m`` in log space, vectorized (no scipy import)."""
    i = np.arange(m + 1, dtype=np.float64)
    if q in (0.0, 1.0):
        point: np.ndarray = (i == (m if q else 0)).astype(np.float64)
        return point
    log_comb = np.concatenate([[0.0], np.cumsum(np.log((m - i[1:] + 1) / i[1:]))])
    pmf: np.ndarray = np.exp(log_comb + i * math.log(q) + (m - i) * math.log1p(-q))
    return pmf


def _binomial_terms(k: int, q: float) -> list[float]:
    """``P[Binomial(k, q) = i]`` for ``i = 0..k``, from the exact formula.

    The SecAgg+ thresholds sum these instead of calling ``scipy.stats`` (a slow
    import in every party process); the thresholds equal scipy's
    (``tests/mpc_rr/secure_sum/test_secagg.py`` compares them on a grid).  Past
    ``k = 1000`` the binomial coefficient no longer fits a float: log space
    (:func:`_binomial_pmf`).
    """
    if k <= 1000:
        return [math.comb(k, i) * q**i * (1.0 - q) ** (k - i) for i in range(k + 1)]
    terms: list[float] = _binomial_pmf(k, q).tolist()
    return terms


def parties_in(fraction: float, n: int) -> int:
    """``floor(fraction * n)`` as the fraction is written: ``0.29`` of 100 parties is 29.

    The float product rounds (``0.29 * 100 == 28.999999999999996``), which would
    tolerate one colluder or dropout fewer than declared; the decimal the float
    prints as is what a user gave.
    """
    return math.floor(Fraction(repr(float(fraction))) * n)


def secure_threshold(n: int, degree: int, max_corrupt: float, failure: float = 1e-6) -> int:
    """Smallest Shamir threshold a coalition of ``max_corrupt * n`` parties cannot reach.

    A party's secrets leak when ``t`` of its neighbours collude with the
    aggregator.  Complete graph: ``floor(max_corrupt * n) + 1``.  Sparse random
    graph: the smallest ``t`` with ``n * P[Binomial(degree, max_corrupt) >= t]
    <= failure`` (a union bound over parties, for a coalition chosen before the
    graph is drawn -- Bell et al. 2020, Sec. 3).
    """
    deterministic = parties_in(max_corrupt, n) + 1
    if degree >= n - 1 or max_corrupt == 0:
        return min(deterministic, degree + 1)
    terms = _binomial_terms(degree, max_corrupt)  # P[Binomial(k, gamma) >= t] = sum of terms[t:]
    # the tail only shrinks as t grows (fsum rounds the exact sum, so also in floats): bisection
    # finds the first t that meets the bound in O(k log k), not O(k^2) (t = k + 1 always does)
    first = bisect.bisect_left(range(1, degree + 2), True, key=lambda t: n * math.fsum(terms[t:]) <= failure)
    return min(deterministic, 1 + first)


def default_threshold(n: int, degree: int, max_dropout: float, failure: float = 1e-6) -> int:
    """Largest Shamir threshold that survives ``max_dropout`` (with prob. >= 1 - ``failure``).

    The larger of two guarantees: ``degree - floor(max_dropout * n)`` live
    neighbours, which every party keeps whatever parties drop (the rule for a
    complete graph), and the largest ``t`` with
    ``n * P[Binomial(degree, 1 - max_dropout) < t] <= failure`` (a union bound
    over parties, for dropouts independent of the graph).
    """
    deterministic = degree - parties_in(max_dropout, n)
    if degree >= n - 1:
        return deterministic
    terms = _binomial_terms(degree, 1.0 - max_dropout)  # P[Binomial(k, q) < t] = sum of terms[:t]
    # the head only grows with t: the t = 1..k that meet the bound are a prefix, found by bisection
    meets = bisect.bisect_left(range(1, degree + 1), True, key=lambda t: n * math.fsum(terms[:t]) > failure)
    return max(deterministic, meets)


def _full_quorum(n: int, max_corrupt: float) -> int:
    return min(n, (n + parties_in(max_corrupt, n)) // 2 + 1)


_MAX_COMMITTEE = 4096
"""Largest committee searched; past it, everyone signs (the deterministic quorum)."""


def consistency_committee(
    n: int, max_corrupt: float, max_dropout: float, failure: float = DEFAULT_FAILURE
) -> tuple[int, int]:
    """Size ``m`` and quorum ``q`` of the consistency committee (``m = n``: everyone signs).

    The consistency round (Bonawitz et al. 2017, Round 3) needs two facts: two
    different survivor sets cannot both gather a quorum of signatures, and the
    honest survivors can gather one.  With every party signing, the quorum is a
    majority of *all* parties, ``floor((n + c) / 2) + 1`` for ``c =
    floor(max_corrupt * n)`` colluders -- every party then receives and checks
    about ``n / 2`` signatures, O(n^2) in all.  The argument counts signers, not who
    they are, so a committee of ``m`` parties drawn from the run's public randomness
    (as the graph is, after the adversary chose whom to corrupt: Bell et al. 2020,
    Sec. 3) signs instead.  Its colluders number at most ``c_m`` except with
    probability ``failure`` (``P[Binomial(m, max_corrupt) > c_m] <= failure``;
    sampling without replacement has the lighter hypergeometric tail, Hoeffding 1963,
    Thm. 4), and the quorum is ``floor((m + c_m) / 2) + 1``: two quorums share more
    than ``c_m`` members, so some honest member would have signed two different
    sets, which it never does.  ``m`` is the smallest size whose quorum also
    survives ``max_dropout`` random dropouts (``P[Binomial(m, 1 - max_dropout) < q]
    <= failure``); defaults (0.1, 0.1, 1e-6): ``m = 55``, ``q = 37`` at any ``n``
    above that.  Where no committee smaller than ``n`` has a smaller quorum,
    everyone signs.
    """
    full = (n, _full_quorum(n, max_corrupt))
    for m in range(1, min(n, _MAX_COMMITTEE + 1)):
        at_least = np.cumsum(_binomial_pmf(m, max_corrupt)[::-1])[::-1]  # P[X >= i]
        c = int(np.flatnonzero(np.append(at_least[1:], 0.0) <= failure)[0])  # P[X > c] <= failure
        q = (m + c) // 2 + 1
        if q > m:
            continue
        if math.fsum(_binomial_pmf(m, 1.0 - max_dropout)[:q].tolist()) <= failure:
            return (m, q) if q < full[1] else full
    return full


@dataclass(frozen=True)
class SecAggConfig:
    """Public parameters of one SecAgg+ run (validated; build with :meth:`create`).

    Attributes
    ----------
    n, cells:
        Data parties ``1..n`` and the vector length.
    modulus:
        ``R``; every input is in ``[0, (R - 1) // n]``.
    degree, threshold:
        Graph degree ``k`` and Shamir threshold ``t`` (``2 <= t <= k``; ``t = 1`` only
        when ``n = 2``).
    max_dropout:
        Largest tolerated fraction of parties that drop out (cumulative).
    max_corrupt:
        Largest tolerated fraction of parties colluding with the aggregator
        (the threshold exceeds what such a coalition holds of any neighbourhood).
    run:
        Run id in every message and key derivation.
    committee_size, committee_quorum:
        The consistency round's signers and how many of them must sign one survivor set
        (:func:`consistency_committee`; ``0``: everyone, quorum ``floor((n + c) / 2) + 1``).
    """

    n: int
    cells: int
    modulus: int
    degree: int
    threshold: int
    max_dropout: float
    max_corrupt: float = DEFAULT_MAX_CORRUPT
    run: str = ""
    committee_size: int = 0
    committee_quorum: int = 0

    @classmethod
    def create(
        cls,
        n: int,
        cells: int,
        *,
        max_value: int = 1,
        modulus: int | None = None,
        degree: int | None = None,
        threshold: int | None = None,
        max_dropout: float | None = None,
        max_corrupt: float | None = None,
        failure: float = DEFAULT_FAILURE,
        run: str = "",
    ) -> SecAggConfig:
        """Validate and complete the parameters (``None`` = the documented default)."""
        n, cells = int(n), int(cells)
        if n < 2:
            raise UsageError(f"SecAggConfig: n must be >= 2 parties, got {n}")
        if n >= shamir.PRIME:
            raise UsageError(f"SecAggConfig: n must be < {shamir.PRIME}, got {n}")
        if cells < 1:
            raise UsageError(f"SecAggConfig: cells must be >= 1, got {cells}")
        if not 0.0 < failure < 1.0:
            raise UsageError(f"SecAggConfig: failure must be in (0, 1), got {failure}")
        if max_dropout is not None and not 0.0 <= max_dropout < 1.0:
            raise UsageError(f"SecAggConfig: max_dropout must be in [0, 1), got {max_dropout}")
        if max_corrupt is not None and not 0.0 <= max_corrupt < 1.0:
            raise UsageError(f"SecAggConfig: max_corrupt must be in [0, 1), got {max_corrupt}")
        gamma = DEFAULT_MAX_CORRUPT if max_corrupt is None else float(max_corrupt)
        if modulus is None:
            modulus = max(2, 1 << (n * max_value).bit_length())
        if not 2 <= modulus <= 2**32 or n * max_value >= modulus:
            raise UsageError(
                f"SecAggConfig: modulus must be in [2, 2^32] and exceed n * max_value = "
                f"{n * max_value}, got {modulus}"
            )
        if degree is not None and not 1 <= degree:
            raise UsageError(f"SecAggConfig: degree must be >= 1, got {degree}")
        if degree is not None and degree > n - 1:
            raise UsageError(
                f"SecAggConfig: degree must be at most n - 1 = {n - 1} (the complete graph), "
                f"got {degree}"
            )
        t_min = 1 if n == 2 else 2  # with 2 parties the sum reveals the other input anyway
        if max_dropout is None:
            # the default tolerance, lowered to k/n only where a threshold >= t_min is impossible
            md = DEFAULT_MAX_DROPOUT
            if (default_degree(n) if degree is None else degree) >= n - 1:  # complete graph
                while md > 0 and n - 1 - parties_in(md, n) < t_min:
                    md = (parties_in(md, n) - 1) / n
            max_dropout = max(md, 0.0)
        def window(k: int) -> tuple[int, int]:
            """Thresholds secure against ``gamma`` collusion and surviving ``max_dropout``."""
            lo = max(t_min, secure_threshold(n, k, gamma, failure))
            return lo, default_threshold(n, k, max_dropout, failure)

        if degree is None and threshold is None:
            # grow the default degree until some threshold is both secure and robust
            k = default_degree(n)
            complete = window(n - 1)  # the best case: a sparse graph adds sampling margins
            if complete[0] > complete[1]:  # to both ends, so none is feasible: refuse at once
                k = n - 1
            while k < n - 1 and window(k)[0] > window(k)[1]:
                k += 2
        else:
            k = default_degree(n) if degree is None else int(degree)
        k = n - 1 if k >= n - 1 else k + (k % 2)  # the graph rounds odd degrees up
        k = min(k, n - 1)
        lo, hi = window(k)
        if threshold is None:
            t = hi
            if not lo <= hi:
                raise UsageError(
                    f"SecAggConfig: at degree {k} no threshold is both secure and robust: a "
                    f"coalition of max_corrupt={gamma:g} of the parties needs t >= {lo}, and a "
                    f"degree of {k} cannot tolerate max_dropout={max_dropout:g} beyond t = {hi}; "
                    f"raise the degree or lower max_dropout / max_corrupt"
                )
        else:
            t = int(threshold)
            if not lo <= t <= k:
                if t > k:
                    why = "a party cannot share among more neighbours than it has; lower it or raise the degree"
                elif lo > t_min:
                    why = (f"a coalition of max_corrupt={gamma:g} of the parties reaches thresholds below "
                           f"{lo}; raise the threshold or degree, or lower max_corrupt")  # fmt: skip
                else:
                    why = f"below {t_min}, one party's share would reveal its secrets; raise it"
                raise UsageError(f"SecAggConfig: threshold must be in [{lo}, degree={k}], got {t} ({why})")
        m, q = consistency_committee(n, gamma, float(max_dropout), failure)
        return cls(n, cells, int(modulus), k, t, float(max_dropout), gamma, run, m, q)

    @property
    def dtype(self) -> np.dtype[np.unsignedinteger]:
        """Wire dtype of residues: the smallest unsigned type holding ``modulus - 1``."""
        return smallest_uint(self.modulus)

    @property
    def quorum(self) -> int:
        """Committee signatures a survivor set needs before any party reveals a share (the
        consistency round, Bonawitz et al. 2017, Round 3, with the committee of
        :func:`consistency_committee`).  Two sets with a quorum each share more committee
        members than can collude, so some honest member would have signed both -- which it
        never does: every party that reveals was shown the same set."""
        return self.committee_quorum or _full_quorum(self.n, self.max_corrupt)

    @cached_property
    def _fixed_committee(self) -> np.ndarray:
        base = self.run.split("#", 1)[0]
        digest = hashlib.sha256(f"mpc_rr/secagg/committee/v1|{base}|{self.n}|{self.committee_size}".encode()).digest()
        return self._committee(np.random.default_rng(int.from_bytes(digest[:16], "little")))

    def committee_for(self, seed: bytes | None) -> np.ndarray:
        """``(n + 1,)`` bool: the parties whose signatures on the survivor set count.

        Drawn from the run's joint ``seed`` (:func:`~mpc_rr.secure_sum._public_randomness.joint_seed`);
        ``None``: from SHA-256 of the run label's base alone, which is fixed before the run
        (the broken variant's derivation).  Everyone when ``committee_size`` is 0 or ``n``.
        """
        if seed is None:
            return self._fixed_committee
        return self._drawn_committee(seed)

    @lru_cache(maxsize=16)  # noqa: B019  (the config is frozen and lives as long as its run)
    def _drawn_committee(self, seed: bytes) -> np.ndarray:
        return self._committee(seeded_generator(seed, "secagg/committee", self.n, self.committee_size))

    def _committee(self, rng: np.random.Generator) -> np.ndarray:
        mask = np.ones(self.n + 1, bool)
        mask[0] = False
        m = self.committee_size
        if 0 < m < self.n:
            mask[:] = False
            mask[rng.choice(self.n, size=m, replace=False) + 1] = True
        mask.setflags(write=False)
        return mask

    @property
    def max_dropped(self) -> int:
        """Largest number of dropouts the run tolerates."""
        return parties_in(self.max_dropout, self.n)

    def as_json(self) -> dict[str, object]:
        return {
            "n": self.n,
            "cells": self.cells,
            "modulus": self.modulus,
            "degree": self.degree,
            "threshold": self.threshold,
            "max_dropout": self.max_dropout,
            "max_dropped": self.max_dropped,
            "max_corrupt": self.max_corrupt,
            "committee": self.committee_size or self.n,
            "quorum": self.quorum,
        }


@dataclass(frozen=True, eq=False)
class SecAggPublic:
    """Everything public about one SecAgg+ run before it starts: the configuration.

    ``graph``: ``None`` (the protocol: the roles draw the graph and the committee from
    the run's joint seed); a fixed graph pins it and the label's committee instead --
    unit tests that need a known graph and the adversary module's broken variant only.
    """

    config: SecAggConfig
    graph: Graph | None = None

    def as_json(self) -> dict[str, object]:
        """The public parameters a report shows (:meth:`SecAggConfig.as_json`)."""
        return self.config.as_json()


def drawn_graph(config: SecAggConfig, seed: bytes) -> Graph:
    """The run's graph: ``Graph.random_regular`` from the joint ``seed`` (the draw step).

    Cached: the parties of a simulation that derive one seed share one graph (read-only)."""
    return _drawn_graph(config.n, config.degree, seed)


@lru_cache(maxsize=16)
def _drawn_graph(n: int, degree: int, seed: bytes) -> Graph:
    return Graph.random_regular(n, degree, seeded_generator(seed, "secagg/graph", n, degree))


def fixed_graph(config: SecAggConfig) -> Graph:
    """The graph from SHA-256 of ``(run label's base, n, degree)`` alone: fixed before the run.

    What an adversary computes from the label (and the same in every run with that
    base, whatever the nonce): the adversary module's broken variant and unit tests.
    """
    return _fixed_graph(config.run.split("#", 1)[0], config.n, config.degree)


@lru_cache(maxsize=16)
def _fixed_graph(base: str, n: int, degree: int) -> Graph:
    digest = hashlib.sha256(f"mpc_rr/secagg/graph/v1|{base}|{n}|{degree}".encode()).digest()
    return Graph.random_regular(n, degree, np.random.default_rng(int.from_bytes(digest[:16], "little")))


def secagg_public(
    n: int,
    cells: int,
    *,
    run: str,
    max_value: int = 1,
    modulus: int | None = None,
    degree: int | None = None,
    threshold: int | None = None,
    max_dropout: float | None = None,
    max_corrupt: float | None = None,
    failure: float = DEFAULT_FAILURE,
) -> SecAggPublic:
    """THE constructor of a run's public parameters (cached: every role of a run shares them).

    Parameters are :meth:`SecAggConfig.create`'s.  The graph is not among them: the
    roles draw it in the run (:func:`drawn_graph`).
    """
    return _public(
        int(n), int(cells), str(run), int(max_value), modulus, degree, threshold, max_dropout,
        max_corrupt, float(failure),
    )  # fmt: skip


@lru_cache(maxsize=16)
def _public(
    n: int,
    cells: int,
    run: str,
    max_value: int,
    modulus: int | None,
    degree: int | None,
    threshold: int | None,
    max_dropout: float | None,
    max_corrupt: float | None,
    failure: float,
) -> SecAggPublic:
    cfg = SecAggConfig.create(
        n, cells, max_value=max_value, modulus=modulus, degree=degree, threshold=threshold,
        max_dropout=max_dropout, max_corrupt=max_corrupt, failure=failure, run=run,
    )  # fmt: skip
    return SecAggPublic(cfg)


def trust(options: Any, n: int, max_corrupt: float | None = None) -> SumTrust:
    """The coalition a SecAgg+ run among ``n`` clients hides inputs against (Bell et al. 2020,
    Sec. 3: the server and at most ``floor(gamma n)`` clients, ``gamma`` the ``max_corrupt``
    the threshold was sized for, with the graph drawn after the corruption).  ``max_corrupt``: the colluding fraction to
    assume (``None``: the one the run is sized for); a larger one exceeds the bound."""
    sized = DEFAULT_MAX_CORRUPT if options.max_corrupt is None else float(options.max_corrupt)
    assumed = sized if max_corrupt is None else float(max_corrupt)
    bound = parties_in(sized, n)
    return SumTrust(
        "secagg", int(n), assumed, colluders_in(assumed, n), bound,
        f"the aggregator colludes with at most {bound} of the {n} clients (max_corrupt {sized:g}, "
        "what the Shamir threshold is sized for)",
        f"secure-sum channel (SecAgg+): hides senders only if the aggregator does not collude "
        f"with more than floor({sized:g} n) = {bound} clients and the protocol's public "
        "randomness (graph, consistency committee) is unbiased: it is drawn after the roster "
        "from a seed every party contributes to (commit-then-reveal)",
    )  # fmt: skip
