"""A SecAgg+ run as the sum family builds it: public parameters, roles, messages, costs.

These are the functions :data:`~mpc_rr.secure_sum.secagg.SPEC` names; and
:func:`secagg_roles` builds every role of one run at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import msgspec
import numpy as np

from mpc_rr.core import COORDINATOR, DropPoint, Message, Role, UsageError
from mpc_rr.secure_sum._entropy import Entropy, smallest_uint
from mpc_rr.secure_sum._identity import Identity
from mpc_rr.secure_sum.secagg._client import SecAggClient
from mpc_rr.secure_sum.secagg._judge import SecAggPrecheck
from mpc_rr.secure_sum.secagg._messages import (
    SECAGG_MESSAGES,
    AdvertiseKeys,
    ConsistencySig,
    EncryptedShares,
    MaskedInput,
    UnmaskShares,
)
from mpc_rr.secure_sum.secagg._params import (
    DEFAULT_FAILURE,
    DEFAULT_MAX_CORRUPT,
    DEFAULT_MAX_DROPOUT,
    SecAggPublic,
    consistency_committee,
    secagg_public,
)
from mpc_rr.secure_sum.secagg._server import SecAggServer
from mpc_rr.secure_sum.secagg._spec import SecAggOptions

__all__ = ["secagg_roles"]


def public(
    n: int, cells: int, *, run: str, max_value: int = 1, options: SecAggOptions | None = None
) -> SecAggPublic:
    """The run's public parameters (:func:`secagg_public`, cached) from the typed options."""
    o = options if options is not None else SecAggOptions()
    return secagg_public(
        n, cells, run=run, max_value=max_value, degree=o.degree, threshold=o.threshold,
        max_dropout=o.max_dropout, max_corrupt=o.max_corrupt,
        failure=DEFAULT_FAILURE if o.failure is None else o.failure,
    )  # fmt: skip


def role(
    party_id: int, pub: SecAggPublic, x: np.ndarray | None, *, entropy: Entropy | None = None,
    identity: Identity | None = None,
) -> Role:  # fmt: skip
    """The aggregator (party 0) or data party ``party_id`` holding ``x`` (``identity``: its
    signing key and roster, default :func:`~mpc_rr.secure_sum.default_identity`)."""
    if party_id == COORDINATOR:
        return SecAggServer(pub.config, pub.graph, identity=identity)
    if x is None:
        raise UsageError(f"SecAgg+ data party {party_id} needs an input vector")
    return SecAggClient(party_id, pub.config, pub.graph, x, entropy=entropy, identity=identity)


def precheck(pub: SecAggPublic) -> SecAggPrecheck:
    """The aggregator's stateless checks of one run (:class:`SecAggPrecheck`)."""
    return SecAggPrecheck(pub.config)


def messages() -> tuple[type[Message], ...]:
    return SECAGG_MESSAGES


def step_messages() -> Mapping[str, DropPoint]:
    """The message a data party sends at each step (where a dropout can strike).

    Only the consistency committee signs the survivor set: a party outside it that
    drops in the consistency step crashes before its next message, its unmask shares.
    """
    return {
        "keys": AdvertiseKeys,
        "shares": EncryptedShares,
        "masked": MaskedInput,
        "consistency": (ConsistencySig, UnmaskShares),
        "unmask": UnmaskShares,
    }


def message_count(n: int, options: SecAggOptions | None = None) -> int:
    """Messages of one run without dropouts: 5 per party each way (keys, the draw, shares,
    masked input, unmasking) and 2 per consistency committee member (the survivor set, its
    signature)."""
    committee, _ = _committee(n, options)
    return 10 * n + 2 * committee


def party_messages(pub: SecAggPublic, n: int) -> int:
    """What the data parties send the aggregator without dropouts: keys, the draw's reveal,
    shares, masked input and unmask shares each, and the committee's signatures on the
    survivor set."""
    return 5 * n + (pub.config.committee_size or pub.config.n)


def memory_estimate(n: int, cells: int, options: SecAggOptions | None = None) -> int:
    """Rough peak bytes of one simulated run in one process.

    Inputs and per-party state hold ``cells`` uint64 words per party; one
    masked vector per party in flight; a party's ``degree + 1`` mask streams
    while it computes.  The consistency round (Bonawitz et al. 2017, Round 3)
    sends every party a committee quorum's signatures (64 B each, a constant:
    :func:`consistency_committee`) and two bitmaps over the ``n`` ids.
    """
    degree = None if options is None else options.degree
    word = 8
    wire = int(np.dtype(smallest_uint(max(2, n + 1))).itemsize)
    k = degree if degree is not None else min(n - 1, 64)
    _, quorum = _committee(n, options)
    consistency = n * (quorum * 64 + 2 * ((n + 8) // 8))
    return n * cells * (word + 1) + n * cells * wire + 2 * (k + 1) * cells * word + consistency


def _committee(n: int, options: SecAggOptions | None) -> tuple[int, int]:
    """Size and quorum of the consistency committee for ``options`` (defaults where None)."""
    max_corrupt = DEFAULT_MAX_CORRUPT if options is None or options.max_corrupt is None else options.max_corrupt
    max_dropout = DEFAULT_MAX_DROPOUT if options is None or options.max_dropout is None else options.max_dropout
    failure = DEFAULT_FAILURE if options is None or options.failure is None else options.failure
    return consistency_committee(n, max_corrupt, max_dropout, failure)


def fit_options(options: SecAggOptions, n: int) -> SecAggOptions:
    """``options`` for a run among ``n`` parties: a degree above ``n - 1`` becomes ``n - 1``."""
    if options.degree is not None and options.degree > n - 1:
        return msgspec.structs.replace(options, degree=n - 1)
    return options


def secagg_roles(
    inputs: np.ndarray,
    public: SecAggPublic,
    *,
    entropy: Callable[[int], Entropy] | None = None,
    identities: Mapping[int, Identity] | None = None,
) -> dict[int, Role]:
    """Aggregator and data parties of one run; party ``i`` holds ``inputs[i - 1]``.

    ``entropy(party_id)`` supplies each party's cryptographic source (default:
    the OS CSPRNG; a seeded source only in tests and teaching traces);
    ``identities`` each party's signing identity (default: the process's
    simulated PKI, :func:`~mpc_rr.secure_sum.default_identity`).
    """
    cfg, graph = public.config, public.graph
    x = np.asarray(inputs)
    if x.shape != (cfg.n, cfg.cells):
        raise UsageError(f"inputs must have shape ({cfg.n}, {cfg.cells}), got {x.shape}")
    ids = identities if identities is not None else {}
    roles: dict[int, Role] = {COORDINATOR: SecAggServer(cfg, graph, identity=ids.get(COORDINATOR))}
    for i in range(1, cfg.n + 1):
        ent = entropy(i) if entropy is not None else None
        roles[i] = SecAggClient(i, cfg, graph, x[i - 1], entropy=ent, identity=ids.get(i))
    return roles
