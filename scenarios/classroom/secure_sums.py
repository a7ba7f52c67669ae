"""Classroom lessons for the paper's full mesh (Sec. 4.2): all-to-all and through the board.

The class takes a poll (:mod:`scenarios.classroom.poll`): each data party votes for one of
``options`` answers, and the secure sum counts the votes without anyone seeing a single vote.
SecAgg+'s lesson: :mod:`scenarios.classroom.secagg_lesson`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import Role
from mpc_rr.secure_sum import full_mesh, step_messages
from mpc_rr.secure_sum.full_mesh._messages import KEY_LEN, open_share
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

__all__ = ["board_lesson", "full_mesh_lesson", "poll_inputs"]


def full_mesh_lesson(
    n: int, *, seed: int, options: int | Sequence[str] = 4, publication: str = "all-to-all",
    drops: dict[int, str] | None = None,
) -> Lesson:  # fmt: skip
    """The Sec. 4.2 secure sum mod ``m = n + 1`` of ``n`` one-hot votes."""
    drops = drops or {}
    answers = labels(options)  # the labels given, or A, B, ... for a count
    options = len(answers)
    x = poll_inputs(n, options, seed)
    m = n + 1
    run = f"classroom-full-mesh-{seed}"
    pub: full_mesh.Publication = "board" if publication == "board" else "all-to-all"
    roles = full_mesh.full_mesh_roles(x, publication=pub, entropy=entropies(seed), run=run)
    roles = drop_roles(roles, drops, step_messages("full-mesh"))
    setup = [
        f"{n} parties P1..P{n} each vote for one of the options {', '.join(answers)}; the "
        f"vote is a one-hot vector x_i. The secure sum counts the votes per option without anyone "
        f"seeing a vote (Domingo-Ferrer & Soria-Comas, Sec. 4.2).",
        f"Arithmetic mod m = n + 1 = {m}: a count is at most n < m, so the sum mod m is the exact count.",
        "Private inputs (printed only because this is a classroom):",
        *vote_lines(x, answers),
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
        sender = inner_role(roles[src])
        if not isinstance(sender, full_mesh.FullMeshParty):
            return src, dst, None
        key, pks = sender.share_key_bytes(), sender.public_keys
        if key is None or dst not in pks:
            return src, dst, None
        plain = open_share(key, pks[dst], msg.ciphertext, run=run, sender=src, receiver=dst)
        return src, dst, np.frombuffer(plain, sender.wire_dtype).astype(np.int64)

    def describe(s: Sent) -> list[tuple[str, str]]:
        msg = s.msg
        if isinstance(msg, full_mesh.MeshKey):
            return [("public key", short_hex(msg.pk))]
        if isinstance(msg, full_mesh.MeshKeys):
            return [("public keys", f"P1..P{n}, {n} x {KEY_LEN} B")]
        if isinstance(msg, full_mesh.MeshShare):
            src, dst, r = opened(s)
            return [
                ("ciphertext", f"{len(msg.ciphertext)} B AES-256-GCM {short_hex(msg.ciphertext, 6)}"),
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
                if crashed(role) and not any(src == i for src, _ in sh):
                    continue
                inner = inner_role(role)
                assert isinstance(inner, full_mesh.FullMeshParty)
                # what P_i kept: its accumulator minus the shares it received
                if inner.state.name in ("KEYS", "SHARING"):  # it never had all its shares
                    continue
                got = vsum((sh[(k, i)] for k in range(1, n + 1) if (k, i) in sh), options)
                kept = (inner.accumulator.astype(np.int64) - got) % m
                if any((i, j) not in sh for j in range(1, n + 1) if j != i):
                    continue
                total = (kept + vsum((sh[(i, j)] for j in range(1, n + 1) if j != i), options)) % m
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
                inner = inner_role(ctx.roles[j])
                assert isinstance(inner, full_mesh.FullMeshParty)
                received = vsum((sh[(i, j)] for i in range(1, n + 1) if (i, j) in sh), options)
                kept = (inner.accumulator.astype(np.int64) - received) % m
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
                s = vsum(pubs.values(), options) % m
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
            if crashed(role):
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
        seed=seed, roles=roles, participants=names(n, "Board" if pub == "board" else None),
        setup=setup, rounds=rounds, describe=describe, notes=notes, check=check,
        diagrams=diagrams, drops=drops,
        extra={"modulus": m, "inputs": x.tolist(), "publication": pub},
    )  # fmt: skip


# -- SecAgg+ ---------------------------------------------------------------------------------


def board_lesson(
    n: int, *, seed: int, options: int | Sequence[str] = 4, drops: dict[int, str] | None = None
) -> Lesson:
    """The Sec. 4.2 secure sum with publication through the bulletin board (``full-mesh-board``)."""
    return full_mesh_lesson(n, seed=seed, options=options, publication="board", drops=drops)
