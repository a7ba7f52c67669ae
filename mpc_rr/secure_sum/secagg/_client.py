"""The data party of SecAgg+ (the package docstring, :mod:`mpc_rr.secure_sum.secagg`, has the protocol)."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    DecodeError,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    table,
)
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR, each
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._common import SumResult, check_inputs, read_residues
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._identity import (
    Identity,
    Roster,
    default_identity,
)
from mpc_rr.secure_sum._public_randomness import (
    DRAW_BYTES,
    commitment,
)
from mpc_rr.secure_sum.secagg._client_checks import ClientChecks
from mpc_rr.secure_sum.secagg._draw import ClientDraw
from mpc_rr.secure_sum.secagg._messages import (
    CIPHERTEXT_LEN,
    COMMITMENT_LEN,
    IDS,
    MAX_RETRIES,
    PROTOCOL,
    SECAGG_MESSAGES,
    SHARE,
    AdvertiseKeys,
    Aggregate,
    CommittedForwardedShares,
    CommittedShares,
    ConsistencySig,
    DrawCommitted,
    EncryptedShares,
    ForwardedShares,
    MaskedInput,
    NeighborKeys,
    SecAggAbort,
    SecAggRestart,
    ShareComplaint,
    ShareProofs,
    SurvivorSet,
    UnmaskRequest,
    UnmaskShares,
    read_bitmap,
    read_ids,
    retry_label,
    share_batch,
    share_commitments,
    share_digest,
    wire,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["ClientState", "SecAggClient", "mask_sum"]

def mask_sum(
    self_key: bytes | None, pair_keys: list[bytes], signs: np.ndarray, cells: int, modulus: int
) -> np.ndarray:
    """``PRG(self) + sum_i signs[i] * PRG(pair_keys[i])`` mod R, vectorized over cells."""
    plus = [self_key] if self_key is not None else []
    minus: list[bytes] = []
    for key, sign in zip(pair_keys, np.asarray(signs).tolist(), strict=True):
        (plus if sign > 0 else minus).append(key)
    result: np.ndarray = crypto.signed_mask_sum(plus, minus, cells, modulus).astype(np.uint64)
    return result


class ClientState(enum.Enum):
    KEYS = "keys and draw commitment advertised, waiting for the commitment set"
    DRAW = "draw revealed, waiting for every reveal and my neighbour keys"
    SHARES = "shares sent, waiting for the shares addressed to me"
    MASKED = "masked input (or a share complaint) sent, waiting for the survivor set (or the proofs)"
    CONSISTENCY = "survivor set signed (a committee member), waiting for the committee's signatures"
    UNMASK = "unmask shares sent, waiting for the aggregate"
    DONE = "done"
    ABORTED = "aborted"


# A data party talks only to the aggregator (party 0), one answer per step:
#   KEYS    AdvertiseKeys (with a commitment to r, its share of the public randomness) is out
#           (start); DrawCommitted (the digest D of every commitment) -> it signs D and reveals
#           r: DrawReveal;
#   DRAW    NeighborKeys (every reveal, and its live neighbours' keys) -> it checks the reveals
#           against D, derives the seed, the graph and the committee, checks its neighbours
#           signed the same D, and Shamir-shares its mask key s_sk and self-mask seed b among
#           them, encrypted pairwise: EncryptedShares;
#   SHARES  ForwardedShares (the shares addressed to it) -> its masked input
#           y = x + PRG(b) + sum_v +-PRG(s_uv) (mod R): MaskedInput; or, when some share
#           does not open, a ShareComplaint asking for its sender's signed proof;
#   MASKED  ShareProofs (the proofs asked for) -> MaskedInput, accusing the senders who
#           signed what does not open (or it leaves, naming the aggregator);
#   MASKED  SurvivorSet (U3; only to the consistency committee) -> it signs the set it was
#           shown: ConsistencySig;
#   CONSISTENCY  UnmaskRequest (U3 and a committee quorum's signatures on it) -> UnmaskShares:
#           for each neighbour a share of b (in the set) or of s_sk (not), never both;
#   MASKED  UnmaskRequest, outside the committee (it signs nothing): the same;
#   UNMASK  Aggregate -> the sum is the result.
# SecAggRestart in any step: run again as the next attempt (fresh keys, seeds and draw, a run
# label bound to the attempt, verifiable shares: CommittedShares / CommittedForwardedShares),
# without the parties the aggregator excluded; at most MAX_RETRIES times.
# SecAggAbort in any step: the aggregator stopped the run.  A malformed message from the
# aggregator makes the party leave (abort naming it): it becomes a dropout.
SECAGG_CLIENT_TABLE = table({
    (ClientState.KEYS, DrawCommitted): Transition("_on_draw_committed", ClientState.DRAW),
    (ClientState.DRAW, NeighborKeys): Transition("_on_neighbor_keys", ClientState.SHARES),
    (ClientState.SHARES, ForwardedShares): Transition("_on_forwarded", ClientState.MASKED),
    (ClientState.SHARES, CommittedForwardedShares): Transition("_on_forwarded", ClientState.MASKED),
    (ClientState.MASKED, ShareProofs): Transition("_on_proofs", ClientState.MASKED),
    (ClientState.MASKED, SurvivorSet): Transition("_on_survivors", ClientState.CONSISTENCY),
    (ClientState.CONSISTENCY, UnmaskRequest): Transition("_on_unmask_request", ClientState.UNMASK),
    (ClientState.MASKED, UnmaskRequest): Transition("_on_unmask_request_unsigned", ClientState.UNMASK),
    (ClientState.UNMASK, Aggregate): Transition("_on_aggregate", ClientState.DONE),
    **each(
        (ClientState.KEYS, ClientState.DRAW, ClientState.SHARES, ClientState.MASKED,
         ClientState.CONSISTENCY, ClientState.UNMASK),
        SecAggAbort, "_on_abort", ClientState.ABORTED,
    ),
    **each(
        (ClientState.KEYS, ClientState.DRAW, ClientState.SHARES, ClientState.MASKED,
         ClientState.CONSISTENCY, ClientState.UNMASK),
        SecAggRestart, "_on_restart", ClientState.KEYS,
    ),
})


class SecAggClient(ClientDraw, ClientChecks, Role):
    """Data party ``party_id`` in ``1..n``.

    Parameters
    ----------
    config:
        The public parameters (shared by all roles of the run).
    graph:
        ``None``: the graph and the committee are drawn from the run's joint seed (the
        protocol); a graph pins them (that graph and the run label's committee: unit tests
        and the adversary module's broken variant only).
    x:
        The private input vector (``cells`` entries in ``[0, (R - 1) // n]``).
    entropy:
        Cryptographic source of keys, seeds and share polynomials.
    identity:
        Its long-term signing key and the roster (default:
        :func:`~mpc_rr.secure_sum.default_identity`).

    Notes
    -----
    What the aggregator relays is checked against the senders' signatures
    (Bonawitz et al. 2017, the active-adversary protocol): neighbour keys
    (round ``keys``), a share that does not open (round ``shares``: the party
    asks for its sender's signature and signed batch; if they hold, it complains
    with evidence instead of blaming anyone), the survivor set (Round 3,
    ConsistencyCheck: a quorum of the consistency committee's signatures on the
    same set before any share is revealed; only the committee signs) and the
    aggregate (a signed receipt).
    A malformed message from the aggregator (wrong shapes, ids outside this
    party's neighbourhood, a share that fails authentication) makes the party
    leave the run -- it becomes a dropout, never reveals both shares of a
    neighbour, and names the aggregator.
    """

    TRANSITIONS = SECAGG_CLIENT_TABLE
    message_types = SECAGG_MESSAGES
    patience = 3  # the aggregator may spend one deadline per step waiting for dropouts

    def __init__(
        self,
        party_id: int,
        config: SecAggConfig,
        graph: Graph | None,
        x: np.ndarray,
        *,
        entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> None:
        super().__init__(party_id, ClientState.KEYS)
        if not 1 <= self.party_id <= config.n:
            raise UsageError(f"party_id must be in 1..{config.n}, got {party_id}")
        if graph is not None and (graph.n != config.n or graph.degree != config.degree):
            raise UsageError("graph does not match config (n or degree differ)")
        self.cfg = config
        self.run = config.run
        self.pinned_graph = graph
        self.seed: bytes | None = None  # the run's joint seed, once drawn
        self.graph: Graph  # drawn with the seed (NeighborKeys)
        self.committee: np.ndarray
        # held in the wire dtype (values < R): a quarter of the memory of uint64 for Adult
        self.x = check_inputs(x, config.modulus, config.n).astype(config.dtype)
        if self.x.size != config.cells:
            raise UsageError(f"x must have {config.cells} cells, got {self.x.size}")
        self.entropy = entropy if entropy is not None else SystemEntropy()
        if identity is not None and identity.party_id != self.party_id:
            raise UsageError(f"identity of party {identity.party_id} given to party {party_id}")
        self._identity = identity
        self.accused: list[int] = []  # neighbours whose signed shares did not open
        self.base_run = config.run  # the run label of attempt 0 (a retry's is retry_label of it)
        self.attempt = 0  # retries so far (SecAggRestart); from 1 on, shares are verifiable
        self.excluded: list[int] = []  # parties the aggregator excluded from the retries

    @property
    def identity(self) -> Identity:
        """Its signing identity (resolved when first used: a deployment installs it late)."""
        if self._identity is None:
            self._identity = default_identity(self.party_id, self.cfg.n)
        return self._identity

    @property
    def roster(self) -> Roster:
        return self.identity.roster

    def start(self) -> list[Send]:
        self._c_sk, c_pk = crypto.keypair(self.entropy)
        self._s_sk, s_pk = crypto.keypair(self.entropy)
        self._b = self.entropy.key(32)
        self._r = self.entropy.key(DRAW_BYTES)  # my share of the run's public randomness
        commit = hashlib.sha256(self._b).digest()
        draw = commitment(PROTOCOL, self._draw_label, self.party_id, self._r)
        sig = self.identity.sign(self._signed("keys", self.party_id, c_pk, s_pk, commit, draw))
        msg = AdvertiseKeys(
            run=self.run, step=0, c_pk=c_pk, s_pk=s_pk, b_commit=commit, draw_commit=draw, signature=sig
        )
        return [Send(COORDINATOR, msg)]

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else ONLY_COORDINATOR

    def coalition_secrets(self) -> tuple[bytes | None, bytes | None, np.ndarray, np.ndarray]:
        """What this party would hand a coalition it joined -- never sent by the protocol.

        For the adversary module's collusion analysis
        (:func:`mpc_rr.adversary.member_state`): ``(s_sk, b, holders, held)``,
        its raw X25519 mask key, its self-mask seed, and the Shamir shares it
        holds (``holders[i]`` owns row ``held[i]``: shares of ``s_sk`` in the
        first ``shamir.CHUNKS`` columns, of ``b`` in the rest).  ``None`` or
        empty before the step that creates them.
        """
        sk = getattr(self, "_s_sk", None)
        holders = getattr(self, "_holders", None)
        held = getattr(self, "_held", None)
        return (
            None if sk is None else crypto.private_bytes(sk),
            getattr(self, "_b", None),
            np.zeros(0, np.int64) if holders is None else np.asarray(holders, np.int64),
            np.zeros((0, 2 * shamir.CHUNKS), np.uint64) if held is None else np.asarray(held, np.uint64),
        )

    @property
    def self_mask_seed(self) -> bytes:
        """Its self-mask seed ``b_u`` (32 bytes; after :meth:`start`) -- for teaching and the
        adversary's analyses, never sent by the protocol."""
        return self._b

    @property
    def mask_key(self) -> crypto.X25519PrivateKey:
        """Its X25519 mask private key ``s_u`` (after :meth:`start`; see :attr:`self_mask_seed`)."""
        return self._s_sk

    @property
    def mask_partners(self) -> np.ndarray:
        """The neighbours it masks with: the senders of the shares it holds, complaints
        removed (ids, ascending; after ``ForwardedShares``)."""
        return np.asarray(self._holders, np.int64)

    def neighbour_mask_keys(self) -> dict[int, bytes]:
        """Mask public key of each live neighbour the aggregator sent (after ``NeighborKeys``)."""
        pks = self._nb_s_pks
        return {v: pks[32 * i : 32 * i + 32] for i, v in enumerate(self._nb_ids.tolist())}

    def _from_aggregator(self, src: int) -> None:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: message from party {src}, not the aggregator", src)

    def _leave(self, what: str, why: str) -> PeerError:
        """The aggregator sent something malformed: abort (we become a dropout), blame it."""
        self.abort(f"{self.name}: bad {what} from the aggregator: {why}", [COORDINATOR])
        return PeerError(str(self.error), COORDINATOR)

    # -- steps ---------------------------------------------------------------------------
    def _on_neighbor_keys(self, src: int, msg: NeighborKeys) -> list[Send]:
        self._from_aggregator(src)
        draw_commits = self._take_draw(msg)
        try:
            ids = read_ids(msg.ids, src, "neighbour ids", at_most=self.cfg.degree)
            m = ids.size
            c_pks = msg.c_pks.to_numpy(dtype=np.uint8, shape=(m, 32), sender=src)
            s_pks = msg.s_pks.to_numpy(dtype=np.uint8, shape=(m, 32), sender=src)
            if msg.commits is None:
                raise DecodeError("NeighborKeys without the seed commitments", src)
            commits = msg.commits.to_numpy(dtype=np.uint8, shape=(m, 32), sender=src)
            if msg.draw_commits is None:
                raise DecodeError("NeighborKeys without the draw commitments", src)
            nb_draws = msg.draw_commits.to_numpy(dtype=np.uint8, shape=(m, 32), sender=src)
            if len(msg.signatures) != m or len(msg.draw_signatures) != m:
                raise DecodeError(
                    f"{len(msg.signatures)} key and {len(msg.draw_signatures)} draw signatures for {m} neighbours", src
                )
        except DecodeError as exc:
            raise self._leave("NeighborKeys", str(exc)) from None
        id_list = ids.tolist()
        mine = set(self.graph.of(self.party_id).tolist())
        if m and (np.any(np.diff(ids) <= 0) or not mine.issuperset(id_list)):
            raise self._leave("NeighborKeys", "ids are not a sorted subset of my graph neighbours")
        t = self.cfg.threshold
        if m < t:
            raise self._leave("NeighborKeys", f"only {m} live neighbours, threshold is {t}")
        if draw_commits is not None and not np.array_equal(nb_draws, draw_commits[ids]):
            raise self._leave("NeighborKeys", "neighbours' draw commitments that their reveals do not open")
        bad = self._forged_key(id_list, c_pks, s_pks, commits, nb_draws, msg.signatures)
        if bad is not None:
            raise self._leave(
                "NeighborKeys",
                f"the keys of party {bad} do not carry its signature for this run (substituted "
                "or replayed by the relay)",
            )
        bad = self._draw_unsigned(id_list, self._digest, msg.draw_signatures)
        if bad is not None:
            raise self._leave(
                "NeighborKeys",
                f"party {bad} did not sign the commitment set I was shown (equivocation: the relay "
                "showed the parties different draws)",
            )
        self._nb_ids = ids
        self._nb_s_pks = s_pks.tobytes()  # row i: the mask key of ids[i]
        u, run = self.party_id, self.run
        secrets = np.frombuffer(crypto.private_bytes(self._s_sk) + self._b, np.uint8)
        chunks = shamir.bytes_to_chunks(secrets.reshape(2, 32)).reshape(-1)
        shares = shamir.share(chunks, ids, t, self.entropy).astype(SHARE)  # (m, 22)
        try:
            shared = crypto.agree_many(self._c_sk, c_pks.tobytes(), m)
        except crypto.InvalidPublicKey as exc:
            raise self._leave("NeighborKeys", str(exc)) from None
        k_out, k_in = crypto.enc_keys_many(shared, run, u, id_list)
        self._dec_key: dict[int, bytes] = dict(zip(id_list, k_in, strict=True))
        aads = [f"{run}/{u}/{v}".encode() for v in id_list]
        ct = np.frombuffer(crypto.encrypt_many(k_out, shares.tobytes(), aads), np.uint8)
        ct = ct.reshape(m, CIPHERTEXT_LEN)
        if not self.attempt:
            root = share_digest(share_batch(ids, ct))
            out = EncryptedShares(
                run=run,
                step=1,
                recipients=wire(ids, IDS),
                ciphertexts=wire(ct, np.uint8),
                signature=self.identity.sign(self._signed("shares", u, root)),
            )
            return [Send(COORDINATOR, out)]
        commits = share_commitments(run, np.full(m, u), ids, shares)  # a retry: verifiable shares
        root = share_digest(share_batch(ids, ct, commits))
        sig = self.identity.sign(self._signed("shares", u, root))
        return [Send(COORDINATOR, CommittedShares(
            run=run, step=1, recipients=wire(ids, IDS), ciphertexts=wire(ct, np.uint8), signature=sig,
            commitments=wire(commits, np.uint8),
        ))]  # fmt: skip

    def _on_forwarded(self, src: int, msg: ForwardedShares) -> list[Send]:
        self._from_aggregator(src)
        try:
            senders = read_ids(msg.senders, src, "share senders", at_most=self.cfg.degree)
            m = senders.size
            cts = msg.ciphertexts.to_numpy(dtype=np.uint8, shape=(m, CIPHERTEXT_LEN), sender=src)
            if isinstance(msg, CommittedForwardedShares) != bool(self.attempt):
                raise DecodeError(
                    "shares with commitments in a first attempt, or without them in a retry", src
                )
            commits = (
                msg.commitments.to_numpy(dtype=np.uint8, shape=(m, COMMITMENT_LEN), sender=src)
                if isinstance(msg, CommittedForwardedShares) else None
            )  # fmt: skip
        except DecodeError as exc:
            raise self._leave("ForwardedShares", str(exc)) from None
        sender_list = senders.tolist()
        dec_key = self._dec_key
        if m and (np.any(np.diff(senders) <= 0) or not dec_key.keys() >= set(sender_list)):
            raise self._leave("ForwardedShares", "senders are not a sorted subset of my neighbours")
        if self._too_few_shares(m):
            # Bonawitz et al. 2017, round 2: with fewer than t holders of my shares the
            # aggregator could ask every one of them for my self-mask seed and unmask me
            raise self._leave(
                "ForwardedShares", f"shares from only {m} neighbours, threshold is {self.cfg.threshold}"
            )
        u, run = self.party_id, self.run
        aads = [f"{run}/{v}/{u}".encode() for v in sender_list]
        keys = [dec_key[v] for v in sender_list]
        pts, bad = crypto.decrypt_many(keys, cts.tobytes(), aads)
        if bad < 0:
            plain: np.ndarray = np.frombuffer(pts, SHARE).reshape(m, 2 * shamir.CHUNKS)
            good = plain.max(axis=1) < shamir.PRIME if plain.size else np.ones(m, bool)
        else:  # some share does not open: find every one
            plain = np.zeros((m, 2 * shamir.CHUNKS), SHARE)
            good = np.zeros(m, bool)
            for i in range(m):
                try:
                    row = np.frombuffer(crypto.decrypt(keys[i], cts[i].tobytes(), aads[i]), SHARE)
                except crypto.InvalidTag:
                    continue
                plain[i], good[i] = row, bool(row.max() < shamir.PRIME)
        if commits is not None:  # a share that does not match its commitment does not open
            good &= (share_commitments(run, senders, np.full(m, u), plain) == commits).all(axis=1)
        self._holders = senders
        self._held = plain  # row i: shares of s_sk (first CHUNKS) and b (last CHUNKS) of senders[i]
        if good.all():
            return self._masked_input()
        # who is to blame: the sender (if it signed what does not open) or the aggregator
        self._unopened = (senders[~good], cts[~good], None if commits is None else commits[~good])
        self._holders, self._held = senders[good], plain[good]
        complaint = ShareComplaint(run=run, step=2, senders=wire(senders[~good], IDS))
        return [Send(COORDINATOR, complaint)]

    def _on_proofs(self, src: int, msg: ShareProofs) -> list[Send]:
        """The proofs asked for: each sender signed what does not open (then accuse it, with
        evidence) or not (the aggregator altered it: leave, revealing nothing)."""
        self._from_aggregator(src)
        asked = getattr(self, "_unopened", None)
        if asked is None:
            raise self._leave("ShareProofs", "proofs nobody asked for")
        del self._unopened
        senders, cts, commits = asked
        m = senders.size
        try:
            got = read_ids(msg.senders, src, "proof senders", at_most=m)
            if not np.array_equal(got, senders) or len(msg.signatures) != m or len(msg.batches) != m:
                raise DecodeError("ShareProofs without a signature and batch per share asked for", src)
        except DecodeError as exc:
            raise self._leave("ShareProofs", str(exc)) from None
        for i, v in enumerate(senders.tolist()):
            commit = None if commits is None else commits[i]
            if not self._share_signed(v, cts[i], msg.batches[i], msg.signatures[i], commit):
                raise self._leave(
                    "ForwardedShares",
                    f"the share of party {v} does not open and is not signed by it (altered by the relay)",
                )
            self.accused.append(v)  # v signed what does not open: complain with evidence
        if (m := self._holders.size) < (t := self.cfg.threshold):
            why = f"the shares of parties {self.accused} do not open; {m} neighbours left, threshold is {t}"
            self.abort(f"{self.name}: {why}", self.accused)
            raise PeerError(str(self.error), self.accused[0])
        return self._masked_input()

    def _mask_keys(self) -> tuple[bytes, list[bytes], list[bytes]]:
        """My self-mask key (from b) and my pair keys s_uv over the holders of my shares: added (v > u), subtracted."""
        senders, u, run = self._holders, self.party_id, self.run
        idx: np.ndarray = np.searchsorted(self._nb_ids, senders)  # senders is a subset of _nb_ids (checked)
        pks = np.frombuffer(self._nb_s_pks, np.uint8).reshape(-1, 32)[idx].tobytes()
        try:
            shared = crypto.agree_many(self._s_sk, pks, senders.size)
        except crypto.InvalidPublicKey as exc:
            raise self._leave("NeighborKeys", str(exc)) from None
        plus: list[bytes] = []
        minus: list[bytes] = []
        for key, v in zip(crypto.pair_keys(shared, "mask", run, u, senders.tolist()), senders.tolist(), strict=True):
            (plus if v > u else minus).append(key)
        return crypto.pair_key(self._b, "self", run, u, u), plus, minus

    def masks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(PRG(b_u), sum_v sign(u, v) PRG(s_uv))`` mod R (uint64): the two masks ``MaskedInput``
        adds to x (Bell et al. 2020, round 2), from the role's own keys. For lessons and tests; never
        sent. Available once it holds its neighbours' shares."""
        if getattr(self, "_holders", None) is None:
            raise UsageError(f"party {self.party_id} has no masks yet (it has not received its neighbours' shares)")
        self_key, plus, minus = self._mask_keys()
        own = crypto.signed_mask_sum([self_key], [], self.cfg.cells, self.cfg.modulus).astype(np.uint64)
        return own, crypto.signed_mask_sum(plus, minus, self.cfg.cells, self.cfg.modulus).astype(np.uint64)

    def _masked_input(self) -> list[Send]:
        """y = x + PRG(b) + sum_v sign(u, v) PRG(s_uv) (mod R) over the holders of my shares,
        with the complaint (accused senders and evidence) if any."""
        run = self.run
        self_key, plus, minus = self._mask_keys()
        cfg = self.cfg
        mask = crypto.signed_mask_sum([self_key, *plus], minus, cfg.cells, cfg.modulus)
        R = cfg.modulus
        if R & (R - 1) == 0:  # both in the wire dtype, whose wrap-around is exact mod R
            y = (self.x + mask) & mask.dtype.type(R - 1)
        else:  # mask is uint64
            y = (self.x + mask) % np.uint64(R)
        out = MaskedInput(run=run, step=2, y=wire(y, cfg.dtype))
        if self.accused:  # the evidence: my share-encryption key (its public half is signed)
            out = MaskedInput(
                run=run, step=2, y=out.y, accused=wire(np.asarray(self.accused), IDS),
                evidence=crypto.private_bytes(self._c_sk),
            )  # fmt: skip
        return [Send(COORDINATOR, out)]

    def _read_survivors(self, what: str, survivors: bytes) -> np.ndarray:
        if hasattr(self, "_unopened"):
            raise self._leave(what, "a survivor set before the share proofs I asked for")
        members = read_bitmap(survivors, self.cfg.n)
        if members is None:
            raise self._leave(what, "the survivor set is not a bitmap over the parties")
        if not members[self.party_id] or members[COORDINATOR]:
            raise self._leave(what, "a survivor set without me (or with the aggregator)")
        why = self._survivors_suspect(members, self._holders)
        if why:
            raise self._leave(what, why)
        return members

    def _on_survivors(self, src: int, msg: SurvivorSet) -> list[Send]:
        """Round 3 (ConsistencyCheck): a committee member signs the survivor set it was shown.

        Outside the committee a signature would count for nothing, and the committee is
        public (drawn from the run label): the aggregator never asks, and a party asked
        leaves naming it.
        """
        self._from_aggregator(src)
        if not self.on_committee:
            raise self._leave("SurvivorSet", "a survivor set to sign, but I am not on the consistency committee")
        self._members = self._read_survivors("SurvivorSet", msg.survivors)
        self._survivors = msg.survivors
        sig = self.identity.sign(self._signed("consistency", self.party_id, msg.survivors))
        return [Send(COORDINATOR, ConsistencySig(run=self.run, step=3, signature=sig))]

    def _on_unmask_request_unsigned(self, src: int, msg: UnmaskRequest) -> list[Send]:
        """An unmask request while I signed nothing: expected outside the committee only."""
        self._from_aggregator(src)
        if self.on_committee:
            raise self._leave("UnmaskRequest", "an unmask request before the survivor set I must sign")
        return self._on_unmask_request(src, msg)

    def _on_unmask_request(self, src: int, msg: UnmaskRequest) -> list[Send]:
        self._from_aggregator(src)
        members = self._read_survivors("UnmaskRequest", msg.survivors)
        why = self._inconsistent(msg, members)
        if why:
            raise self._leave("UnmaskRequest", why)
        self._members = members
        # what to reveal follows from the signed set alone
        is_dropped = ~members[self._holders]
        alive = ~is_dropped
        c = shamir.CHUNKS
        out = UnmaskShares(
            run=self.run,
            step=3,
            b_owners=wire(self._holders[alive], IDS),
            b_shares=wire(self._held[alive, c:], SHARE),
            s_owners=wire(self._holders[is_dropped], IDS),
            s_shares=wire(self._held[is_dropped, :c], SHARE),
        )
        return [Send(COORDINATOR, out)]  # answered once: never both shares of one neighbour

    def _on_aggregate(self, src: int, msg: Aggregate) -> list[Send]:
        self._from_aggregator(src)
        try:
            total = read_residues(msg.total, self.cfg.modulus, self.cfg.cells, src, "aggregate")
        except PeerError as exc:
            raise self._leave("Aggregate", str(exc)) from None
        if not 0 <= msg.n_included <= self.cfg.n:
            raise self._leave("Aggregate", f"n_included {msg.n_included} outside [0, {self.cfg.n}]")
        if not self._receipt_ok(msg):
            raise self._leave("Aggregate", "the aggregate is not signed by the aggregator")
        self.receipt = msg
        self.finish(SumResult(total.astype(np.int64), (), int(msg.n_included), self.cfg.modulus))
        return []

    def _on_restart(self, src: int, msg: SecAggRestart) -> list[Send]:
        """Run again as the next attempt: fresh keys, seed and draw under the attempt's run
        label (nothing of the attempt left is reused: a retry reveals nothing new about it)."""
        self._from_aggregator(src)
        if msg.attempt != self.attempt + 1 or msg.attempt > MAX_RETRIES:
            raise self._leave(
                "SecAggRestart", f"attempt {msg.attempt} after attempt {self.attempt} (at most {MAX_RETRIES} retries)"
            )
        try:
            excluded = read_ids(msg.excluded, src, "excluded parties", at_most=self.cfg.n).tolist()
        except DecodeError as exc:
            raise self._leave("SecAggRestart", str(exc)) from None
        if self.party_id in excluded:
            raise self._leave("SecAggRestart", "a retry that excludes me, sent to me")
        self.excluded = sorted(set(self.excluded) | set(excluded))
        self.attempt = msg.attempt
        self.cfg = dataclasses.replace(self.cfg, run=retry_label(self.base_run, self.attempt))
        self.run = self.cfg.run
        self.accused, self.seed = [], None
        return self.start()

    def _on_abort(self, src: int, msg: SecAggAbort) -> list[Send]:
        self._from_aggregator(src)
        self.abort(f"{self.name}: the aggregator aborted: {msg.reason[:500]}")
        return []
