"""The aggregator of SecAgg+ (the package docstring, :mod:`mpc_rr.secure_sum.secagg`, has the protocol).

Everything the aggregator records of a run lives in one
:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`, created with the role; the
checks and the unmasking are pure functions over it (:mod:`._judge`,
:mod:`._unmasking`, :func:`._draw.server_draw`) and the messages it forwards are
built by :mod:`._routing`.  The role's methods are the steps of the table below: each
handler validates, updates the ledger and returns what to send.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    table,
)
from mpc_rr.core._roles import NOBODY, each
from mpc_rr.secure_sum._common import SumResult, read_residues
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._identity import Identity, default_identity, signed_payload
from mpc_rr.secure_sum._public_randomness import DRAW_BYTES, commitment, commitments_digest
from mpc_rr.secure_sum.secagg import _judge, _retry, _unmasking
from mpc_rr.secure_sum.secagg._draw import server_draw
from mpc_rr.secure_sum.secagg._ledger import ServerLedger, SignedShares, Unmask
from mpc_rr.secure_sum.secagg._messages import (
    CIPHERTEXT_LEN,
    COMMITMENT_LEN,
    MAX_RETRIES,
    PROTOCOL,
    SECAGG_MESSAGES,
    AdvertiseKeys,
    Aggregate,
    CommittedShares,
    ConsistencySig,
    DrawCommitted,
    DrawReveal,
    EncryptedShares,
    MaskedInput,
    SecAggAbort,
    ShareComplaint,
    SurvivorSet,
    UnmaskRequest,
    UnmaskShares,
    bitmap,
    read_ids,
    retry_label,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig, drawn_graph
from mpc_rr.secure_sum.secagg._routing import forwarded_shares, neighbor_keys
from mpc_rr.secure_sum.secagg._unmasking import Abort, Retry, ids_text

__all__ = ["SecAggServer", "ServerState"]

P = TypeVar("P")


class ServerState(enum.Enum):
    KEYS = "collecting public keys"
    DRAW = "collecting the draw's reveals"
    SHARES = "collecting encrypted shares"
    MASKED = "collecting masked inputs"
    CONSISTENCY = "collecting the committee's signatures on the survivor set"
    UNMASK = "collecting unmask shares"
    DONE = "done"
    ABORTED = "aborted"


# The aggregator routes every message; it closes each step at "all in" or at its deadline: the
# silent are dropouts (so is a party left with fewer than t live neighbours); beyond the
# dropout bound it aborts, telling the survivors why (SecAggAbort).  Late messages: counted.
#   KEYS    AdvertiseKeys -> DrawCommitted: the digest of the draw commitments, to each live party
#   DRAW    DrawReveal -> NeighborKeys: every reveal (the seed: graph and committee), and to each
#           live party its live neighbours' keys; a missing or wrong reveal aborts, naming the party
#   SHARES  EncryptedShares -> ForwardedShares: the shares regrouped by recipient
#   MASKED  ShareComplaint -> ShareProofs: the senders' signatures and signed batches asked for;
#           MaskedInput (and complaints, judged) -> SurvivorSet: U3 to every committee member in it
#   CONSISTENCY  ConsistencySig (the committee's) -> UnmaskRequest: U3 and a committee quorum's
#           signatures on it, to every survivor (a committee member that did not sign: dropped)
#   UNMASK  UnmaskShares -> Aggregate: the seeds rebuilt, the masks removed -- the result
# A retry (SecAggRestart, at most MAX_RETRIES; _restart) re-enters KEYS as the next attempt:
#   after DRAW, without the revealers whose reveal is missing; after UNMASK, when shares do
#   not rebuild what their dealers committed to -- the first time with everyone and verifiable
#   shares (CommittedShares, CommittedForwardedShares), then without the parties those prove
#   cheated (_unmasking.identify).  No table edge leads back to KEYS: _fire moves there.
SECAGG_SERVER_TABLE = table({
    (ServerState.KEYS, AdvertiseKeys): Transition("_on_keys", ServerState.KEYS),
    (ServerState.KEYS, AllIn): Transition("_close_keys", ServerState.DRAW),
    (ServerState.KEYS, Deadline): Transition("_close_keys", ServerState.DRAW),
    (ServerState.DRAW, DrawReveal): Transition("_on_reveal", ServerState.DRAW),
    (ServerState.DRAW, AllIn): Transition("_close_draw", ServerState.SHARES),
    (ServerState.DRAW, Deadline): Transition("_close_draw", ServerState.SHARES),
    (ServerState.SHARES, EncryptedShares): Transition("_on_shares", ServerState.SHARES),
    (ServerState.SHARES, CommittedShares): Transition("_on_shares", ServerState.SHARES),
    (ServerState.SHARES, AllIn): Transition("_close_shares", ServerState.MASKED),
    (ServerState.SHARES, Deadline): Transition("_close_shares", ServerState.MASKED),
    (ServerState.MASKED, MaskedInput): Transition("_on_masked", ServerState.MASKED),
    (ServerState.MASKED, ShareComplaint): Transition("_on_complaint", ServerState.MASKED),
    (ServerState.MASKED, AllIn): Transition("_close_masked", ServerState.CONSISTENCY),
    (ServerState.MASKED, Deadline): Transition("_close_masked", ServerState.CONSISTENCY),
    (ServerState.CONSISTENCY, ConsistencySig): Transition("_on_consistency", ServerState.CONSISTENCY),
    (ServerState.CONSISTENCY, AllIn): Transition("_close_consistency", ServerState.UNMASK),
    (ServerState.CONSISTENCY, Deadline): Transition("_close_consistency", ServerState.UNMASK),
    (ServerState.UNMASK, UnmaskShares): Transition("_on_unmask", ServerState.UNMASK),
    (ServerState.UNMASK, AllIn): Transition("_close_unmask", ServerState.DONE),
    (ServerState.UNMASK, Deadline): Transition("_close_unmask", ServerState.DONE),
    **each((ServerState.DRAW, ServerState.SHARES, ServerState.MASKED, ServerState.CONSISTENCY,
            ServerState.UNMASK), AdvertiseKeys, "_late"),
    **each((ServerState.SHARES, ServerState.MASKED, ServerState.CONSISTENCY, ServerState.UNMASK),
           DrawReveal, "_late"),
    **each((ServerState.MASKED, ServerState.CONSISTENCY, ServerState.UNMASK), EncryptedShares, "_late"),
    **each((ServerState.MASKED, ServerState.CONSISTENCY, ServerState.UNMASK), CommittedShares, "_late"),
    **each((ServerState.CONSISTENCY, ServerState.UNMASK), MaskedInput, "_late"),
    **each((ServerState.CONSISTENCY, ServerState.UNMASK), ShareComplaint, "_late"),
    **each((ServerState.UNMASK,), ConsistencySig, "_late"),
})


class SecAggServer(Role):
    """The aggregator (party 0): routes messages, tracks dropouts, unmasks the sum.

    ``result`` is a :class:`SumResult` whose ``included`` lists the parties whose
    inputs are in the total; ``dropped`` maps each dropped party to the step at
    which it dropped; ``culprits`` lists parties excluded for misbehaving;
    ``late`` counts messages that arrived after their step closed; ``attempt``
    the retries it began (at most ``max_retries``; 0 for clients that do not know
    :class:`SecAggRestart`) and ``retries`` why.  Its whole
    state is ``ledger`` (:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`).
    """

    TRANSITIONS = SECAGG_SERVER_TABLE
    message_types = SECAGG_MESSAGES

    def __init__(
        self, config: SecAggConfig, graph: Graph | None, *, identity: Identity | None = None,
        max_retries: int = MAX_RETRIES,
    ) -> None:  # fmt: skip
        super().__init__(COORDINATOR, ServerState.KEYS)
        if not 0 <= max_retries <= MAX_RETRIES:
            raise UsageError(f"max_retries must be in 0..{MAX_RETRIES}, got {max_retries}")
        if graph is not None and (graph.n != config.n or graph.degree != config.degree):
            raise UsageError("graph does not match config (n or degree differ)")
        self.cfg = config
        self.run = config.run
        self.pinned_graph = graph  # None: drawn from the joint seed (SecAggClient's graph)
        self._identity = identity
        self.ledger = ServerLedger.for_run(config.n, config.cells)
        self.base_run = config.run  # the label of attempt 0 (a retry's is retry_label of it)
        self.attempt = 0  # retries so far; from 1 on, shares are verifiable
        self.max_retries = max_retries  # 0: abort where a retry would begin (clients without retries)
        self._restarted = False  # set by _restart for _fire: the next state is KEYS
        self.retries: list[str] = []  # why each retry began (SecAggRestart's reason)

    # -- read-only views of the ledger ------------------------------------------------------
    @property
    def alive(self) -> np.ndarray:
        """Live parties (bool, n+1)."""
        return self.ledger.alive

    @property
    def dropped(self) -> dict[int, str]:
        """Dropped party -> the step at which it dropped."""
        return self.ledger.dropped

    @property
    def culprits(self) -> list[int]:
        """Parties excluded for misbehaving."""
        return self.ledger.culprits

    @property
    def late(self) -> int:
        """Messages that arrived after their step closed."""
        return self.ledger.late

    @property
    def seed(self) -> bytes | None:
        """The run's joint seed (None before the draw)."""
        return self.ledger.seed

    @property
    def graph(self) -> Graph:
        """The run's neighbour graph (drawn with the seed)."""
        return self.ledger.drawn_graph()

    @property
    def committee(self) -> np.ndarray:
        """The consistency committee (bool, n+1; all False before the draw)."""
        return self.ledger.committee

    @property
    def identity(self) -> Identity:
        """Its signing identity (resolved when first used: a deployment installs it late)."""
        if self._identity is None:
            self._identity = default_identity(COORDINATOR, self.cfg.n)
        return self._identity

    def start(self) -> list[Send]:
        return []

    def _signed(self, round_: str, sender: int, *parts: bytes) -> bytes:
        """The bytes ``sender`` signs in ``round_`` of this run."""
        return signed_payload(PROTOCOL, self.run, round_, sender, *parts)

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self.ledger.expect

    # -- bookkeeping ---------------------------------------------------------------------
    def _drop(self, u: int, why: str) -> None:
        led = self.ledger
        led.expect.discard(u)
        if led.alive[u]:
            led.alive[u] = False
            led.dropped[u] = why

    def _exclude(self, u: int) -> None:
        self.ledger.culprits.append(u)
        self._drop(u, f"excluded at {self.state.name}")

    def _drop_silent(self) -> None:
        for u in sorted(self.ledger.expect):
            self._drop(u, self.state.name)

    def _bound(self) -> None:
        dropped = self.cfg.n - int(self.ledger.alive.sum())
        if dropped > self.cfg.max_dropped:
            ids = sorted(self.ledger.dropped)
            raise Abort(
                f"{self.name}: {dropped} of {self.cfg.n} parties dropped out by step "
                f"{self.state.name} ({ids_text(ids)}); max_dropout={self.cfg.max_dropout:g} "
                f"allows {self.cfg.max_dropped}",
                ids,
            )

    def _prune(self, why: str) -> None:
        """Drop, to a fixed point, live parties with fewer than t live neighbours."""
        neighbors, alive = self.graph.neighbors, self.ledger.alive
        while True:
            weak = alive & (alive[neighbors].sum(axis=1) < self.cfg.threshold)
            if not weak.any():
                return
            for u in np.flatnonzero(weak).tolist():
                self._drop(u, why)

    def _collect(
        self,
        src: int,
        store: dict[int, P],
        read: Callable[[], P],
        same: Callable[[P, P], bool],
        what: str,
    ) -> list[Send]:
        """Validate and store one step message; misbehaviour excludes ``src`` as a dropout."""
        if not 1 <= src <= self.cfg.n:
            raise PeerError(f"{self.name}: {what} from party {src}, not a data party", src)
        if not self.ledger.alive[src]:
            self.ledger.late += 1
            return []
        try:
            payload = read()
        except PeerError as exc:
            store.pop(src, None)
            self._exclude(src)
            raise PeerError(f"{exc}; party {src} excluded as a dropout", src) from None
        if src in store:
            if same(store[src], payload):
                raise PeerError(f"{self.name}: duplicate {what} from party {src} ignored", src)
            del store[src]
            self._exclude(src)  # the step then closes at its deadline or when all are in
            raise PeerError(f"{self.name}: party {src} sent two different {what}s; excluded", src)
        store[src] = payload
        self.ledger.expect.discard(src)
        return []

    def _late(self, src: int, msg: Message) -> list[Send]:
        self.ledger.late += 1
        return []

    # -- step 0: keys -----------------------------------------------------------------------
    def _on_keys(self, src: int, msg: AdvertiseKeys) -> list[Send]:
        def read() -> AdvertiseKeys:
            for name in ("c_pk", "s_pk", "b_commit", "draw_commit"):
                if len(getattr(msg, name)) != 32:
                    raise PeerError(f"{self.name}: {name} from party {src} is not 32 bytes", src)
            self._check_keys(src, msg)
            return msg

        return self._collect(src, self.ledger.keys, read, lambda a, b: a == b, "AdvertiseKeys")

    def _check_keys(self, src: int, msg: AdvertiseKeys) -> None:
        # else verified by a co-worker of the aggregator (SecAggPrecheck, for attempt 0's label)
        if not self.prechecked or self.attempt:
            _judge.check_keys(self.identity.roster, self.run, self.name, src, msg)

    def _close_keys(self) -> list[Send]:
        self._drop_silent()
        led = self.ledger
        got = [(u, msg) for u, msg in led.keys.items() if led.alive[u]]
        if got:  # every field was checked to be 32 bytes on receipt
            ids = [u for u, _ in got]
            tables = ((led.c_pk, "c_pk"), (led.s_pk, "s_pk"), (led.commit, "b_commit"),
                      (led.draw_commit, "draw_commit"))  # fmt: skip
            for rows, field in tables:
                raw = b"".join([getattr(msg, field) for _, msg in got])
                rows[ids] = np.frombuffer(raw, np.uint8).reshape(len(ids), 32)
            for u, msg in got:
                led.key_sigs[u] = msg.signature
        led.keys = {}
        return self._guarded(self._commit_draw)

    # -- the draw (:mod:`._draw`) --------------------------------------------------------------
    def draw(self, seed: bytes) -> tuple[Graph, np.ndarray]:
        """The graph and the committee of the run whose joint seed is ``seed`` (a pinned
        graph: it and the label's committee)."""
        if self.pinned_graph is not None:
            return self.pinned_graph, self.cfg.committee_for(None)
        return drawn_graph(self.cfg, seed), self.cfg.committee_for(seed)

    def _commit_draw(self) -> list[Send]:
        """Fix the contributors (every party whose keys arrived) and send the digest ``D``."""
        self._bound()
        led = self.ledger
        led.contributors = led.alive.copy()
        ids = np.flatnonzero(led.contributors)
        led.digest = commitments_digest(PROTOCOL, self.run, led.contributors, led.draw_commit[ids].tobytes())
        msg = DrawCommitted(run=self.run, step=0, digest=led.digest)
        return [Send(int(u), msg) for u in ids.tolist()]

    def _on_reveal(self, src: int, msg: DrawReveal) -> list[Send]:
        def read() -> DrawReveal:
            if not self.ledger.contributors[src]:
                raise PeerError(f"{self.name}: party {src} revealed a draw it did not commit to", src)
            if len(msg.reveal) != DRAW_BYTES or not self._draw_opens(src, msg.reveal):
                raise PeerError(f"{self.name}: the reveal of party {src} does not open its commitment", src)
            self._check_draw(src, msg, self.ledger.digest)
            return msg

        return self._collect(src, self.ledger.draw_reveals, read, lambda a, b: a == b, "DrawReveal")

    def _draw_opens(self, src: int, reveal: bytes) -> bool:
        return bool(commitment(PROTOCOL, self.run, src, reveal) == self.ledger.draw_commit[src].tobytes())

    def _check_draw(self, src: int, msg: DrawReveal, digest: bytes) -> None:
        _judge.check_draw(self.identity.roster, self.run, self.name, src, msg, digest)

    def _close_draw(self) -> list[Send]:
        """Every revealer revealed: the seed.  Else abort, naming who did not
        (:func:`._draw.server_draw` says why)."""
        self._drop_silent()
        return self._guarded(self._send_neighbor_keys)

    def _send_neighbor_keys(self) -> list[Send]:
        led = self.ledger
        seed, drawn = server_draw(led, self.cfg, self.name)
        led.seed = seed
        led.graph, led.committee = self.draw(seed)
        led.draw_reveals = {}
        self._bound()
        self._prune("pruned: too few live neighbours after key advertisement")
        self._bound()
        return neighbor_keys(led, self.run, drawn)

    # -- step 1: shares -------------------------------------------------------------------
    def _on_shares(self, src: int, msg: EncryptedShares) -> list[Send]:
        def read() -> SignedShares:
            want = self.ledger.sent_ids.get(src)
            if want is None:
                raise PeerError(f"{self.name}: party {src} was not sent neighbour keys", src)
            rec = read_ids(msg.recipients, src, "recipients", at_most=want.size)
            if not np.array_equal(rec, want):
                raise PeerError(f"{self.name}: party {src} addressed shares to the wrong parties", src)
            cts: np.ndarray = msg.ciphertexts.to_numpy(
                dtype=np.uint8, shape=(rec.size, CIPHERTEXT_LEN), sender=src
            )
            if isinstance(msg, CommittedShares) != bool(self.attempt):
                raise PeerError(f"{self.name}: party {src} sent commitments in a first attempt or none in a retry", src)
            if not isinstance(msg, CommittedShares):
                return self._check_shares(src, rec, cts, msg.signature)
            commits = msg.commitments.to_numpy(dtype=np.uint8, shape=(rec.size, COMMITMENT_LEN), sender=src)
            return self._check_shares(src, rec, cts, msg.signature, commits)

        return self._collect(src, self.ledger.cts, read, SignedShares.same, "EncryptedShares")

    def _check_shares(
        self, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes, commitments: np.ndarray | None = None
    ) -> SignedShares:
        if self.prechecked and commitments is None:  # verified by a co-worker (SecAggPrecheck)
            return SignedShares(recipients, cts, signature)
        roster = self.identity.roster
        return _judge.check_shares(roster, self.run, self.name, src, recipients, cts, signature, commitments)

    def _close_shares(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._forward_shares)

    def _forward_shares(self) -> list[Send]:
        self._bound()
        self._prune("pruned: too few live neighbours after share distribution")
        self._bound()
        led = self.ledger
        led.shares, led.cts = led.cts, {}  # kept after forwarding: complaints are judged on them
        out = forwarded_shares(led, self.run)
        led.sharers = led.alive.copy()  # U2: parties whose seeds are shared
        return out

    # -- step 2: masked inputs and complaints ---------------------------------------------------
    def _on_masked(self, src: int, msg: MaskedInput) -> list[Send]:
        led = self.ledger

        def read() -> np.ndarray:
            return read_residues(msg.y, self.cfg.modulus, self.cfg.cells, src, "masked input")

        out = self._collect(src, led.y, read, np.array_equal, "MaskedInput")
        if msg.accused is not None and src in led.y:
            ms = led.mask_sets.get(src, np.zeros(0, np.int64))
            try:
                guilty = self._judge(src, msg, set(ms.tolist()))
                accused = read_ids(msg.accused, src, "accused", at_most=ms.size)
            except PeerError:
                guilty, accused = [src], np.zeros(0, np.int64)
            led.mask_sets[src] = ms[~np.isin(ms, accused)]  # it did not mask with them
            led.accusations.update((src, int(v)) for v in accused.tolist())
            for v in guilty:
                led.y.pop(v, None)
                if led.alive[v]:
                    self._exclude(v)
            if guilty:
                raise PeerError(
                    f"{self.name}: party {src}'s complaint convicts party {guilty} "
                    f"({'a lying complaint' if guilty == [src] else 'signed shares that do not open'})",
                    guilty[0],
                )
        return out

    def _judge(self, src: int, msg: MaskedInput, forwarded: AbstractSet[int]) -> list[int]:
        """The parties ``src``'s complaint convicts (:func:`._judge.judge_complaint`)."""
        return _judge.judge_complaint(self.ledger, self.run, src, msg, forwarded)

    def _on_complaint(self, src: int, msg: ShareComplaint) -> list[Send]:
        """A party whose forwarded shares did not open asks for their senders' proofs (once)."""
        led = self.ledger
        if not 1 <= src <= self.cfg.n or not led.alive[src]:
            led.late += 1
            return []
        ms = led.mask_sets.get(src, np.zeros(0, np.int64))
        try:
            senders = read_ids(msg.senders, src, "complaint", at_most=ms.size)
            if src in led.complained or src in led.y:
                raise PeerError(f"{self.name}: party {src} complained twice or after its masked input", src)
            if not senders.size or np.any(np.diff(senders) <= 0) or not np.isin(senders, ms).all():
                raise PeerError(f"{self.name}: party {src} complained about shares it was not sent", src)
        except PeerError as exc:
            self._exclude(src)
            raise PeerError(f"{exc}; party {src} excluded as a dropout", src) from None
        led.complained.add(src)
        return [Send(src, _judge.share_proofs(led, self.run, senders.tolist()))]

    def _close_masked(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._request_unmask, among=self.ledger.committee)  # only the committee signs

    def _request_unmask(self) -> list[Send]:
        self._bound()
        cfg, led = self.cfg, self.ledger
        led.inputs = led.alive.copy()  # U3
        acc = np.zeros(cfg.cells, np.uint64)
        for u, y in led.y.items():
            if led.inputs[u]:
                acc += y
        led.y = {}
        led.y_sum = acc % np.uint64(cfg.modulus)
        # every party whose seed must be rebuilt needs t share holders among U3 (a holder of
        # u's shares is a survivor that masked with u)
        holders = led.holders_in(led.inputs)
        need = led.inputs | (led.sharers & ~led.inputs & (holders > 0))
        short = np.flatnonzero(need & (holders < cfg.threshold))
        if short.size:
            raise Abort(
                f"{self.name}: parties {ids_text(short.tolist())} keep fewer than "
                f"t={cfg.threshold} live share holders; their masks cannot be removed",
                sorted(set(led.culprits) | {u for u in led.dropped if u not in led.culprits}),
            )
        return self._survivor_set(led.inputs)

    # -- step 3: consistency (Bonawitz et al. 2017, Round 3) --------------------------------
    def _survivor_set(self, members: np.ndarray) -> list[Send]:
        led = self.ledger
        led.survivors = bitmap(members)
        led.consistency = {}
        msg = SurvivorSet(run=self.run, step=3, survivors=led.survivors)
        return [Send(int(v), msg) for v in np.flatnonzero(members & led.committee)]

    def _on_consistency(self, src: int, msg: ConsistencySig) -> list[Send]:
        led = self.ledger

        def read() -> bytes:
            if not led.inputs[src]:
                raise PeerError(f"{self.name}: party {src} is not in the survivor set", src)
            if not led.committee[src]:
                raise PeerError(f"{self.name}: party {src} signed the survivor set unasked (not on the committee)", src)
            return self._check_consistency(src, msg)

        return self._collect(src, led.consistency, read, lambda a, b: a == b, "ConsistencySig")

    def _check_consistency(self, src: int, msg: ConsistencySig) -> bytes:
        return _judge.check_consistency(self.identity.roster, self.run, self.name, src, msg, self.ledger.survivors)

    def _close_consistency(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._request_unmask_shares)

    def _request_unmask_shares(self) -> list[Send]:
        self._bound()
        led = self.ledger
        signers = sorted(v for v in led.consistency if led.alive[v])  # all on the committee
        if len(signers) < self.cfg.quorum:
            raise Abort(
                f"{self.name}: only {len(signers)} committee members signed the survivor set, a "
                f"quorum is {self.cfg.quorum}",
                sorted(led.dropped),
            )
        # a quorum's signatures are what a party checks: send those, not all (bytes: q x 64);
        # the survivors outside the committee learn the set here, the silent members dropped
        msg = self._unmask_request(signers[: self.cfg.quorum])  # one message for every survivor
        return [Send(v, msg) for v in np.flatnonzero(led.alive).tolist()]

    def _unmask_request(self, signers: list[int], survivors: bytes | None = None) -> UnmaskRequest:
        return _judge.unmask_request(self.ledger, self.run, signers, survivors)

    # -- step 4: unmasking ----------------------------------------------------------------
    def _on_unmask(self, src: int, msg: UnmaskShares) -> list[Send]:
        led = self.ledger

        def read() -> Unmask:
            return _unmasking.read_unmask(led, self.name, src, msg)

        return self._collect(src, led.unmask, read, Unmask.same, "UnmaskShares")

    def _close_unmask(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._unmask_sum)

    def _reconstruct(self, which: str, need: np.ndarray) -> np.ndarray:
        """The secrets of parties ``need`` (:func:`._unmasking.reconstruct`)."""
        return _unmasking.reconstruct(self.ledger, self.cfg, self.name, which, need)

    def _unmask_sum(self) -> list[Send]:
        self._bound()
        cfg, led = self.cfg, self.ledger
        alive_b = np.flatnonzero(led.inputs)
        try:
            b = self._reconstruct("b", alive_b)
            total = _unmasking.remove_self_masks(led, cfg, self.name, alive_b, b)
            dropped = np.flatnonzero(led.sharers & ~led.inputs)
            dropped = dropped[led.holders_in(led.inputs)[dropped] > 0]
            if dropped.size:
                sks = self._reconstruct("s", dropped)
                total = _unmasking.remove_pair_masks(led, cfg, self.name, dropped, sks, total)
        except Abort as exc:
            raise _retry.after_unmasking(exc, self.attempt, led, cfg, self.name) from None
        included = tuple(int(u) for u in alive_b)
        self.finish(SumResult(total.astype(np.int64), included, len(included), cfg.modulus))
        msg = self._receipt(total, len(included))
        return [Send(int(v), msg) for v in np.flatnonzero(led.alive)]

    def _receipt(self, total: np.ndarray, n_included: int) -> Aggregate:
        return _judge.receipt(self.identity, self.cfg, total, n_included)

    # -- aborting -------------------------------------------------------------------------
    def _guarded(self, step: Callable[[], list[Send]], among: np.ndarray | None = None) -> list[Send]:
        """Run a step closure; an Abort stops the run and tells the survivors why.  The next
        step waits for every live party (``among``: the live ones in that bool mask)."""
        alive = self.ledger.alive
        try:
            out = step()
        except Retry as exc:
            gone = np.flatnonzero(alive).size - len(set(exc.excluded) & set(np.flatnonzero(alive).tolist()))
            if self.attempt < self.max_retries and self.cfg.n - gone <= self.cfg.max_dropped:
                return self._restart(exc)
            self.abort(str(exc), exc.culprits)
            msg = SecAggAbort(run=self.run, step=9, reason=str(exc))
            return [Send(int(u), msg) for u in np.flatnonzero(alive)]
        except Abort as exc:
            self.abort(str(exc), exc.culprits)
            msg = SecAggAbort(run=self.run, step=9, reason=str(exc))
            return [Send(int(u), msg) for u in np.flatnonzero(alive)]
        waiting = alive if among is None else alive & among
        self.ledger.expect = set(np.flatnonzero(waiting).tolist())
        return out

    # -- retrying ---------------------------------------------------------------------------
    def _restart(self, exc: Retry) -> list[Send]:
        """Begin the next attempt without ``exc.excluded``: a fresh ledger (the dropped and the
        culprits carried over), a run label bound to the attempt; every live party is told
        (:class:`SecAggRestart`, under the label it knows), the excluded told to stop."""
        old_run, step = self.run, self.state.name
        self.retries.append(str(exc))
        self.attempt += 1
        self.cfg = dataclasses.replace(self.cfg, run=retry_label(self.base_run, self.attempt))
        self.run = self.cfg.run
        self.ledger, sends = _retry.next_attempt(self.ledger, exc, old_run, self.attempt, step)
        self._restarted = True
        return sends

    def _fire(self, t: Transition, *args: Any) -> list[Send]:
        """The table's step, then KEYS if it began a retry (each step's close leads to its
        successor in the table; a retry is the one edge back)."""
        sends = super()._fire(t, *args)
        if self._restarted:
            self._restarted = False
            self.state = ServerState.KEYS
        return sends
