"""The data party's checks of what the aggregator relays (Bonawitz et al. 2017, the
active-adversary protocol): one method each, so the adversary module's broken variants
(:mod:`mpc_rr.adversary.active`) switch exactly one off.

A mixin of :class:`~mpc_rr.secure_sum.secagg.SecAggClient`; each method returns a verdict and
leaves what to do about it (leave, accuse) to the client's steps.
"""

from __future__ import annotations

import functools

import numpy as np

from mpc_rr.core import COORDINATOR
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._identity import Roster, signed_payload
from mpc_rr.secure_sum._public_randomness import commitment
from mpc_rr.secure_sum.secagg._messages import (
    COMMITMENT_LEN,
    IDS,
    PROTOCOL,
    SHARE_ROW,
    Aggregate,
    UnmaskRequest,
    read_bitmap,
    share_digest,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["ClientChecks"]


@functools.lru_cache(maxsize=64)
def _first_unsigned(
    roster: Roster, run: str, survivors: bytes, signers: tuple[int, ...], signatures: tuple[bytes, ...]
) -> int | None:
    """The first signer whose signature is not on ``survivors`` (None: all are).

    Memoized on the whole request: every party of a simulation is sent the same
    signatures, and checking them is a pure function of the bytes.
    """
    for v, sig in zip(signers, signatures, strict=True):
        if not roster.verify_signed(PROTOCOL, run, "consistency", v, sig, survivors):
            return v
    return None


class ClientChecks:
    """The checks (module docstring).  Needs the client's ``party_id``, ``cfg``, ``run``,
    ``roster`` and, once it signed the survivor set, ``_survivors``."""

    party_id: int
    cfg: SecAggConfig
    run: str
    committee: np.ndarray
    graph: Graph
    accused: list[int]
    _survivors: bytes

    @property
    def roster(self) -> Roster:
        raise NotImplementedError

    @property
    def on_committee(self) -> bool:
        """Whether this party signs the survivor set (the committee drawn for the run,
        :meth:`SecAggConfig.committee_for`)."""
        return bool(self.committee[self.party_id])

    def _signed(self, round_: str, sender: int, *parts: bytes) -> bytes:
        return signed_payload(PROTOCOL, self.run, round_, sender, *parts)

    def _forged_key(
        self, ids: list[int], c_pks: np.ndarray, s_pks: np.ndarray, commits: np.ndarray,
        draw_commits: np.ndarray, signatures: list[bytes],
    ) -> int | None:  # fmt: skip
        """The first neighbour whose keys do not carry its signature for this run, or None."""
        rows = np.concatenate([c_pks, s_pks, commits, draw_commits], axis=1).tobytes()
        widths = (32, 32, 32, 32)
        bad = self.roster.first_unsigned_row(PROTOCOL, self.run, "keys", ids, signatures, rows, widths)
        return None if bad is None else ids[bad]

    def _unproven_reveal(self, ids: list[int], reveals: bytes, keys: bytes, signatures: list[bytes]) -> int | None:
        """The first revealer whose reveal does not open the draw commitment it signed with its
        keys (``keys``: 96 bytes each, ``c_pk || s_pk || b_commit``), or None."""
        if len(keys) != 96 * len(ids) or len(signatures) != len(ids) or len(reveals) != 32 * len(ids):
            return ids[0] if ids else None
        rows = b"".join(
            keys[96 * i : 96 * i + 96] + commitment(PROTOCOL, self._draw_label, v, reveals[32 * i : 32 * i + 32])
            for i, v in enumerate(ids)
        )
        bad = self.roster.first_unsigned_row(PROTOCOL, self.run, "keys", ids, signatures, rows, (32, 32, 32, 32))
        return None if bad is None else ids[bad]

    @property
    def _draw_label(self) -> str:
        """The run label inside a draw commitment (binds it to the run)."""
        return self.run

    def _draw_unsigned(self, ids: list[int], digest: bytes, signatures: list[bytes]) -> int | None:
        """The first neighbour that did not sign the draw's digest ``digest`` I was shown (None:
        all did): a relay that showed it another commitment set equivocated."""
        rows = digest * len(ids)
        bad = self.roster.first_unsigned_row(PROTOCOL, self.run, "draw", ids, signatures, rows, (len(digest),))
        return None if bad is None else ids[bad]

    def _share_signed(
        self, sender: int, ct: np.ndarray, batch: bytes, signature: bytes, commit: np.ndarray | None = None
    ) -> bool:
        """Whether ``sender`` signed this ciphertext to me (and, with verifiable shares, these
        commitments ``commit``): my row of a batch it signed."""
        width = SHARE_ROW + (0 if commit is None else COMMITMENT_LEN)
        if len(batch) % width or len(batch) > width * self.cfg.degree:
            return False
        rows = np.frombuffer(batch, np.uint8).reshape(-1, width)
        mine = np.flatnonzero(rows[:, :4].copy().view(IDS).ravel() == self.party_id)
        want = ct.tobytes() + (b"" if commit is None else commit.tobytes())
        if mine.size != 1 or rows[mine[0], 4:].tobytes() != want:
            return False
        return self.roster.verify(sender, signature, self._signed("shares", sender, share_digest(batch)))

    def _inconsistent(self, msg: UnmaskRequest, members: np.ndarray) -> str:
        """Why the committee's signatures on the survivor set of ``msg`` (``members``) do
        not make a quorum, or it is not the set I signed ('' when they do and it is)."""
        n = self.cfg.n
        if self.on_committee and msg.survivors != self._survivors:
            return "the survivor set differs from the one I signed (equivocation)"
        signers = read_bitmap(msg.signers, n)
        if signers is None:
            return "the signer set is not a bitmap over the parties"
        if (signers & ~members).any():
            return "signers outside the survivor set"
        if (signers & ~self.committee).any():
            return "signers outside the consistency committee"
        ids = np.flatnonzero(signers).tolist()
        if len(ids) < self.cfg.quorum:
            return f"only {len(ids)} parties signed the survivor set, a quorum is {self.cfg.quorum}"
        if len(msg.signatures) != len(ids):
            return f"{len(msg.signatures)} signatures for {len(ids)} signers"
        bad = _first_unsigned(self.roster, self.run, msg.survivors, tuple(ids), tuple(msg.signatures))
        if bad is not None:
            return f"party {bad}'s signature is not on the survivor set I was shown (equivocation)"
        return ""

    def _survivors_suspect(self, members: np.ndarray, holders: np.ndarray) -> str:
        """Why the survivor set ``members`` cannot be the run's ('' when it can): fewer than
        ``n - max_dropped`` parties, or a graph neighbour in it that never shared with me
        (``holders``: who did; or one I accused) -- a party that ran under another draw.
        Together they stop a relay that splits the parties into groups shown different
        draws: each group would need almost every party in its set."""
        if (size := int(members.sum())) < (least := self.cfg.n - self.cfg.max_dropped):
            return f"a survivor set of {size} parties, fewer than n - max_dropped = {least}"
        nb = self.graph.of(self.party_id)
        listed = nb[members[nb]]
        strange = listed[~np.isin(listed, holders) & ~np.isin(listed, self.accused)]
        if strange.size:
            return f"neighbours {strange.tolist()} in the survivor set never shared with me (equivocation)"
        return ""

    def _too_few_shares(self, m: int) -> bool:
        return m < self.cfg.threshold

    def _receipt_ok(self, msg: Aggregate) -> bool:
        payload = self._signed("aggregate", COORDINATOR, msg.total.data, str(msg.n_included).encode())
        return self.roster.verify(COORDINATOR, msg.signature, payload)
