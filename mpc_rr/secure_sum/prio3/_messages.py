"""Messages of the prio3 secure sum (:mod:`mpc_rr.secure_sum.prio3._roles`), one per step and direction."""

from __future__ import annotations

from mpc_rr.core import Message, WireArray

__all__ = [
    "PRIO3_MESSAGES",
    "AggregationJob",
    "HelperKey",
    "JobResponse",
    "Prio3Abort",
    "Prio3Total",
    "Report",
]


class HelperKey(Message, frozen=True):
    """Step 0, helper -> leader -> clients: the helper announces its X25519 public key; every
    party checks it against the key pinned in the run's public parameters (clients seal to the
    pinned key, never to this message: a leader that substitutes it is caught, not obeyed)."""

    pk: bytes


class Report(Message, frozen=True):
    """Step 1, client -> leader: a Prio3 report; the helper's input share sealed to the helper;
    the client's signature over all of it (:func:`~mpc_rr.secure_sum.prio3.report_payload`)."""

    nonce: bytes
    public_share: bytes
    leader_share: bytes
    eph_pk: bytes
    sealed: bytes
    signature: bytes


class AggregationJob(Message, frozen=True):
    """Step 2, leader -> helper: aggregation job ``job`` (0, 1, ...; ``last`` on the final one),
    a bounded batch of reports: the verification key (the same in every job), the reports'
    helper parts and the leader's verifier shares (the draft's ping-pong topology, one round),
    and what the helper needs to check each client's signature: the digest of the leader's
    share and the signature."""

    job: int
    last: bool
    verify_key: bytes
    ids: WireArray
    nonces: list[bytes]
    public_shares: list[bytes]
    eph_pks: list[bytes]
    sealed: list[bytes]
    leader_vshares: list[bytes]
    leader_digests: list[bytes]
    signatures: list[bytes]


class JobResponse(Message, frozen=True):
    """Step 3, helper -> leader: job ``job``'s verifier shares and decisions; the answer to the
    last job also carries the helper's aggregate share over every job (empty before: one
    aggregate is released, never a share per job).  ``refused`` (non-empty) says why the
    helper releases nothing: fewer accepted reports than the run's minimum batch, or a
    report its client did not sign."""

    job: int
    helper_vshares: list[bytes]
    accepted: WireArray
    agg_share: bytes
    refused: str = ""


class Prio3Total(Message, frozen=True):
    """Final, leader -> client: the sum of the accepted reports and the rejected senders."""

    total: WireArray
    n_included: int
    rejected: WireArray


class Prio3Abort(Message, frozen=True):
    """Final, leader -> client: the run stopped without a total, and who made it stop."""

    reason: str
    culprits: list[int]


PRIO3_MESSAGES: tuple[type[Message], ...] = (
    HelperKey,
    Report,
    AggregationJob,
    JobResponse,
    Prio3Total,
    Prio3Abort,
)
