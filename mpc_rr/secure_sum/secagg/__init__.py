"""Scalable, dropout-tolerant secure aggregation (SecAgg+, Bell et al. 2020).

How this protocol works.  Data parties ``1..n`` talk only to the aggregator
(party 0), which routes every message; a public random ``k``-regular graph
(:class:`~mpc_rr.secure_sum.Graph`) says who masks with whom.  The graph and the
consistency committee are drawn in step 0 from a seed the parties derive together
(:mod:`mpc_rr.secure_sum._public_randomness`): each commits to 32 random bytes in its
signed keys, the aggregator sends the digest of the commitments
(:class:`DrawCommitted`), each signs it and reveals (:class:`DrawReveal`), and
:class:`NeighborKeys` carries the reveals -- fixed after the roster, before any share.

====  ===========================  ==============================================
step  party ``u``                  aggregator
====  ===========================  ==============================================
0     :class:`AdvertiseKeys`:      waits for all (timeout: dropouts), drops parties
      two X25519 public keys       with fewer than ``t`` live neighbours, sends each
      (``c`` to encrypt shares,    party :class:`NeighborKeys` (its live
      ``s`` for masks) and a hash  neighbours' public keys)
      of its self-mask seed ``b``
1     Shamir-shares ``s_sk`` and   collects (timeout: dropouts), regroups the
      ``b`` (threshold ``t``)      ciphertexts by recipient: :class:`ForwardedShares`
      among its neighbours,
      AES-GCM-encrypts each share
      under the pairwise ``c`` key:
      :class:`EncryptedShares`
2     :class:`MaskedInput`         collects ``y_u`` (timeout: dropouts), tells each
      ``y = x + PRG(b) + sum_v     survivor which of its neighbours dropped:
      +-PRG(s_uv)  (mod R)``       :class:`UnmaskRequest`
      (``v`` = neighbours that
      shared in step 1; ``+`` if
      ``u < v``)
3     :class:`UnmaskShares`: its   reconstructs ``b`` of every survivor and ``s_sk``
      share of ``b_v`` for live    of every party that dropped after sharing,
      ``v``, of ``s_sk_v`` for     removes their masks (vectorized over cells and
      dropped ``v`` -- never both  parties), sends :class:`Aggregate`
====  ===========================  ==============================================

Against an active server (Bonawitz et al. 2017's active-adversary version) the
steps above carry signatures (keys, the digest of each share batch, the aggregate), a
party whose share does not open asks for the sender's signed batch before it masks
(:class:`ShareComplaint` -> :class:`ShareProofs`, sent only then), and a consistency
round (:class:`SurvivorSet`, :class:`ConsistencySig`, a committee quorum in
:class:`UnmaskRequest`) comes before any share is revealed: docs/secure_aggregation.md
has the round table and the threat model beyond the one below.

Threat model (what the docstring promises, and what tests check):

* The aggregator may be **malicious**: it may substitute or replay
  keys, forge or withhold the shares it forwards, equivocate on who survived,
  report a target's neighbours dropped, or show parties different totals.
  Signed keys, signed share batches, the consistency round and the signed
  receipt make each of these fail with an honest party naming it
  (``mpc-rr attack cheat --protocol secagg``); it still learns nothing beyond
  sums over at least a committee-signed survivor set.  What it can still do
  (stop the run, drop parties within ``max_dropout``, hand out a wrong total
  that the receipts make attributable after the fact) is listed in
  docs/secure_aggregation.md.  Share payloads are encrypted and authenticated
  end-to-end (AES-256-GCM under X25519-derived keys bound to run id and both
  ids), so routing gives it nothing.
* Up to ``t - 1`` **colluding parties** among any party's neighbours (plus the
  aggregator) learn nothing about that party's input beyond the sum: they hold
  fewer than ``t`` shares of its seeds.  Honest parties reveal, for each
  neighbour, a share of ``b`` *or* of ``s_sk``, never both.
* **Dropouts**: any party may vanish at any step (key advertisement, share
  distribution, masked input, unmasking); a revealer of the draw that vanishes
  between its commitment and its reveal restarts the run without it
  (:class:`~mpc_rr.secure_sum.secagg._messages.SecAggRestart`: skipping its reveal would let the aggregator choose among
  seeds, a fresh draw does not).  The run is exact over the inputs of
  the parties that sent a masked input, as long as the cumulative number of
  dropouts is at most ``floor(max_dropout * n)`` and every party whose seed
  must be reconstructed keeps ``t`` live neighbours.  Beyond either bound the
  aggregator stops with :class:`~mpc_rr.core.ProtocolAbort` (naming the
  parties concerned) and tells the survivors (:class:`SecAggAbort`) -- it
  never returns a wrong sum.  With a sparse graph the second condition holds
  with the probability computed by :func:`default_threshold` (``failure``),
  for dropouts that are independent of the graph; with a complete graph
  (``degree >= n - 1``) the default threshold makes it deterministic.
* A party that sends a malformed message (wrong length, dtype, shape, value
  outside the modulus or field, wrong recipients) or two different messages
  for one step is reported (``PeerError`` naming it) and excluded as a
  dropout if the step is still open; an identical duplicate is reported and
  ignored.  The aggregator keeps serving the others.
* A party whose **shares do not rebuild** the seed or key it committed to is
  excluded by a retry: first with every party and verifiable shares
  (:class:`~mpc_rr.secure_sum.secagg._messages.CommittedShares`: each share committed to and signed by its dealer),
  then without the parties those prove cheated (at most ``MAX_RETRIES`` retries;
  docs/secure_aggregation.md argues the cost and why no honest party is excluded).

Modules: messages (:mod:`~mpc_rr.secure_sum.secagg._messages`), public
parameters and graph (:mod:`~mpc_rr.secure_sum.secagg._params`, the one
:func:`secagg_public`), the data party (:mod:`~mpc_rr.secure_sum.secagg._client`)
and the aggregator (:mod:`~mpc_rr.secure_sum.secagg._server`, whose state is one
:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`); their
transition tables, right under each State enum, are the state diagrams of the
steps above.

Modulus: sums are computed mod ``R`` (default the smallest power of two above
``n * max_value``: 2^15 for Adult's 0/1 cells), and masked vectors travel in the
smallest unsigned dtype holding ``R - 1`` (uint16 for Adult).

Reference: K. Bonawitz et al., "Practical Secure Aggregation for
Privacy-Preserving Machine Learning", CCS 2017; J. H. Bell et al., "Secure
Single-Server Aggregation with (Poly)Logarithmic Overhead", CCS 2020.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "DEFAULT_MAX_CORRUPT",
    "DEFAULT_MAX_DROPOUT",
    "SECAGG_MESSAGES",
    "SPEC",
    "AdvertiseKeys",
    "Aggregate",
    "ConsistencySig",
    "DrawCommitted",
    "DrawReveal",
    "EncryptedShares",
    "ForwardedShares",
    "MaskedInput",
    "NeighborKeys",
    "SecAggAbort",
    "SecAggClient",
    "SecAggConfig",
    "SecAggOptions",
    "SecAggProtocol",
    "SecAggPublic",
    "SecAggServer",
    "ShareComplaint",
    "ShareProofs",
    "SignedShares",
    "SurvivorSet",
    "UnmaskRequest",
    "UnmaskShares",
    "secagg_public",
    "secagg_roles",
]

_HOME = {
    "SecAggClient": "mpc_rr.secure_sum.secagg._client",
    "SignedShares": "mpc_rr.secure_sum.secagg._ledger",
    "AdvertiseKeys": "mpc_rr.secure_sum.secagg._messages",
    "Aggregate": "mpc_rr.secure_sum.secagg._messages",
    "ConsistencySig": "mpc_rr.secure_sum.secagg._messages",
    "DrawCommitted": "mpc_rr.secure_sum.secagg._messages",
    "DrawReveal": "mpc_rr.secure_sum.secagg._messages",
    "EncryptedShares": "mpc_rr.secure_sum.secagg._messages",
    "ForwardedShares": "mpc_rr.secure_sum.secagg._messages",
    "MaskedInput": "mpc_rr.secure_sum.secagg._messages",
    "NeighborKeys": "mpc_rr.secure_sum.secagg._messages",
    "SECAGG_MESSAGES": "mpc_rr.secure_sum.secagg._messages",
    "SecAggAbort": "mpc_rr.secure_sum.secagg._messages",
    "ShareComplaint": "mpc_rr.secure_sum.secagg._messages",
    "ShareProofs": "mpc_rr.secure_sum.secagg._messages",
    "SurvivorSet": "mpc_rr.secure_sum.secagg._messages",
    "UnmaskRequest": "mpc_rr.secure_sum.secagg._messages",
    "UnmaskShares": "mpc_rr.secure_sum.secagg._messages",
    "DEFAULT_MAX_CORRUPT": "mpc_rr.secure_sum.secagg._params",
    "DEFAULT_MAX_DROPOUT": "mpc_rr.secure_sum.secagg._params",
    "SecAggConfig": "mpc_rr.secure_sum.secagg._params",
    "SecAggPublic": "mpc_rr.secure_sum.secagg._params",
    "secagg_public": "mpc_rr.secure_sum.secagg._params",
    "secagg_roles": "mpc_rr.secure_sum.secagg._roles",
    "SecAggServer": "mpc_rr.secure_sum.secagg._server",
    "SPEC": "mpc_rr.secure_sum.secagg._spec",
    "SecAggOptions": "mpc_rr.secure_sum.secagg._spec",
    "SecAggProtocol": "mpc_rr.secure_sum.secagg._spec",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.secagg._client import (
        SecAggClient,
    )
    from mpc_rr.secure_sum.secagg._ledger import (
        SignedShares,
    )
    from mpc_rr.secure_sum.secagg._messages import (
        SECAGG_MESSAGES,
        AdvertiseKeys,
        Aggregate,
        ConsistencySig,
        DrawCommitted,
        DrawReveal,
        EncryptedShares,
        ForwardedShares,
        MaskedInput,
        NeighborKeys,
        SecAggAbort,
        ShareComplaint,
        ShareProofs,
        SurvivorSet,
        UnmaskRequest,
        UnmaskShares,
    )
    from mpc_rr.secure_sum.secagg._params import (
        DEFAULT_MAX_CORRUPT,
        DEFAULT_MAX_DROPOUT,
        SecAggConfig,
        SecAggPublic,
        secagg_public,
    )
    from mpc_rr.secure_sum.secagg._roles import (
        secagg_roles,
    )
    from mpc_rr.secure_sum.secagg._server import (
        SecAggServer,
    )
    from mpc_rr.secure_sum.secagg._spec import (
        SPEC,
        SecAggOptions,
        SecAggProtocol,
    )
