"""Classroom lesson for SecAgg+ (Bell et al. 2020): the class poll (:mod:`scenarios.classroom.poll`)
counted by masked inputs and an aggregator, with dropouts and, on request, a cheating aggregator
(``--cheat``) and the moment the honest parties catch it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import COORDINATOR, UsageError
from mpc_rr.secure_sum import secagg, secure_sum_roles, step_messages
from mpc_rr.secure_sum.secagg._messages import CIPHERTEXT_LEN, read_bitmap
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, drop_roles, vec
from scenarios.classroom.poll import (
    crashed,
    entropies,
    inner_role,
    labels,
    names,
    poll_inputs,
    short_hex,
    vote_lines,
    vsum,
)

__all__ = ["CLASSROOM_MAX_DROPOUT", "secagg_lesson"]


CLASSROOM_MAX_DROPOUT = 1 / 3


def secagg_lesson(
    n: int, *, seed: int, options: int | Sequence[str] = 4, drops: dict[int, str] | None = None, cheat: str | None = None
) -> Lesson:
    """SecAgg+ (Bell et al. 2020) over ``n`` one-hot votes, the aggregator as party 0
    (``cheat``: it plays that server strategy, :func:`mpc_rr.adversary.active.cheat_strategies`)."""
    drops = drops or {}
    answers = labels(options)  # the labels given, or A, B, ... for a count
    options = len(answers)
    x = poll_inputs(n, options, seed)
    run = f"classroom-secagg-{seed}"
    # A lesson about dropouts: tolerate a third of the class (the library's
    # default, 10 %, tolerates none below ten parties); collusion bound as default.
    roles, params = secure_sum_roles(
        "secagg", x, run=run, entropy=entropies(seed), max_dropout=CLASSROOM_MAX_DROPOUT
    )
    if cheat is not None:  # the library's strategies, and the cheat lesson's (scenarios.classroom.cheats)
        from mpc_rr.adversary.active import SERVER_STRATEGIES, CheatingServer
        from scenarios.classroom.cheats import CHEATS, cheating_server

        honest = roles[COORDINATOR]
        assert isinstance(honest, secagg.SecAggServer)
        if cheat in CHEATS:
            roles[COORDINATOR] = cheating_server(honest, cheat)
        elif cheat in SERVER_STRATEGIES:
            roles[COORDINATOR] = CheatingServer(honest.cfg, honest.pinned_graph, strategy=cheat)
        else:
            raise UsageError(f"--cheat must be one of {', '.join(dict.fromkeys([*SERVER_STRATEGIES, *CHEATS]))}, got {cheat!r}")
    roles = drop_roles(roles, drops, step_messages("secagg"))
    R = int(params["modulus"])
    server = roles[COORDINATOR]
    assert isinstance(server, secagg.SecAggServer)
    cfg = server.cfg
    setup = [
        f"{n} parties P1..P{n} each vote for one of the options {', '.join(answers)} "
        f"(one-hot x_i). An untrusted aggregator (Agg, party 0) learns only the count per option "
        f"(SecAgg+, Bell et al. 2020). Parties talk only to the aggregator.",
        f"Arithmetic mod R = {R} (the smallest power of two above n). Graph: "
        + ("complete" if cfg.degree == n - 1 else f"random {cfg.degree}-regular")
        + f" (degree k = {cfg.degree}); Shamir threshold t = {cfg.threshold}; tolerates "
        f"{cfg.max_dropped} dropout(s) (max_dropout = {cfg.max_dropout:.3g}). The aggregator "
        f"colluding with fewer than t of a party's neighbours learns nothing of its input "
        f"(max_corrupt = {cfg.max_corrupt:.3g}).",
        "Private inputs (printed only because this is a classroom):",
        *vote_lines(x, answers),
    ]
    titles = {
        "keys": "Round 1 - keys and the draw: every party advertises two public keys, a commitment "
                "to its self-mask seed b and one to a random contribution r; once all are fixed, "
                "it reveals r, and every r together seeds the graph and the committee",
        "shares": "Round 2 - secret shares: every party Shamir-shares its mask key and b among its "
                  "neighbours, encrypted for each",
        "masked": "Round 3 - masked inputs: y = x + PRG(b) + pairwise masks (mod R)",
        "consistency": "Round 4 - consistency check: the consistency committee (everyone, in a small "
                       "class) signs the survivor set it was shown; nobody reveals a share before a "
                       "quorum of the committee signed the same set",
        "unmask": "Round 5 - unmasking: the survivors reveal the shares needed to remove the masks",
        "result": "Result - the aggregator removes the masks and announces the count",
    }  # fmt: skip
    kinds = {
        "AdvertiseKeys": "keys", "DrawCommitted": "keys", "DrawReveal": "keys", "NeighborKeys": "keys",
        "EncryptedShares": "shares",
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
            return [("c_pk", short_hex(m.c_pk)), ("s_pk", short_hex(m.s_pk)), ("SHA-256(b)", short_hex(m.b_commit)),
                    ("commitment to r", short_hex(m.draw_commit))]  # fmt: skip
        if isinstance(m, secagg.DrawCommitted):
            return [("digest of every commitment to r", short_hex(m.digest))]
        if isinstance(m, secagg.DrawReveal):
            return [("its contribution r", short_hex(m.reveal))]
        if isinstance(m, secagg.NeighborKeys):
            return [("every r", f"{len(m.reveals) // 32} x 32 B (the seed of the graph and the committee)"),
                    ("neighbours", ids(m.ids)), ("their public keys", f"{m.ids.shape[0]} x (c_pk, s_pk)")]  # fmt: skip
        if isinstance(m, secagg.EncryptedShares):
            k = m.recipients.shape[0]
            return [("for", ids(m.recipients)),
                    ("ciphertexts", f"{k} x {CIPHERTEXT_LEN} B AES-256-GCM (the aggregator cannot read them)")]  # fmt: skip
        if isinstance(m, secagg.ForwardedShares):
            return [("from", ids(m.senders)), ("ciphertexts", f"{m.senders.shape[0]} x {CIPHERTEXT_LEN} B")]
        if isinstance(m, secagg.ShareComplaint):
            return [("shares that do not open, from", ids(m.senders))]
        if isinstance(m, secagg.ShareProofs):
            return [("the senders' signatures and signed batches, for", ids(m.senders))]
        if isinstance(m, secagg.MaskedInput):
            return [(f"y_{s.src} (mod {R})", vec(m.y.to_numpy()))]
        if isinstance(m, secagg.SurvivorSet):
            return [("survivors", _members(m.survivors, n))]
        if isinstance(m, secagg.ConsistencySig):
            return [("signature on the set it was shown", f"{len(m.signature)} B")]
        if isinstance(m, secagg.UnmaskRequest):
            return [("survivors", _members(m.survivors, n)), ("set signed by", _members(m.signers, n))]
        if isinstance(m, secagg.UnmaskShares):
            return [("shares of b of", ids(m.b_owners)), ("shares of the mask key of", ids(m.s_owners))]
        if isinstance(m, secagg.Aggregate):
            return [("count", vec(m.total.to_numpy())), ("inputs included", str(m.n_included))]
        if isinstance(m, secagg.SecAggAbort):
            return [("reason", m.reason)]
        return []

    def self_mask(c: secagg.SecAggClient) -> np.ndarray:
        """PRG(b_u), as P_u's role added it."""
        return c.masks()[0].astype(np.int64)

    def pair_masks(c: secagg.SecAggClient) -> np.ndarray:
        """sum_v sign(u, v) PRG(s_uv), as P_u's role added it."""
        return c.masks()[1].astype(np.int64)

    def notes(key: str, ctx: Context) -> list[Note]:
        out: list[Note] = []
        everyone = tuple(range(1, n + 1))
        if key == "keys":
            out.append((
                "Each party made two X25519 key pairs: c (to encrypt shares for a neighbour) and s "
                "(to agree a pairwise mask key s_uv with each neighbour), and committed to a random "
                "self-mask seed b. Each also committed to 32 random bytes r and revealed them only "
                "once every commitment was fixed: the hash of all of them is the run's seed, which "
                "no one (not the aggregator, not a group of colluders) could choose or predict, and "
                "the neighbour graph and the committee are drawn from it. The aggregator forwards "
                "each party every r and its live neighbours' keys.",
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
                c = inner_role(ctx.roles[u])
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
            sy = vsum((s.msg.y.to_numpy() for s in ctx.of_type("MaskedInput")  # type: ignore[attr-defined]
                        if s.delivered and s.src in included), options) % R  # fmt: skip
            clients = [c for c in (inner_role(ctx.roles[u]) for u in included) if isinstance(c, secagg.SecAggClient)]
            selfs = vsum((self_mask(c) for c in clients), options) % R
            left = vsum((pair_masks(c) for c in clients), options) % R
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
            from scenarios.classroom.cheats import caught

            return caught(ctx, cheat, n, x)
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
            if r.error is None and r.done and not crashed(r):
                same &= np.array_equal(r.result.total, plain)
        lines.append("every surviving party received the same count" if same else "a party got another count")
        return lines, bool(same)

    return Lesson(
        protocol="secagg", title=f"SecAgg+ secure sum, {n} parties, {options} options", seed=seed,
        roles=roles, participants=names(n, "Agg"), setup=setup, rounds=rounds,
        describe=describe, notes=notes, check=check,
        diagrams=[secagg.SecAggClient, secagg.SecAggServer], drops=drops,
        extra={"modulus": R, "inputs": x.tolist(), "params": params},
    )  # fmt: skip


def _members(bits: bytes, n: int) -> str:
    members = read_bitmap(bits, n)
    return "?" if members is None else "P" + ", P".join(map(str, np.flatnonzero(members).tolist()))
