"""Classroom lessons for the two secure sums: the paper's full mesh (4.2) and SecAgg+.

The class takes a poll: each data party votes for one of ``options`` answers
(a one-hot vector, :func:`mpc_rr.secure_sum.party_input`), and the
secure sum counts the votes without anyone seeing a single vote.  Shares,
keys and masks come from :class:`~mpc_rr.secure_sum.SeededEntropy`
(one stream per party), so the same seed gives the same trace.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable

import numpy as np

from mpc_rr.core import COORDINATOR, DropAt, Role, UsageError
from mpc_rr.secure_sum import (
    SeededEntropy,
    crypto,
    full_mesh,
    party_input,
    secagg,
    secure_sum_roles,
    step_messages,
)
from mpc_rr.secure_sum.secagg import mask_sum
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, drop_roles, vec

__all__ = ["board_lesson", "full_mesh_lesson", "poll_inputs", "secagg_lesson"]


def _labels(options: int) -> str:
    return string.ascii_uppercase[:options]


def poll_inputs(n: int, options: int, seed: int) -> np.ndarray:
    """``(n, options)`` one-hot votes of parties ``1..n`` (uint8)."""
    return np.stack([party_input(i, seed, options) for i in range(1, n + 1)])


def _entropy(seed: int) -> Callable[[int], SeededEntropy]:
    """One deterministic stream per party (a teaching trace: never for a deployment)."""
    return lambda pid: SeededEntropy(seed, f"classroom/party-{pid}")


def _vote_lines(x: np.ndarray, options: int) -> list[str]:
    lab = _labels(options)
    return [
        f"  P{i}: votes {lab[int(np.argmax(row))]}  x_{i} = {vec(row)}" for i, row in enumerate(x, 1)
    ]


def _vsum(arrays: Iterable[np.ndarray], size: int) -> np.ndarray:
    """Element-wise sum of int vectors (zeros when there are none)."""
    out = np.zeros(size, np.int64)
    for a in arrays:
        out += np.asarray(a, dtype=np.int64)
    return out


def _inner(role: Role) -> Role:
    while isinstance(role, DropAt):
        role = role.inner
    return role


def _crashed(role: Role) -> bool:
    return isinstance(role, DropAt) and role.crashed


def _names(n: int, hub: str | None) -> dict[int, str]:
    out = {COORDINATOR: hub} if hub else {}
    out.update({i: f"P{i}" for i in range(1, n + 1)})
    return out


# -- the paper's full mesh (Sec. 4.2) -------------------------------------------------------


def full_mesh_lesson(
    n: int, *, seed: int, options: int = 4, publication: str = "all-to-all",
    drops: dict[int, str] | None = None,
) -> Lesson:  # fmt: skip
    """The Sec. 4.2 secure sum mod ``m = n + 1`` of ``n`` one-hot votes."""
    drops = drops or {}
    x = poll_inputs(n, options, seed)
    m = n + 1
    run = f"classroom-full-mesh-{seed}"
    pub: full_mesh.Publication = "board" if publication == "board" else "all-to-all"
    roles = full_mesh.full_mesh_roles(x, publication=pub, entropy=_entropy(seed), run=run)
    roles = drop_roles(roles, drops, step_messages("full-mesh"))
    setup = [
        f"{n} parties P1..P{n} each vote for one of the options {', '.join(_labels(options))}; the "
        f"vote is a one-hot vector x_i. The secure sum counts the votes per option without anyone "
        f"seeing a vote (Domingo-Ferrer & Soria-Comas, Sec. 4.2).",
        f"Arithmetic mod m = n + 1 = {m}: a count is at most n < m, so the sum mod m is the exact count.",
        "Private inputs (printed only because this is a classroom):",
        *_vote_lines(x, options),
        (
            "Publication: all-to-all (the paper's): every party sends r_j to every other party."
            if pub == "all-to-all"
            else "Publication: through a bulletin board P0, which adds the r_j and publishes the total."
        ),
        "The paper assumes private channels between every pair of parties; here every message "
        "goes through a relay (the network hub), so each share is encrypted for its receiver "
        "(X25519 key agreement, AES-256-GCM) and the relay reads ciphertext only. The trace shows "
        "each share's value as its receiver decrypts it.",
    ]
    keys_title = "Round 1 - keys: each party makes an X25519 key pair and sends its public key " + (
        "to every other party" if pub == "all-to-all" else "to the board, which sends the list to everyone"
    )
    rounds = {
        "MeshKey": ("keys", keys_title),
        "MeshKeys": ("keys", keys_title),
        "MeshShare": ("shares", f"Round 2 - shares: each party splits ZERO into n random shares mod {m}, "
                                "encrypts each for its receiver and sends it (it keeps its own), signed: one "
                                "signature on the tree hash of all its ciphertexts, and each share's audit path, "
                                "so a share that does not open proves who broke it"
                                + ("" if pub == "all-to-all" else "; the board checks each one and passes it on")),
        "MeshPublish": ("publish", "Round 3 - publication: each party decrypts and adds the shares "
                                   f"it holds and its vote, and publishes r_j (mod {m})"),
        "MeshTotal": ("total", "Round 4 - the board publishes the sum of the r_j"),
    }  # fmt: skip

    def opened(s: Sent) -> tuple[int, int, np.ndarray | None]:
        """A share's sender, receiver (board mode: ``peer`` is the other end) and residues,
        decrypted with the sender's key (what the receiver reads)."""
        msg = s.msg
        assert isinstance(msg, full_mesh.MeshShare)
        src, dst = (s.src, msg.peer) if s.dst == 0 else (msg.peer, s.dst) if s.src == 0 else (s.src, s.dst)
        sender = _inner(roles[src])
        if not isinstance(sender, full_mesh.FullMeshParty) or dst not in sender._pks:
            return src, dst, None
        plain = full_mesh.open_share(sender._sk, sender._pks[dst], msg.ciphertext, run=run,
                                     sender=src, receiver=dst)  # fmt: skip
        return src, dst, np.frombuffer(plain, sender.wire_dtype).astype(np.int64)

    def describe(s: Sent) -> list[tuple[str, str]]:
        msg = s.msg
        if isinstance(msg, full_mesh.MeshKey):
            return [("public key", _hex(msg.pk))]
        if isinstance(msg, full_mesh.MeshKeys):
            return [("public keys", f"P1..P{n}, {n} x {full_mesh.KEY_LEN} B")]
        if isinstance(msg, full_mesh.MeshShare):
            src, dst, r = opened(s)
            return [
                ("ciphertext", f"{len(msg.ciphertext)} B AES-256-GCM {_hex(msg.ciphertext, 6)}"),
                (f"P{dst} decrypts r_{src},{dst}", vec(r) if r is not None else "?"),
            ]
        if isinstance(msg, full_mesh.MeshPublish):
            return [(f"r_{s.src}", vec(msg.value.to_numpy()))]
        if isinstance(msg, full_mesh.MeshTotal):
            return [(f"sum of r_j mod {m}", vec(msg.total.to_numpy()))]
        return []

    def shares_of(ctx: Context) -> dict[tuple[int, int], np.ndarray]:
        out = {}
        for s in ctx.of_type("MeshShare"):
            src, dst, r = opened(s)
            if r is not None:
                out[(src, dst)] = r
        return out

    def notes(key: str, ctx: Context) -> list[Note]:
        sh = shares_of(ctx)
        out: list[Note] = []
        if key == "keys":
            sent_key = {s.src for s in ctx.of_type("MeshKey")}
            silent = [i for i in range(1, n + 1) if i not in sent_key]
            if silent:
                who = ", ".join(f"P{i}" for i in silent)
                out.append((
                    f"{who} never sent a public key: nobody can encrypt a share for it, so no "
                    f"share is sent and the others wait for its key.",
                    tuple(silent),
                ))  # fmt: skip
                return out
            out.append((
                "Each pair of parties (i, j) now shares a secret: X25519 combines i's private key "
                "with j's public key (or j's private key with i's public key, the same secret). "
                "A SHA-256 key derivation (NIST SP 800-56C) turns it into one AES key per "
                "direction i -> j, bound to this run.",
                tuple(range(1, n + 1)),
            ))  # fmt: skip
        elif key == "shares":
            for i in range(1, n + 1):
                role = ctx.roles[i]
                if _crashed(role) and not any(src == i for src, _ in sh):
                    continue
                inner = _inner(role)
                assert isinstance(inner, full_mesh.FullMeshParty)
                # what P_i kept: its accumulator minus the shares it received
                if inner.state.name in ("KEYS", "SHARING"):  # it never had all its shares
                    continue
                got = _vsum((sh[(k, i)] for k in range(1, n + 1) if (k, i) in sh), options)
                kept = (inner._acc.astype(np.int64) - got) % m
                if any((i, j) not in sh for j in range(1, n + 1) if j != i):
                    continue
                total = (kept + _vsum((sh[(i, j)] for j in range(1, n + 1) if j != i), options)) % m
                ok = "OK" if not total.any() else "NOT ZERO"
                out.append((
                    f"P{i} kept r_{i},{i} = {vec(kept)}; its {n} shares sum to {vec(total)} mod {m} "
                    f"({ok}): each share alone is a uniform random vector and says nothing about x_{i}.",
                    (i,),
                ))  # fmt: skip
        elif key == "publish":
            pubs = {s.src: s.msg.value.to_numpy().astype(np.int64)  # type: ignore[attr-defined]
                    for s in ctx.of_type("MeshPublish")}  # fmt: skip
            for j, r_j in sorted(pubs.items()):
                inner = _inner(ctx.roles[j])
                assert isinstance(inner, full_mesh.FullMeshParty)
                received = _vsum((sh[(i, j)] for i in range(1, n + 1) if (i, j) in sh), options)
                kept = (inner._acc.astype(np.int64) - received) % m
                held = (received + kept) % m
                again = (held + x[j - 1]) % m
                ok = "OK" if np.array_equal(again, r_j) else "MISMATCH"
                terms = " + ".join(
                    [f"r_{i},{j}" for i in range(1, n + 1) if (i, j) in sh] + [f"kept r_{j},{j}"]
                )
                out.append((
                    f"P{j}: r_{j} = ({terms} = {vec(held)}) + vote x_{j} {vec(x[j - 1])} = "
                    f"{vec(again)} mod {m} ({ok}, equal to what it published).",
                    (j,),
                ))  # fmt: skip
            if len(pubs) == n:
                s = _vsum(pubs.values(), options) % m
                out.append((
                    f"Adding every r_j: the shares of each party sum to zero, so they cancel and only "
                    f"the votes remain: sum r_j = {vec(s)} mod {m}.",
                    tuple(range(1, n + 1)),
                ))  # fmt: skip
        return out

    def check(ctx: Context) -> tuple[list[str], bool]:
        plain = x.sum(axis=0)
        lines = [f"plain count of the votes (computed directly, no protocol): {vec(plain)}"]
        ok = True
        for i in range(1, n + 1):
            role = ctx.roles[i]
            if _crashed(role):
                lines.append(f"P{i}: crashed (dropout), no result")
                continue
            if role.error is not None:
                lines.append(f"P{i}: no result: {role.error}")
                ok = False
                continue
            got = role.result.total
            same = np.array_equal(got, plain)
            ok &= same
            lines.append(f"P{i}: result {vec(got)} {'== plain count: OK' if same else '!= plain count: WRONG'}")
        if not ok and drops:
            lines.append(
                "The paper's full mesh has no dropout tolerance: a silent party makes the others "
                "abort (naming it) rather than publish a wrong sum. SecAgg+ tolerates dropouts: "
                "try `mpc-rr classroom secagg` with the same --drop."
            )
        return lines, ok

    diagrams: list[type[Role]] = [full_mesh.FullMeshParty]
    if pub == "board":
        diagrams.append(full_mesh.BulletinBoard)
    return Lesson(
        protocol="full-mesh", title=f"full-mesh secure sum (Sec. 4.2), {n} parties, {options} options",
        seed=seed, roles=roles, participants=_names(n, "Board" if pub == "board" else None),
        setup=setup, rounds=rounds, describe=describe, notes=notes, check=check,
        diagrams=diagrams, drops=drops,
        extra={"modulus": m, "inputs": x.tolist(), "publication": pub},
    )  # fmt: skip


# -- SecAgg+ ---------------------------------------------------------------------------------


def _hex(b: bytes, n: int = 8) -> str:
    return b[:n].hex() + "..."


CLASSROOM_MAX_DROPOUT = 1 / 3


def secagg_lesson(
    n: int, *, seed: int, options: int = 4, drops: dict[int, str] | None = None, cheat: str | None = None
) -> Lesson:
    """SecAgg+ (Bell et al. 2020) over ``n`` one-hot votes, the aggregator as party 0
    (``cheat``: it plays that server strategy, :func:`mpc_rr.adversary.cheat_strategies`)."""
    drops = drops or {}
    x = poll_inputs(n, options, seed)
    run = f"classroom-secagg-{seed}"
    # A lesson about dropouts: tolerate a third of the class (the library's
    # default, 10 %, tolerates none below ten parties); collusion bound as default.
    roles, params = secure_sum_roles(
        "secagg", x, run=run, entropy=_entropy(seed), max_dropout=CLASSROOM_MAX_DROPOUT
    )
    if cheat is not None:
        from mpc_rr.adversary import SERVER_STRATEGIES, CheatingServer

        if cheat not in SERVER_STRATEGIES:
            raise UsageError(f"--cheat must be one of {', '.join(SERVER_STRATEGIES)}, got {cheat!r}")
        honest = roles[COORDINATOR]
        roles[COORDINATOR] = CheatingServer(honest.cfg, honest.graph, strategy=cheat)  # type: ignore[attr-defined]
    roles = drop_roles(roles, drops, step_messages("secagg"))
    R = int(params["modulus"])
    server = roles[COORDINATOR]
    assert isinstance(server, secagg.SecAggServer)
    cfg = server.cfg
    setup = [
        f"{n} parties P1..P{n} each vote for one of the options {', '.join(_labels(options))} "
        f"(one-hot x_i). An untrusted aggregator (Agg, party 0) learns only the count per option "
        f"(SecAgg+, Bell et al. 2020). Parties talk only to the aggregator.",
        f"Arithmetic mod R = {R} (the smallest power of two above n). Graph: "
        + ("complete" if cfg.degree == n - 1 else f"random {cfg.degree}-regular")
        + f" (degree k = {cfg.degree}); Shamir threshold t = {cfg.threshold}; tolerates "
        f"{cfg.max_dropped} dropout(s) (max_dropout = {cfg.max_dropout:.3g}). The aggregator "
        f"colluding with fewer than t of a party's neighbours learns nothing of its input "
        f"(max_corrupt = {cfg.max_corrupt:.3g}).",
        "Private inputs (printed only because this is a classroom):",
        *_vote_lines(x, options),
    ]
    titles = {
        "keys": "Round 1 - keys: every party advertises two public keys and a commitment to its "
                "self-mask seed b",
        "shares": "Round 2 - secret shares: every party Shamir-shares its mask key and b among its "
                  "neighbours, encrypted for each",
        "masked": "Round 3 - masked inputs: y = x + PRG(b) + pairwise masks (mod R)",
        "consistency": "Round 4 - consistency check: every survivor signs the survivor set it was "
                       "shown; nobody reveals a share before a quorum signed the same set",
        "unmask": "Round 5 - unmasking: the survivors reveal the shares needed to remove the masks",
        "result": "Result - the aggregator removes the masks and announces the count",
    }  # fmt: skip
    kinds = {
        "AdvertiseKeys": "keys", "NeighborKeys": "keys", "EncryptedShares": "shares",
        "ForwardedShares": "shares", "ShareComplaint": "masked", "ShareProofs": "masked", "MaskedInput": "masked", "SurvivorSet": "consistency",
        "ConsistencySig": "consistency", "UnmaskRequest": "unmask",
        "UnmaskShares": "unmask", "Aggregate": "result", "SecAggAbort": "result",
    }  # fmt: skip
    rounds = {t: (k, titles[k]) for t, k in kinds.items()}

    def ids(w: object) -> str:
        a = w.to_numpy()  # type: ignore[attr-defined]
        return vec(a) if a.size else "none"

    def describe(s: Sent) -> list[tuple[str, str]]:
        m = s.msg
        if isinstance(m, secagg.AdvertiseKeys):
            return [("c_pk", _hex(m.c_pk)), ("s_pk", _hex(m.s_pk)), ("SHA-256(b)", _hex(m.b_commit))]
        if isinstance(m, secagg.NeighborKeys):
            return [("neighbours", ids(m.ids)), ("their public keys", f"{m.ids.shape[0]} x (c_pk, s_pk)")]
        if isinstance(m, secagg.EncryptedShares):
            k = m.recipients.shape[0]
            return [("for", ids(m.recipients)),
                    ("ciphertexts", f"{k} x {secagg.CIPHERTEXT_LEN} B AES-256-GCM (the aggregator cannot read them)")]  # fmt: skip
        if isinstance(m, secagg.ForwardedShares):
            return [("from", ids(m.senders)), ("ciphertexts", f"{m.senders.shape[0]} x {secagg.CIPHERTEXT_LEN} B")]
        if isinstance(m, secagg.ShareComplaint):
            return [("shares that do not open, from", ids(m.senders))]
        if isinstance(m, secagg.ShareProofs):
            return [("the senders' signatures and audit paths, for", ids(m.senders))]
        if isinstance(m, secagg.MaskedInput):
            return [(f"y_{s.src} (mod {R})", vec(m.y.to_numpy()))]
        if isinstance(m, secagg.SurvivorSet):
            return [("survivors", _members(m.survivors, n))]
        if isinstance(m, secagg.ConsistencySig):
            return [("signature on the set it was shown", f"{len(m.signature)} B")]
        if isinstance(m, secagg.UnmaskRequest):
            return [("set signed by", _members(m.signers, n))]
        if isinstance(m, secagg.UnmaskShares):
            return [("shares of b of", ids(m.b_owners)), ("shares of the mask key of", ids(m.s_owners))]
        if isinstance(m, secagg.Aggregate):
            return [("count", vec(m.total.to_numpy())), ("inputs included", str(m.n_included))]
        if isinstance(m, secagg.SecAggAbort):
            return [("reason", m.reason)]
        return []

    def self_mask(c: secagg.SecAggClient) -> np.ndarray:
        key = crypto.pair_key(c._b, "self", run, c.party_id, c.party_id)
        return crypto.expand_mask(key, options, R).astype(np.int64)

    def pair_masks(c: secagg.SecAggClient) -> np.ndarray:
        """sum_v sign(u, v) PRG(s_uv) recomputed from P_u's secret key and its neighbours' keys."""
        u = c.party_id
        pk_of = c.neighbour_mask_keys()
        vs = c._holders.tolist()
        keys = [crypto.pair_key(crypto.agree(c._s_sk, pk_of[v]), "mask", run, min(u, v), max(u, v)) for v in vs]
        return mask_sum(None, keys, np.where(np.asarray(vs) > u, 1, -1), options, R).astype(np.int64)

    def notes(key: str, ctx: Context) -> list[Note]:
        out: list[Note] = []
        everyone = tuple(range(1, n + 1))
        if key == "keys":
            out.append((
                "Each party made two X25519 key pairs: c (to encrypt shares for a neighbour) and s "
                "(to agree a pairwise mask key s_uv with each neighbour), and committed to a random "
                "self-mask seed b. The aggregator forwards each party its live neighbours' keys.",
                everyone,
            ))  # fmt: skip
        elif key == "shares":
            out.append((
                f"Each party split its mask secret key and b into Shamir shares (any t = "
                f"{cfg.threshold} rebuild them) and encrypted each for one neighbour; the aggregator "
                f"only routes ciphertexts it cannot open.",
                everyone,
            ))  # fmt: skip
        elif key == "masked":
            ys = {s.src: s.msg.y.to_numpy().astype(np.int64) for s in ctx.of_type("MaskedInput")}  # type: ignore[attr-defined]
            total_pairs = np.zeros(options, np.int64)  # sum of every sender's pairwise masks
            for u, y in sorted(ys.items()):
                c = _inner(ctx.roles[u])
                assert isinstance(c, secagg.SecAggClient)
                sm, pm = self_mask(c), pair_masks(c)
                total_pairs += pm
                again = (x[u - 1] + sm + pm) % R
                ok = "OK" if np.array_equal(again, y) else "MISMATCH"
                out.append((
                    f"P{u}: y_{u} = x_{u} {vec(x[u - 1])} + PRG(b_{u}) {vec(sm)} + pairwise masks "
                    f"{vec(pm % R)} = {vec(again)} mod {R} ({ok}): y_{u} looks uniformly random.",
                    (u,),
                ))  # fmt: skip
            total_pairs %= R
            senders = sorted(ys)
            if not total_pairs.any():
                out.append((
                    f"The pairwise masks of P{', P'.join(map(str, senders))} sum to {vec(total_pairs)} "
                    f"mod {R}: each PRG(s_uv) is added by one party of the pair and subtracted by the "
                    f"other, so they cancel in the sum.",
                    tuple(senders),
                ))  # fmt: skip
            else:
                out.append((
                    f"The pairwise masks of the parties whose y arrived sum to {vec(total_pairs)} mod "
                    f"{R}, not zero: their masks with a party that dropped after sharing have no "
                    f"partner to cancel them. The aggregator must rebuild those pair keys.",
                    tuple(senders),
                ))  # fmt: skip
        elif key == "unmask":
            if server.dropped:
                gone = ", ".join(f"P{u} (at {st})" for u, st in sorted(server.dropped.items()))
                out.append((
                    f"The aggregator counts as dropped: {gone}. For a party whose y arrived, "
                    f"neighbours reveal shares of b; for one that dropped after sharing, shares of "
                    f"its mask key -- never both for one party, so no single y is ever unmasked.",
                    tuple(sorted(server.dropped)),
                ))  # fmt: skip
            else:
                out.append((
                    "Nobody dropped: the neighbours reveal only shares of each b (never of a mask key).",
                    everyone,
                ))  # fmt: skip
        elif key == "result" and server.error is None and server.done:
            included = list(server.result.included)
            sy = _vsum((s.msg.y.to_numpy() for s in ctx.of_type("MaskedInput")  # type: ignore[attr-defined]
                        if s.delivered and s.src in included), options) % R  # fmt: skip
            clients = [c for c in (_inner(ctx.roles[u]) for u in included) if isinstance(c, secagg.SecAggClient)]
            selfs = _vsum((self_mask(c) for c in clients), options) % R
            left = _vsum((pair_masks(c) for c in clients), options) % R
            out.append((
                f"The aggregator rebuilt every b_u from t shares (checked against the commitments): "
                f"sum y {vec(sy)} - sum PRG(b_u) {vec(selfs)}"
                + (f" - uncancelled pair masks {vec(left)} (rebuilt from the dropped parties' mask keys)"
                   if left.any() else "")
                + f" = {vec(server.result.total)} mod {R}.",
                (COORDINATOR,),
            ))
        return out

    def check(ctx: Context) -> tuple[list[str], bool]:
        if cheat is not None:
            return _caught(ctx, cheat, n)
        if server.error is not None:
            return [
                f"no result: {server.error}",
                f"More than {cfg.max_dropped} dropout(s): SecAgg+ stops cleanly (naming the parties) "
                f"instead of announcing a wrong sum.",
            ], False
        res = server.result
        inc = list(res.included)
        plain = x[np.asarray(inc) - 1].sum(axis=0)
        same = np.array_equal(res.total, plain)
        lines = [
            f"inputs included: P{', P'.join(map(str, inc))}"
            + (f"; dropped: P{', P'.join(map(str, sorted(server.dropped)))}" if server.dropped else ""),
            f"plain count of the included votes (computed directly): {vec(plain)}",
            f"aggregator's result: {vec(res.total)} {'== plain count: OK' if same else '!= plain count: WRONG'}",
        ]
        for i in inc:
            r = ctx.roles[i]
            if r.error is None and r.done and not _crashed(r):
                same &= np.array_equal(r.result.total, plain)
        lines.append("every surviving party received the same count" if same else "a party got another count")
        return lines, bool(same)

    return Lesson(
        protocol="secagg", title=f"SecAgg+ secure sum, {n} parties, {options} options", seed=seed,
        roles=roles, participants=_names(n, "Agg"), setup=setup, rounds=rounds,
        describe=describe, notes=notes, check=check,
        diagrams=[secagg.SecAggClient, secagg.SecAggServer], drops=drops,
        extra={"modulus": R, "inputs": x.tolist(), "params": params},
    )  # fmt: skip


def _members(bits: bytes, n: int) -> str:
    members = secagg.read_bitmap(bits, n)
    return "?" if members is None else "P" + ", P".join(map(str, np.flatnonzero(members).tolist()))


def _caught(ctx: Context, cheat: str, n: int) -> tuple[list[str], bool]:
    """Who caught the cheating aggregator, with what; OK when someone named it and it learned nothing."""
    lines = [f"The aggregator cheated ({cheat})."]
    named = []
    for i in range(1, n + 1):
        err = ctx.roles[i].error
        if err is not None and COORDINATOR in err.culprits:
            named.append(i)
            lines.append(f"P{i} caught it: {err}")
    learned = getattr(ctx.roles[COORDINATOR], "learned", {})
    lines.append(f"inputs the aggregator recovered: {len(learned)}")
    return lines, bool(named) and not learned


def board_lesson(
    n: int, *, seed: int, options: int = 4, drops: dict[int, str] | None = None
) -> Lesson:
    """The Sec. 4.2 secure sum with publication through the bulletin board (``full-mesh-board``)."""
    return full_mesh_lesson(n, seed=seed, options=options, publication="board", drops=drops)
