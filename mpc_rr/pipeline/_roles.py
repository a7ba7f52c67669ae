"""The distributed pipeline: data parties and an untrusted coordinator (sans-I/O).

How this protocol works (``dependence="rr"``, Sec. 4.1)::

    party i                                coordinator (party 0)
    ------- RandomizedRecord(y_i) -------->  collects (deadline: go on with >=
                                             min_parties), dependences on the
                                             randomized data, Algorithm 1
    <------ SignedClustering ---------------  clusters + digest, Ed25519-signed
    verify signature (and, where it can
    compute the clustering itself, its
    own digest); randomize each cluster
    ------- Release(z_i) ----------------->  collects, estimates every cluster
                                             (Eq. 2 + repair), RR-Adjustment

With ``dependence="secure-sum"`` or ``"pairwise-rr"`` the first step is a
secure sum (SecAgg+, a sub-protocol, :mod:`mpc_rr.pipeline._dependence`) of
each party's one-hot pair vector; every party learns the aggregate and
checks the broadcast digest against its own clustering.  Dropouts within
SecAgg+'s bound are tolerated in the secure sum, and any party silent at a
later deadline is left out (down to ``min_parties``).

The state diagrams are the transition tables of
:class:`~mpc_rr.pipeline.DataParty` (``PARTY_TABLE``, :mod:`._party`) and
:class:`~mpc_rr.pipeline.Coordinator` (``COORDINATOR_TABLE``,
:mod:`._coordinator`), each right under its State enum with a summary of
that side of the protocol.

Randomness: party ``i`` draws everything from its own generator, in the
order (dependence release, cluster release), group by group, exactly as
:func:`mpc_rr.mdrr.release_groups` with one generator per record --
so the distributed estimates equal the centralized ones for the same seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from mpc_rr.core import COORDINATOR, Role, UsageError, party_generators
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.pipeline._coordinator import Coordinator, Progress
from mpc_rr.pipeline._party import DataParty
from mpc_rr.secure_sum import Entropy

__all__ = ["pipeline_roles"]


def pipeline_roles(
    config: PipelineConfig,
    records: np.ndarray,
    seed: int | np.random.SeedSequence,
    signing_key: Ed25519PrivateKey,
    *,
    sum_entropy: Callable[[int], Entropy] | None = None,
    parties: Sequence[int] | None = None,
    progress: Progress | None = None,
    generators: Callable[[int], np.random.Generator] | None = None,
) -> dict[int, Role]:
    """The coordinator and the data parties of one simulated run.

    Party ``i`` holds ``records[i - 1]`` and a generator from the ``i - 1``-th
    child of ``SeedSequence(seed)`` (:func:`~mpc_rr.core.party_generators`),
    unless ``generators(i)`` supplies one.  ``parties`` restricts which
    data-party roles are built.  ``sum_entropy(i)`` is party ``i``'s
    cryptographic source in the dependence sum (``None``: the OS CSPRNG;
    seeded only in tests and teaching traces).
    """
    recs = np.asarray(records)
    if recs.shape != (config.n, len(config.sizes)):
        raise UsageError(
            f"records must have shape ({config.n}, {len(config.sizes)}), got {recs.shape}"
        )
    gens = party_generators(seed, config.n) if generators is None else None
    roles: dict[int, Role] = {
        COORDINATOR: Coordinator(config, signing_key, progress=progress)
    }
    for i in parties if parties is not None else range(1, config.n + 1):
        rng = generators(i) if generators is not None else gens[i - 1]  # type: ignore[index]
        ent = sum_entropy(i) if sum_entropy is not None else None
        roles[i] = DataParty(i, config, recs[i - 1], rng, sum_entropy=ent)
    return roles
