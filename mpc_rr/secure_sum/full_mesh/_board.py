"""The bulletin board (party 0) of the full mesh's board publication (Sec. 4.2, step 3 via a relay)."""

from __future__ import annotations

import enum
from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    NOBODY,
    AllIn,
    PeerError,
    Role,
    Send,
    Transition,
    WireArray,
    broadcast,
    table,
)
from mpc_rr.secure_sum._common import SumResult, read_residues
from mpc_rr.secure_sum._entropy import smallest_uint
from mpc_rr.secure_sum._identity import Roster, default_identity
from mpc_rr.secure_sum.full_mesh._messages import (
    KEY_LEN,
    MESH_MESSAGES,
    PROTOCOL,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshTotal,
    checked_modulus,
)

__all__ = ["BoardState", "BulletinBoard"]


class BoardState(enum.Enum):
    KEYS = "collecting public keys"
    COLLECTING = "key list sent, collecting publications"
    DONE = "done"
    ABORTED = "aborted"


# The board relays what needs no secret: it collects every party's public key and, when all
# are in, sends everyone the list (step 1); then it collects the publications r_j and, when
# all are in, publishes their sum mod m.  It never sees a share.  No deadline entry: a silent
# party makes it abort (patience), naming the party.
BOARD_TABLE = table({
    (BoardState.KEYS, MeshKey): Transition("_on_key", BoardState.KEYS),
    (BoardState.KEYS, AllIn): Transition("_send_keys", BoardState.COLLECTING),
    (BoardState.COLLECTING, MeshKey): Transition("_on_key", BoardState.COLLECTING),  # duplicates
    (BoardState.COLLECTING, MeshPublish): Transition("_on_publish", BoardState.COLLECTING),
    (BoardState.COLLECTING, AllIn): Transition("_publish_total", BoardState.DONE),
})


class BulletinBoard(Role):
    """Party 0 in ``"board"`` publication mode.

    Collects every party's public key and sends the list to everyone (step 1),
    then collects the ``r_j`` and publishes their sum mod m.  It never sees a
    share (they go from party to party, encrypted).
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
        return self._no_key_yet if self.state is BoardState.KEYS else self._missing

    def _on_key(self, src: int, msg: MeshKey) -> list[Send]:
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: public key from non-party {src}", src)
        if len(msg.pk) != KEY_LEN:
            self.abort(f"{self.name}: malformed public key from party {src}", [src])
            raise PeerError(f"{self.name}: public key of {len(msg.pk)} bytes from party {src}", src)
        if src not in self._no_key_yet:
            if self._keys[src - 1].tobytes() == msg.pk:
                raise PeerError(f"{self.name}: duplicate public key from party {src} ignored", src)
            self.abort(f"{self.name}: party {src} sent two different public keys", [src])
            raise PeerError(f"{self.name}: conflicting public key from party {src}", src)
        if not self._genuine(src, msg.pk, msg.signature):
            self.abort(f"{self.name}: the public key of party {src} does not carry its signature", [src])
            raise PeerError(f"{self.name}: unsigned public key from party {src}", src)
        self._keys[src - 1] = np.frombuffer(msg.pk, np.uint8)
        self._sigs[src - 1] = msg.signature
        self._no_key_yet.discard(src)
        return []

    def _send_keys(self) -> list[Send]:
        out = MeshKeys(pks=WireArray.from_numpy(self._keys), run=self.run, step=1, signatures=list(self._sigs))
        return broadcast(range(1, self.n + 1), out)

    def _on_publish(self, src: int, msg: MeshPublish) -> list[Send]:
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: publication from non-party {src}", src)
        try:
            arr = read_residues(msg.value, self.modulus, self.cells, src, "publication")
        except PeerError:
            self.abort(f"{self.name}: malformed publication from party {src}", [src])
            raise
        if src in self._got:
            if np.array_equal(self._got[src], arr):
                raise PeerError(f"{self.name}: duplicate publication from party {src} ignored", src)
            self.abort(f"{self.name}: party {src} published two different values", [src])
            raise PeerError(f"{self.name}: conflicting publication from party {src}", src)
        if not self.roster.verify_signed(PROTOCOL, self.run, "publish", src, msg.signature,
                                         arr.astype(self.dtype.newbyteorder("<")).tobytes()):  # fmt: skip
            self.abort(f"{self.name}: the publication of party {src} does not carry its signature", [src])
            raise PeerError(f"{self.name}: unsigned publication from party {src}", src)
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
