"""Joint public randomness by commit-then-reveal: a seed nobody chooses or predicts alone.

A protocol whose security argument needs a public draw made *after* the
adversary chose whom to corrupt (SecAgg+'s neighbour graph and consistency
committee: Bell et al. 2020, Sec. 3 -- their analysis fixes the corrupt set,
then samples the graph) cannot take that draw from anything the adversary
knows in advance: the run label, its nonce (the hub chooses it) or the roster.
Here every party contributes:

1. **commit** -- party ``u`` draws 32 fresh bytes ``r_u`` from its cryptographic
   source and signs :func:`commitment` ``H(protocol, run, u, r_u)`` with its
   keys (one signed message, so the relay cannot substitute it);
2. the relay fixes the set of committed parties and sends every party
   :func:`commitments_digest` ``D`` of the set and their commitments;
3. **reveal** -- every party signs ``D`` (the set it was shown) and sends
   ``r_u``;
4. the relay sends every party the reveals of the revealers
   (:func:`revealers` of ``D``: every contributor up to a few hundred, then
   :func:`revealer_count` of them); each checks them (:func:`check_reveals`
   against ``D`` when everyone reveals, its own among them; else each
   revealer's signed commitment) and derives :func:`joint_seed`
   ``H(D, r_1, ..., r_M)``.

Why the seed is uniform to the adversary: ``D`` is fixed before any honest
party reveals, the commitments hide ``r`` (SHA-256 of 32 random bytes) and
bind it (each names its party, so no commitment can be copied and opened as
another's).  Whatever the colluders commit, the seed is a hash of at least
one uniform secret they did not know when they committed: in the random
oracle model it is uniform and unknown to them until the reveals.

Withholding: the seed uses *exactly* the revealers' contributions; a missing or
wrong reveal aborts the run and names the party (the relay cannot exclude a
reveal after seeing the others, which would let it choose among ``2^c``
subsets of ``c`` colluders' reveals -- or many more by claiming honest
parties dropped).  The only lever left is to abort after seeing the seed and
start a new run: ``R`` attempts give the adversary the best of ``R``
independent draws, so a property that fails with probability ``p`` on one
draw fails with at most ``R * p``.  A party dropping between commit and reveal
is a dropout the draw does not tolerate if it is a revealer (it aborts the run,
naming it);
dropouts before the commitment (the keys step) or after the draw are
tolerated as the protocol's other steps tolerate them.

Equivocation (the relay showing different ``D`` to different parties) changes
every later public draw of those parties; each party checks its neighbours'
signatures on ``D`` (a protocol-specific check: SecAgg+'s
:class:`~mpc_rr.secure_sum.secagg.NeighborKeys` carries them).
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np

__all__ = [
    "DRAW_BYTES",
    "GRIND_BITS",
    "check_reveals",
    "commitment",
    "commitments_digest",
    "joint_seed",
    "revealer_count",
    "revealers",
    "seeded_generator",
]

DRAW_BYTES = 32
"""Bytes of each party's contribution ``r_u`` and of every commitment and seed."""

_DOMAIN = b"mpc_rr/public-randomness/v1"


def _frame(*parts: bytes) -> bytes:
    """Length-prefixed concatenation (8 bytes little-endian each): no two tuples collide."""
    return b"".join(len(p).to_bytes(8, "little") + p for p in parts)


def commitment(protocol: str, run: str, party: int, reveal: bytes) -> bytes:
    """``H(domain, protocol, run, party, r)``: what party ``party`` commits to (32 bytes)."""
    return hashlib.sha256(
        _frame(_DOMAIN, b"commit", protocol.encode(), run.encode(), int(party).to_bytes(8, "little"), reveal)
    ).digest()


def commitments_digest(protocol: str, run: str, contributors: np.ndarray, commits: bytes) -> bytes:
    """``D``: the committed parties (bool over ids ``0..n``) and their commitments, in id order."""
    members = np.packbits(np.asarray(contributors, bool)).tobytes()
    return hashlib.sha256(_frame(_DOMAIN, b"set", protocol.encode(), run.encode(), members, commits)).digest()


def joint_seed(digest: bytes, reveals: bytes) -> bytes:
    """The seed: ``H(D, r_1 || ... || r_m)`` over the reveals of the committed parties, in id order."""
    return hashlib.sha256(_frame(_DOMAIN, b"seed", digest, reveals)).digest()


def check_reveals(
    protocol: str, run: str, contributors: np.ndarray, reveals: bytes, digest: bytes, *,
    commit_run: str | None = None,
) -> tuple[bytes, bytes] | str:  # fmt: skip
    """``(commits, seed)`` when ``reveals`` (32 bytes per contributor, id order) open a
    commitment set whose digest is ``digest``; else why not (a sentence).  ``commit_run``:
    the run label inside each commitment when it is not ``run`` (a broken variant's).

    Recomputing the commitments from the reveals and comparing one digest checks every
    reveal at once: a wrong reveal changes its commitment, so the digest differs.  Memoized
    on the exact bytes (a pure function: a simulation's parties, sent the same reveals,
    check them once).
    """
    members = np.asarray(contributors, bool)
    return _check(protocol, run, members.size, np.packbits(members).tobytes(), reveals, digest,
                  run if commit_run is None else commit_run)  # fmt: skip


@lru_cache(maxsize=8)
def _check(
    protocol: str, run: str, size: int, packed: bytes, reveals: bytes, digest: bytes, commit_run: str
) -> tuple[bytes, bytes] | str:
    members = np.unpackbits(np.frombuffer(packed, np.uint8))[:size].astype(bool)
    ids = np.flatnonzero(members).tolist()
    if len(reveals) != DRAW_BYTES * len(ids):
        return f"{len(reveals)} bytes of reveals for {len(ids)} contributors"
    commits = b"".join(
        commitment(protocol, commit_run, u, reveals[DRAW_BYTES * i : DRAW_BYTES * (i + 1)]) for i, u in enumerate(ids)
    )
    if commitments_digest(protocol, run, members, commits) != digest:
        return "the reveals do not open the commitments I was shown"
    return commits, joint_seed(digest, reveals)


GRIND_BITS = 128
"""Work, in bits, an adversary would need to steer the draw through the choice of revealers."""


@lru_cache(maxsize=64)
def revealer_count(contributors: int, colluders: int) -> int:
    """How many committed parties reveal: all of them, or the smallest ``M`` with
    ``((M + c) / L) ** M <= 2 ** -GRIND_BITS`` for ``L`` contributors and ``c`` colluders.

    The revealers are a function of the digest ``D`` (:func:`revealers`), which the relay
    fixes: every ``D`` it tries draws ``M`` parties at random, and the seed escapes the
    honest parties only if every revealer is a colluder or revealed already in another view
    (at most ``M + c`` parties): probability at most ``((M + c) / L) ** M`` per try.  With
    10 % colluders: everyone up to about 400 parties, 47 of 1,000, 39 of 32,561 -- each party
    then receives ``M`` reveals, not ``L``.
    """
    for m in range(1, contributors):
        if m * math.log2((m + colluders) / contributors) <= -GRIND_BITS:
            return m
    return contributors


def revealers(digest: bytes, contributors: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` contributors (bool over ids) with the smallest ``H(D, id)``, sorted by id
    (memoized on the exact bytes: a simulation's parties draw them once)."""
    members = np.asarray(contributors, bool)
    if count >= int(members.sum()):
        return np.flatnonzero(members)
    return _revealers(digest, members.size, np.packbits(members).tobytes(), count).copy()


@lru_cache(maxsize=8)
def _revealers(digest: bytes, size: int, packed: bytes, count: int) -> np.ndarray:
    ids = np.flatnonzero(np.unpackbits(np.frombuffer(packed, np.uint8))[:size])
    keys = [hashlib.sha256(_frame(_DOMAIN, b"reveal", digest, int(u).to_bytes(8, "little"))).digest() for u in ids]
    order = sorted(range(ids.size), key=keys.__getitem__)[:count]
    return np.sort(ids[order])


def seeded_generator(seed: bytes, purpose: str, *labels: object) -> np.random.Generator:
    """A numpy generator for one public draw (``purpose``: e.g. ``"graph"``) from the seed.

    Public draws only (a graph, a committee): the generator is seeded from
    SHA-256 of the seed and the labels, 128 bits.
    """
    text = "|".join(str(x) for x in labels).encode()
    digest = hashlib.sha256(_frame(_DOMAIN, purpose.encode(), seed, text)).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))
