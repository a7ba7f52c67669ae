"""Messages of SecAgg+ (:mod:`mpc_rr.secure_sum.secagg._roles`), one per step and direction."""

from __future__ import annotations

from mpc_rr.core import Message, WireArray

__all__ = [
    "SECAGG_MESSAGES",
    "AdvertiseKeys",
    "Aggregate",
    "EncryptedShares",
    "ForwardedShares",
    "MaskedInput",
    "NeighborKeys",
    "SecAggAbort",
    "UnmaskRequest",
    "UnmaskShares",
]


class AdvertiseKeys(Message, frozen=True):
    """Step 0, party -> aggregator: public keys and a commitment to the self-mask seed."""

    c_pk: bytes
    s_pk: bytes
    b_commit: bytes


class NeighborKeys(Message, frozen=True):
    """Step 0, aggregator -> party: live neighbours and their public keys."""

    ids: WireArray
    c_pks: WireArray
    s_pks: WireArray


class EncryptedShares(Message, frozen=True):
    """Step 1, party -> aggregator: one ciphertext per live neighbour."""

    recipients: WireArray
    ciphertexts: WireArray


class ForwardedShares(Message, frozen=True):
    """Step 1, aggregator -> party: the ciphertexts addressed to it."""

    senders: WireArray
    ciphertexts: WireArray


class MaskedInput(Message, frozen=True):
    """Step 2, party -> aggregator: the masked input vector."""

    y: WireArray


class UnmaskRequest(Message, frozen=True):
    """Step 3, aggregator -> party: which of its neighbours dropped after sharing."""

    dropped: WireArray


class UnmaskShares(Message, frozen=True):
    """Step 3, party -> aggregator: shares of ``b`` (live owners) and ``s_sk`` (dropped)."""

    b_owners: WireArray
    b_shares: WireArray
    s_owners: WireArray
    s_shares: WireArray


class Aggregate(Message, frozen=True):
    """Final, aggregator -> party: the sum and how many inputs it contains."""

    total: WireArray
    n_included: int


class SecAggAbort(Message, frozen=True):
    """Final, aggregator -> party: the run stopped without a result."""

    reason: str


SECAGG_MESSAGES: tuple[type[Message], ...] = (
    AdvertiseKeys,
    NeighborKeys,
    EncryptedShares,
    ForwardedShares,
    MaskedInput,
    UnmaskRequest,
    UnmaskShares,
    Aggregate,
    SecAggAbort,
)


