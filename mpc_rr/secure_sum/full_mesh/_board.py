"""The bulletin board (party 0) of the full mesh's board publication (Sec. 4.2, step 3 via a relay).

The board is the run's relay and a protocol role with a signing key, so it is
*accountable*: it checks on ingress every signature on what it relays (each
key, each party's signature on the tree hash of its shares, each publication), refuses a bad
one naming its sender and tells every party (:class:`MeshAbort`), and sends
every checked publication along with its total.  A bad signature that reaches
a party through the board therefore names the board alone.
"""

from __future__ import annotations

import enum
from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import COORDINATOR, AllIn, PeerError, Role, Send, Transition, WireArray, table
from mpc_rr.core._roles import NOBODY, broadcast, each
from mpc_rr.secure_sum._common import SumResult, read_residues
from mpc_rr.secure_sum._entropy import smallest_uint
from mpc_rr.secure_sum._identity import Roster, default_identity, merkle_paths, share_items
from mpc_rr.secure_sum.full_mesh._messages import (
    KEY_LEN,
    MESH_MESSAGES,
    PROTOCOL,
    TAG_LEN,
    MeshAbort,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshShare,
    MeshTotal,
    checked_modulus,
    frame_digest,
)

__all__ = ["BoardState", "BulletinBoard"]


class BoardState(enum.Enum):
    KEYS = "collecting public keys"
    COLLECTING = "key list sent, collecting publications"
    DONE = "done"
    ABORTED = "aborted"


# The board relays everything: it collects every party's public key and, when all are in,
# sends everyone the list (step 1); it holds each party's encrypted shares until all n - 1
# are in, checks the sender's signature on their tree hash and passes each on to its receiver
# with its audit path (step 2; it reads no share); then it
# collects the publications r_j and, when all are in, publishes their sum mod m with them.
# No deadline entry: a silent party makes it abort (patience), naming the party and telling
# everyone; so does a message whose signature fails.
BOARD_TABLE = table({
    (BoardState.KEYS, MeshKey): Transition("_on_key", BoardState.KEYS),
    (BoardState.KEYS, AllIn): Transition("_send_keys", BoardState.COLLECTING),
    (BoardState.COLLECTING, MeshKey): Transition("_on_key", BoardState.COLLECTING),  # duplicates
    (BoardState.COLLECTING, MeshShare): Transition("_on_share", BoardState.COLLECTING),
    (BoardState.COLLECTING, MeshPublish): Transition("_on_publish", BoardState.COLLECTING),
    (BoardState.COLLECTING, AllIn): Transition("_publish_total", BoardState.DONE),
    **each((BoardState.KEYS, BoardState.COLLECTING), MeshAbort, "_on_complaint"),
})


class BulletinBoard(Role):
    """Party 0 in ``"board"`` publication mode.

    Collects every party's public key and sends the list to everyone (step 1),
    relays each checked share (encrypted end to end: it reads none), then
    collects the ``r_j`` and publishes their sum mod m (module docstring).
    """

    TRANSITIONS = BOARD_TABLE
    message_types = MESH_MESSAGES

    def __init__(
        self, n: int, cells: int, *, modulus: int | None = None, run: str = "", roster: Roster | None = None
    ) -> None:
        super().__init__(COORDINATOR, BoardState.KEYS)
        self._roster = roster
        self.n = int(n)
        self.cells = int(cells)
        self.modulus = checked_modulus(self.n, modulus)
        self.dtype = smallest_uint(self.modulus)
        self.run = run
        self._keys = np.zeros((self.n, KEY_LEN), np.uint8)
        self._sigs: list[bytes] = [b""] * self.n
        self._no_key_yet = set(range(1, self.n + 1))
        self._got: dict[int, np.ndarray] = {}
        self._missing = set(range(1, self.n + 1))
        self._acc = np.zeros(self.cells, np.uint64)
        self._pub_sigs: list[bytes] = [b""] * self.n
        self.share_len = self.cells * self.dtype.itemsize + TAG_LEN
        self._relayed: dict[tuple[int, int], bytes] = {}  # (sender, receiver) -> digest of the share
        self._held: dict[int, dict[int, MeshShare]] = {}  # sender -> its shares in so far, by receiver
        self._shares_left = dict.fromkeys(range(1, self.n + 1), self.n - 1)  # sender -> shares to come
        self._sharing = set(range(1, self.n + 1))  # senders with shares to come

    @property
    def roster(self) -> Roster:
        """The roster the board checks keys against (given, else the default identity's)."""
        if self._roster is None:
            self._roster = default_identity(COORDINATOR, self.n).roster
        return self._roster

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        """Whether ``pk`` carries ``owner``'s signature for this run (overridden by broken variants)."""
        return self.roster.verify_signed(PROTOCOL, self.run, "keys", owner, signature, pk)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.state is BoardState.KEYS:
            return self._no_key_yet
        # while shares are missing, their senders (a receiver cannot publish before it has them all)
        return self._sharing or self._missing

    def on_timeout(self) -> list[Send]:
        """The core's patience, then every party is told whom the board names."""
        sends = super().on_timeout()
        return sends + self._announce() if self.error is not None else sends

    def _announce(self) -> list[Send]:
        err = self.error
        assert err is not None
        notice = MeshAbort(reason=str(err)[:500], culprits=list(err.culprits), run=self.run, step=4)
        return broadcast(range(1, self.n + 1), notice)

    def _refuse(self, src: int, what: str) -> list[Send]:
        """Abort naming ``src`` for ``what`` and tell every party (not raised: the notice must go)."""
        self.abort(f"{self.name}: {what} from party {src}", [src])
        return self._announce()

    def _on_complaint(self, src: int, msg: MeshAbort) -> list[Send]:
        """Party ``src`` stopped, naming ``msg.culprits`` (with evidence it holds: e.g. a share
        its sender signed that does not open): the run cannot finish, so the board stops it for
        everyone, naming nobody itself (it cannot check the claim: ``{src, c}`` suspects)."""
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: abort notice from non-party {src}", src)
        named = [c for c in msg.culprits if 0 < c <= self.n and c != src]
        self.abort(f"{self.name}: party {src} stopped the run: {msg.reason[:400]}", [], [(src, c) for c in named])
        return self._announce()

    def _on_key(self, src: int, msg: MeshKey) -> list[Send]:
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: public key from non-party {src}", src)
        if len(msg.pk) != KEY_LEN:
            return self._refuse(src, f"a malformed public key ({len(msg.pk)} bytes)")
        if src not in self._no_key_yet:
            if self._keys[src - 1].tobytes() == msg.pk:
                raise PeerError(f"{self.name}: duplicate public key from party {src} ignored", src)
            return self._refuse(src, "two different public keys")
        if not self._genuine(src, msg.pk, msg.signature):
            return self._refuse(src, "a public key without its signature for this run")
        self._keys[src - 1] = np.frombuffer(msg.pk, np.uint8)
        self._sigs[src - 1] = msg.signature
        self._no_key_yet.discard(src)
        return []

    def _send_keys(self) -> list[Send]:
        out = MeshKeys(pks=WireArray.from_numpy(self._keys), run=self.run, step=1, signatures=list(self._sigs))
        return broadcast(range(1, self.n + 1), out)

    def _batch_signed(self, sender: int, root: bytes, signature: bytes) -> bool:
        """Whether ``sender`` signed this tree hash of its shares for this run (round ``shares``)."""
        return self.roster.verify_signed(PROTOCOL, self.run, "shares", sender, signature, root)

    def _on_share(self, src: int, msg: MeshShare) -> list[Send]:
        """Hold a share from ``src`` to ``msg.peer``; once all ``n - 1`` are in, check its signature
        on their tree hash and pass each on with its audit path (:meth:`_release`)."""
        dst = msg.peer
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: share from non-party {src}", src)
        if not 1 <= dst <= self.n or dst == src:
            return self._refuse(src, f"a share for party {dst}")
        if len(msg.ciphertext) != self.share_len:
            return self._refuse(src, f"a malformed share ({len(msg.ciphertext)} bytes, expected {self.share_len})")
        digest = frame_digest(msg.ciphertext + msg.signature)
        seen = self._relayed.get((src, dst))
        if seen is not None:
            if seen == digest:
                raise PeerError(f"{self.name}: duplicate share from party {src} to {dst} ignored", src)
            return self._refuse(src, f"two different shares to party {dst}")
        self._relayed[(src, dst)] = digest
        self._held.setdefault(src, {})[dst] = msg
        self._shares_left[src] -= 1
        if self._shares_left[src]:
            return []
        self._sharing.discard(src)
        return self._release(src)

    def _release(self, src: int) -> list[Send]:
        """All of ``src``'s shares are in: one signature on their tree hash, or refuse naming it."""
        held = self._held.pop(src)
        to = sorted(held)
        signature = held[to[0]].signature
        if any(held[j].signature != signature for j in to):
            return self._refuse(src, "shares under different signatures")
        cts = np.frombuffer(b"".join(held[j].ciphertext for j in to), np.uint8).reshape(len(to), -1)
        root, paths = merkle_paths(share_items(np.asarray(to), cts))
        if not self._batch_signed(src, root, signature):
            return self._refuse(src, "shares without its signature on their tree hash for this run")
        return [Send(j, MeshShare(ciphertext=held[j].ciphertext, run=self.run, step=2, signature=signature,
                                  path=b"".join(path), peer=src)) for j, path in zip(to, paths, strict=True)]  # fmt: skip

    def _on_publish(self, src: int, msg: MeshPublish) -> list[Send]:
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: publication from non-party {src}", src)
        try:
            arr = read_residues(msg.value, self.modulus, self.cells, src, "publication")
        except PeerError:
            return self._refuse(src, "a malformed publication")
        if src in self._got:
            if np.array_equal(self._got[src], arr):
                raise PeerError(f"{self.name}: duplicate publication from party {src} ignored", src)
            return self._refuse(src, "two different publications")
        if not self.roster.verify_signed(PROTOCOL, self.run, "publish", src, msg.signature,
                                         arr.astype(self.dtype.newbyteorder("<")).tobytes()):  # fmt: skip
            return self._refuse(src, "a publication without its signature for this run")
        self._got[src] = arr
        self._pub_sigs[src - 1] = msg.signature
        self._missing.discard(src)
        self._acc += arr
        return []

    def _publish_total(self) -> list[Send]:
        total = self._acc % np.uint64(self.modulus)
        ids = tuple(range(1, self.n + 1))
        self.finish(SumResult(total.astype(np.int64), ids, self.n, self.modulus))
        rows = np.stack([self._got[j] for j in range(1, self.n + 1)]).astype(self.dtype)
        out = MeshTotal(total=WireArray.from_numpy(total.astype(self.dtype)), run=self.run, step=4,
                        values=WireArray.from_numpy(rows), signatures=list(self._pub_sigs))  # fmt: skip
        return broadcast(range(1, self.n + 1), out)
