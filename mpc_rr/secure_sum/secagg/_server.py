"""The aggregator of SecAgg+ (the package docstring, :mod:`mpc_rr.secure_sum.secagg`, has the protocol)."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TypeVar

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
    WireArray,
    table,
)
from mpc_rr.core._roles import NOBODY, each
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._common import SumResult, read_residues
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._identity import Identity, default_identity
from mpc_rr.secure_sum.secagg._draw import ServerDraw
from mpc_rr.secure_sum.secagg._judge import Judge, SignedShares
from mpc_rr.secure_sum.secagg._messages import (
    CIPHERTEXT_LEN,
    IDS,
    SECAGG_MESSAGES,
    SHARE,
    AdvertiseKeys,
    ConsistencySig,
    DrawReveal,
    EncryptedShares,
    ForwardedShares,
    MaskedInput,
    NeighborKeys,
    SecAggAbort,
    ShareComplaint,
    UnmaskShares,
    read_ids,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig
from mpc_rr.secure_sum.secagg._unmasking import Abort, Unmask, Unmasker, ids_text

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
SECAGG_SERVER_TABLE = table({
    (ServerState.KEYS, AdvertiseKeys): Transition("_on_keys", ServerState.KEYS),
    (ServerState.KEYS, AllIn): Transition("_close_keys", ServerState.DRAW),
    (ServerState.KEYS, Deadline): Transition("_close_keys", ServerState.DRAW),
    (ServerState.DRAW, DrawReveal): Transition("_on_reveal", ServerState.DRAW),
    (ServerState.DRAW, AllIn): Transition("_close_draw", ServerState.SHARES),
    (ServerState.DRAW, Deadline): Transition("_close_draw", ServerState.SHARES),
    (ServerState.SHARES, EncryptedShares): Transition("_on_shares", ServerState.SHARES),
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
    **each((ServerState.CONSISTENCY, ServerState.UNMASK), MaskedInput, "_late"),
    **each((ServerState.CONSISTENCY, ServerState.UNMASK), ShareComplaint, "_late"),
    **each((ServerState.UNMASK,), ConsistencySig, "_late"),
})


class SecAggServer(ServerDraw, Judge, Unmasker, Role):
    """The aggregator (party 0): routes messages, tracks dropouts, unmasks the sum.

    ``result`` is a :class:`SumResult` whose ``included`` lists the parties whose
    inputs are in the total; ``dropped`` maps each dropped party to the step at
    which it dropped; ``culprits`` lists parties excluded for misbehaving;
    ``late`` counts messages that arrived after their step closed.
    """

    TRANSITIONS = SECAGG_SERVER_TABLE
    message_types = SECAGG_MESSAGES

    def __init__(self, config: SecAggConfig, graph: Graph | None, *, identity: Identity | None = None) -> None:
        super().__init__(COORDINATOR, ServerState.KEYS)
        self._identity = identity
        if graph is not None and (graph.n != config.n or graph.degree != config.degree):
            raise UsageError("graph does not match config (n or degree differ)")
        self.cfg = config
        self.run = config.run
        self.pinned_graph = graph  # None: drawn from the joint seed (SecAggClient's graph)
        self.seed: bytes | None = None
        self.graph: Graph
        self.committee: np.ndarray
        n = config.n
        self.alive = np.zeros(n + 1, bool)
        self.alive[1:] = True
        self.dropped: dict[int, str] = {}
        self.culprits: list[int] = []
        self.late = 0
        self._expect: set[int] = set(range(1, n + 1))  # live parties still silent this step
        self._keys: dict[int, AdvertiseKeys] = {}
        self._cts: dict[int, SignedShares] = {}
        self._shares: dict[int, SignedShares] = {}  # kept after forwarding: complaints are judged on them
        self._accusations: set[tuple[int, int]] = set()  # (accuser, accused): no mask between them
        self._y: dict[int, np.ndarray] = {}
        self._unmask: dict[int, Unmask] = {}
        self._c_pk = np.zeros((n + 1, 32), np.uint8)
        self._s_pk = np.zeros((n + 1, 32), np.uint8)
        self._commit = np.zeros((n + 1, 32), np.uint8)
        self._draw_commit = np.zeros((n + 1, 32), np.uint8)
        self._draw_reveals: dict[int, DrawReveal] = {}
        self._sent_ids: dict[int, np.ndarray] = {}
        self._key_sigs: list[bytes] = [b""] * (n + 1)
        self._mask_sets: dict[int, np.ndarray] = {}
        self._complained: set[int] = set()  # parties that asked for share proofs (once each)

    @property
    def identity(self) -> Identity:
        """Its signing identity (resolved when first used: a deployment installs it late)."""
        if self._identity is None:
            self._identity = default_identity(COORDINATOR, self.cfg.n)
        return self._identity

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self._expect

    # -- bookkeeping ---------------------------------------------------------------------
    def _drop(self, u: int, why: str) -> None:
        self._expect.discard(u)
        if self.alive[u]:
            self.alive[u] = False
            self.dropped[u] = why

    def _exclude(self, u: int) -> None:
        self.culprits.append(u)
        self._drop(u, f"excluded at {self.state.name}")

    def _drop_silent(self) -> None:
        for u in sorted(self._expect):
            self._drop(u, self.state.name)

    def _bound(self) -> None:
        dropped = self.cfg.n - int(self.alive.sum())
        if dropped > self.cfg.max_dropped:
            ids = sorted(self.dropped)
            raise Abort(
                f"{self.name}: {dropped} of {self.cfg.n} parties dropped out by step "
                f"{self.state.name} ({ids_text(ids)}); max_dropout={self.cfg.max_dropout:g} "
                f"allows {self.cfg.max_dropped}",
                ids,
            )

    def _live_degree(self, members: np.ndarray) -> np.ndarray:
        """Number of neighbours in ``members`` (bool, n+1) for every party."""
        counts: np.ndarray = members[self.graph.neighbors].sum(axis=1)
        return counts

    def _prune(self, why: str) -> None:
        """Drop, to a fixed point, live parties with fewer than t live neighbours."""
        while True:
            weak = self.alive & (self._live_degree(self.alive) < self.cfg.threshold)
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
        if not self.alive[src]:
            self.late += 1
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
        self._expect.discard(src)
        return []

    def _late(self, src: int, msg: Message) -> list[Send]:
        self.late += 1
        return []

    # -- step 0: keys (and the draw: ServerDraw) -------------------------------------------
    def _send_neighbor_keys(self) -> list[Send]:
        contributors, reveals, rev_keys, rev_sigs, draw_sigs = self._seed_draw()
        self._bound()
        self._prune("pruned: too few live neighbours after key advertisement")
        self._bound()
        out: list[Send] = []
        live = np.flatnonzero(self.alive)
        rows = self.graph.neighbors[live]  # (L, k): every live party's graph neighbours
        ok = self.alive[rows]
        full = ok.all(axis=1).tolist()
        ids32 = rows.astype(IDS)
        c_pks, s_pks, commits = self._c_pk[rows], self._s_pk[rows], self._commit[rows]  # (L, k, 32)
        run, key_sigs = self.run, self._key_sigs
        for i, u in enumerate(live.tolist()):
            if full[i]:  # the common case: no neighbour dropped, send the rows as they are
                ids, i32, c, s, b = rows[i], ids32[i], c_pks[i], s_pks[i], commits[i]
            else:
                keep = ok[i]
                ids, i32 = rows[i][keep], ids32[i][keep]
                c, s, b = c_pks[i][keep], s_pks[i][keep], commits[i][keep]
            self._sent_ids[u] = ids
            m = ids.size
            msg = NeighborKeys(
                run=run,
                step=0,
                ids=WireArray(dtype=IDS.str, shape=(m,), data=i32.tobytes()),
                c_pks=WireArray(dtype="|u1", shape=(m, 32), data=c.tobytes()),
                s_pks=WireArray(dtype="|u1", shape=(m, 32), data=s.tobytes()),
                commits=WireArray(dtype="|u1", shape=(m, 32), data=b.tobytes()),
                signatures=[key_sigs[v] for v in ids.tolist()],
                draw_commits=WireArray(dtype="|u1", shape=(m, 32), data=self._draw_commit[ids].tobytes()),
                contributors=contributors,
                reveals=reveals,
                revealer_keys=rev_keys,
                revealer_signatures=rev_sigs,
                draw_signatures=[draw_sigs[v] for v in ids.tolist()],
            )
            out.append(Send(u, msg))
        return out

    # -- step 1: shares -------------------------------------------------------------------
    def _on_shares(self, src: int, msg: EncryptedShares) -> list[Send]:
        def read() -> SignedShares:
            want = self._sent_ids.get(src)
            if want is None:
                raise PeerError(f"{self.name}: party {src} was not sent neighbour keys", src)
            rec = read_ids(msg.recipients, src, "recipients", at_most=want.size)
            if not np.array_equal(rec, want):
                raise PeerError(f"{self.name}: party {src} addressed shares to the wrong parties", src)
            cts: np.ndarray = msg.ciphertexts.to_numpy(
                dtype=np.uint8, shape=(rec.size, CIPHERTEXT_LEN), sender=src
            )
            return self._check_shares(src, rec, cts, msg.signature)

        return self._collect(src, self._cts, read, SignedShares.same, "EncryptedShares")

    def _close_shares(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._forward_shares)

    def _forward_shares(self) -> list[Send]:
        self._bound()
        self._prune("pruned: too few live neighbours after share distribution")
        self._bound()
        alive = self.alive
        senders = sorted(u for u in self._cts if alive[u])  # ascending: see the sort below
        cts_of, self._cts = self._cts, {}
        self._shares = cts_of
        sent = self._sent_ids
        empty = np.zeros(0, np.int64)
        sizes = np.asarray([sent[u].size for u in senders], np.int64)
        snd = np.repeat(np.asarray(senders, np.int64), sizes)
        rcv = np.concatenate([sent[u] for u in senders] or [empty])
        cts = np.concatenate(
            [cts_of[u].cts for u in senders] or [np.zeros((0, CIPHERTEXT_LEN), np.uint8)]
        )
        keep = alive[rcv]
        if not keep.all():
            snd, rcv, cts = snd[keep], rcv[keep], cts[keep]
        # by receiver, then sender: the senders come in ascending order and each sends one
        # share per receiver, so a stable sort by receiver alone is the lexicographic order
        order = np.argsort(rcv, kind="stable")
        snd, rcv = snd[order], rcv[order]
        bounds = np.searchsorted(rcv, np.arange(self.cfg.n + 2)).tolist()
        snd_b = snd.astype(IDS).tobytes()
        cts_b = cts[order].data.cast("B")  # sliced into each message's bytes: one copy
        out: list[Send] = []
        run, width, ids_str, w4 = self.run, CIPHERTEXT_LEN, IDS.str, IDS.itemsize
        mask_sets = self._mask_sets
        for v in np.flatnonzero(alive).tolist():
            lo, hi = bounds[v], bounds[v + 1]
            mask_sets[v] = snd[lo:hi]
            msg = ForwardedShares(
                run=run,
                step=1,
                senders=WireArray(dtype=ids_str, shape=(hi - lo,), data=snd_b[w4 * lo : w4 * hi]),
                ciphertexts=WireArray(
                    dtype="|u1", shape=(hi - lo, width), data=bytes(cts_b[width * lo : width * hi])
                ),
            )
            out.append(Send(v, msg))
        self._sharers = self.alive.copy()  # U2: parties whose seeds are shared
        return out

    # -- step 2: masked inputs ------------------------------------------------------------
    def _on_masked(self, src: int, msg: MaskedInput) -> list[Send]:
        def read() -> np.ndarray:
            return read_residues(msg.y, self.cfg.modulus, self.cfg.cells, src, "masked input")

        out = self._collect(src, self._y, read, np.array_equal, "MaskedInput")
        if msg.accused is not None and src in self._y:
            ms = self._mask_sets.get(src, np.zeros(0, np.int64))
            try:
                guilty = self._judge(src, msg, set(ms.tolist()), self._c_pk, self._shares)
                accused = read_ids(msg.accused, src, "accused", at_most=ms.size)
            except PeerError:
                guilty, accused = [src], np.zeros(0, np.int64)
            self._mask_sets[src] = ms[~np.isin(ms, accused)]  # it did not mask with them
            self._accusations.update((src, int(v)) for v in accused.tolist())
            for v in guilty:
                self._y.pop(v, None)
                if self.alive[v]:
                    self._exclude(v)
            if guilty:
                raise PeerError(
                    f"{self.name}: party {src}'s complaint convicts party {guilty} "
                    f"({'a lying complaint' if guilty == [src] else 'signed shares that do not open'})",
                    guilty[0],
                )
        return out

    def _close_masked(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._request_unmask, among=self.committee)  # only the committee signs

    def _request_unmask(self) -> list[Send]:
        self._bound()
        cfg = self.cfg
        self._inputs = self.alive.copy()  # U3
        acc = np.zeros(cfg.cells, np.uint64)
        for u, y in self._y.items():
            if self._inputs[u]:
                acc += y
        self._y = {}
        self._y_sum = acc % np.uint64(cfg.modulus)
        # every party whose seed must be rebuilt needs t share holders among U3 (a holder of
        # u's shares is a survivor that masked with u)
        holders = self._holders_in(self._inputs)
        need = self._inputs | (self._sharers & ~self._inputs & (holders > 0))
        short = np.flatnonzero(need & (holders < cfg.threshold))
        if short.size:
            raise Abort(
                f"{self.name}: parties {ids_text(short.tolist())} keep fewer than "
                f"t={cfg.threshold} live share holders; their masks cannot be removed",
                sorted(set(self.culprits) | {u for u in self.dropped if u not in self.culprits}),
            )
        return self._survivor_set(self._inputs)

    def _holders_in(self, members: np.ndarray) -> np.ndarray:
        """For every party, how many parties in ``members`` masked with it (hold its shares)."""
        sets = [self._mask_sets[v] for v in np.flatnonzero(members).tolist() if v in self._mask_sets]
        flat = np.concatenate(sets) if sets else np.zeros(0, np.int64)
        counts: np.ndarray = np.bincount(flat, minlength=self.cfg.n + 1)
        return counts

    # -- step 3: consistency (Bonawitz et al. 2017, Round 3) --------------------------------
    def _on_consistency(self, src: int, msg: ConsistencySig) -> list[Send]:
        def read() -> bytes:
            if not self._inputs[src]:
                raise PeerError(f"{self.name}: party {src} is not in the survivor set", src)
            if not self.committee[src]:
                raise PeerError(f"{self.name}: party {src} signed the survivor set unasked (not on the committee)", src)
            return self._check_consistency(src, msg)

        return self._collect(src, self._consistency, read, lambda a, b: a == b, "ConsistencySig")

    def _close_consistency(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._request_unmask_shares)

    def _request_unmask_shares(self) -> list[Send]:
        self._bound()
        signers = sorted(v for v in self._consistency if self.alive[v])  # all on the committee
        if len(signers) < self.cfg.quorum:
            raise Abort(
                f"{self.name}: only {len(signers)} committee members signed the survivor set, a "
                f"quorum is {self.cfg.quorum}",
                sorted(self.dropped),
            )
        # a quorum's signatures are what a party checks: send those, not all (bytes: q x 64);
        # the survivors outside the committee learn the set here, the silent members dropped
        msg = self._unmask_request(signers[: self.cfg.quorum])  # one message for every survivor
        return [Send(v, msg) for v in np.flatnonzero(self.alive).tolist()]

    # -- step 3: unmasking ----------------------------------------------------------------
    def _on_unmask(self, src: int, msg: UnmaskShares) -> list[Send]:
        def read() -> Unmask:
            holders = self._mask_sets.get(src)
            if holders is None or not self._inputs[src]:
                raise PeerError(f"{self.name}: party {src} was not asked to unmask", src)
            is_dropped = ~self._inputs[holders]  # status frozen when the unmask step opened
            parts = []
            for owners_w, shares_w, want in (
                (msg.b_owners, msg.b_shares, holders[~is_dropped]),
                (msg.s_owners, msg.s_shares, holders[is_dropped]),
            ):
                owners = read_ids(owners_w, src, "share owners", at_most=want.size)
                if not np.array_equal(owners, want):
                    raise PeerError(f"{self.name}: party {src} revealed shares of the wrong parties", src)
                sh = shares_w.to_numpy(dtype=SHARE, shape=(want.size, shamir.CHUNKS), sender=src)
                if sh.size and int(sh.max()) >= shamir.PRIME:
                    raise PeerError(f"{self.name}: share from party {src} is not a field element", src)
                parts += [want, sh]
            return Unmask(*parts)

        return self._collect(src, self._unmask, read, Unmask.same, "UnmaskShares")

    def _close_unmask(self) -> list[Send]:
        self._drop_silent()
        return self._guarded(self._unmask_sum)

    def _unmask_sum(self) -> list[Send]:
        self._bound()
        cfg = self.cfg
        run, R = self.run, cfg.modulus
        alive_b = np.flatnonzero(self._inputs)
        b = self._reconstruct("b", alive_b)
        seeds = b.tobytes()
        sha = hashlib.sha256
        digests = b"".join([sha(seeds[i : i + 32]).digest() for i in range(0, len(seeds), 32)])
        wrong = np.frombuffer(digests, np.uint8).reshape(-1, 32) != self._commit[alive_b]
        bad = alive_b[wrong.any(axis=1)].tolist()
        if bad:
            raise Abort(
                f"{self.name}: reconstructed self-mask seeds of {ids_text(bad)} fail their "
                f"commitment",
                bad,
            )
        total = self._y_sum.astype(np.int64)
        ids = alive_b.tolist()
        for lo in range(0, len(ids), 4096):
            chunk = ids[lo : lo + 4096]
            keys = crypto.self_keys(seeds[32 * lo : 32 * (lo + len(chunk))], run, chunk)
            total -= crypto.signed_mask_sum(keys, [], cfg.cells, R).astype(np.int64)
            total %= R
        dropped = np.flatnonzero(self._sharers & ~self._inputs)
        dropped = dropped[self._holders_in(self._inputs)[dropped] > 0]
        if dropped.size:
            total = self._remove_pair_masks(dropped, total)
        included = tuple(int(u) for u in alive_b)
        self.finish(SumResult(total.astype(np.int64), included, len(included), R))
        msg = self._receipt(total, len(included))
        return [Send(int(v), msg) for v in np.flatnonzero(self.alive)]

    # -- aborting -------------------------------------------------------------------------
    def _guarded(self, step: Callable[[], list[Send]], among: np.ndarray | None = None) -> list[Send]:
        """Run a step closure; an Abort stops the run and tells the survivors why.  The next
        step waits for every live party (``among``: the live ones in that bool mask)."""
        try:
            out = step()
        except Abort as exc:
            self.abort(str(exc), exc.culprits)
            msg = SecAggAbort(run=self.run, step=9, reason=str(exc))
            return [Send(int(u), msg) for u in np.flatnonzero(self.alive)]
        waiting = self.alive if among is None else self.alive & among
        self._expect = set(np.flatnonzero(waiting).tolist())
        return out
