"""What SecAgg+'s aggregator forwards, built from its ledger
(:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`): each live party's
:class:`NeighborKeys` (step 0) and :class:`ForwardedShares` (step 1).  Vectorized over
parties: the bytes of every message are slices of one array."""

from __future__ import annotations

import numpy as np

from mpc_rr.core import Send, WireArray
from mpc_rr.secure_sum.secagg._draw import ServerDraw
from mpc_rr.secure_sum.secagg._ledger import ServerLedger
from mpc_rr.secure_sum.secagg._messages import (
    CIPHERTEXT_LEN,
    COMMITMENT_LEN,
    IDS,
    CommittedForwardedShares,
    ForwardedShares,
    NeighborKeys,
)

__all__ = ["forwarded_shares", "neighbor_keys"]


def neighbor_keys(ledger: ServerLedger, run: str, drawn: ServerDraw) -> list[Send]:
    """To each live party its live neighbours' signed keys and the draw; records the ids
    each was sent in ``ledger.sent_ids``."""
    alive = ledger.alive
    out: list[Send] = []
    live = np.flatnonzero(alive)
    rows = ledger.drawn_graph().neighbors[live]  # (L, k): every live party's graph neighbours
    ok = alive[rows]
    full = ok.all(axis=1).tolist()
    ids32 = rows.astype(IDS)
    c_pks, s_pks, commits = ledger.c_pk[rows], ledger.s_pk[rows], ledger.commit[rows]  # (L, k, 32)
    key_sigs, draw_sigs = ledger.key_sigs, drawn.draw_signatures
    for i, u in enumerate(live.tolist()):
        if full[i]:  # the common case: no neighbour dropped, send the rows as they are
            ids, i32, c, s, b = rows[i], ids32[i], c_pks[i], s_pks[i], commits[i]
        else:
            keep = ok[i]
            ids, i32 = rows[i][keep], ids32[i][keep]
            c, s, b = c_pks[i][keep], s_pks[i][keep], commits[i][keep]
        ledger.sent_ids[u] = ids
        m = ids.size
        msg = NeighborKeys(
            run=run,
            step=0,
            ids=WireArray(dtype=IDS.str, shape=(m,), data=i32.tobytes()),
            c_pks=WireArray(dtype="|u1", shape=(m, 32), data=c.tobytes()),
            s_pks=WireArray(dtype="|u1", shape=(m, 32), data=s.tobytes()),
            commits=WireArray(dtype="|u1", shape=(m, 32), data=b.tobytes()),
            signatures=[key_sigs[v] for v in ids.tolist()],
            draw_commits=WireArray(dtype="|u1", shape=(m, 32), data=ledger.draw_commit[ids].tobytes()),
            contributors=drawn.contributors,
            reveals=drawn.reveals,
            revealer_keys=drawn.revealer_keys,
            revealer_signatures=drawn.revealer_signatures,
            draw_signatures=[draw_sigs[v] for v in ids.tolist()],
        )
        out.append(Send(u, msg))
    return out


def forwarded_shares(ledger: ServerLedger, run: str) -> list[Send]:
    """To each live party the live senders' ciphertexts for it (``ledger.shares``), by
    sender; records who it was forwarded shares of in ``ledger.mask_sets``."""
    alive = ledger.alive
    cts_of = ledger.shares
    senders = sorted(u for u in cts_of if alive[u])  # ascending: see the sort below
    sent = ledger.sent_ids
    empty = np.zeros(0, np.int64)
    sizes = np.asarray([sent[u].size for u in senders], np.int64)
    snd = np.repeat(np.asarray(senders, np.int64), sizes)
    rcv = np.concatenate([sent[u] for u in senders] or [empty])
    cts = np.concatenate([cts_of[u].cts for u in senders] or [np.zeros((0, CIPHERTEXT_LEN), np.uint8)])
    verifiable = bool(senders) and cts_of[senders[0]].commitments is not None  # a retry: with commitments
    commits = np.concatenate(
        [c for u in senders if (c := cts_of[u].commitments) is not None] or [np.zeros((0, COMMITMENT_LEN), np.uint8)]
    )
    keep = alive[rcv]
    if not keep.all():
        snd, rcv, cts = snd[keep], rcv[keep], cts[keep]
        commits = commits[keep] if verifiable else commits
    # by receiver, then sender: the senders come in ascending order and each sends one
    # share per receiver, so a stable sort by receiver alone is the lexicographic order
    order = np.argsort(rcv, kind="stable")
    snd, rcv = snd[order], rcv[order]
    bounds = np.searchsorted(rcv, np.arange(ledger.n + 2)).tolist()
    snd_b = snd.astype(IDS).tobytes()
    cts_b = cts[order].data.cast("B")  # sliced into each message's bytes: one copy
    commits_b = commits[order].tobytes() if verifiable else b""
    out: list[Send] = []
    width, ids_str, w4 = CIPHERTEXT_LEN, IDS.str, IDS.itemsize
    mask_sets = ledger.mask_sets
    for v in np.flatnonzero(alive).tolist():
        lo, hi = bounds[v], bounds[v + 1]
        mask_sets[v] = snd[lo:hi]
        ids_w = WireArray(dtype=ids_str, shape=(hi - lo,), data=snd_b[w4 * lo : w4 * hi])
        cts_w = WireArray(dtype="|u1", shape=(hi - lo, width), data=bytes(cts_b[width * lo : width * hi]))
        if verifiable:
            com_w = WireArray(dtype="|u1", shape=(hi - lo, COMMITMENT_LEN), data=commits_b[64 * lo : 64 * hi])
            out.append(Send(v, CommittedForwardedShares(run=run, step=1, senders=ids_w, ciphertexts=cts_w, commitments=com_w)))
        else:
            out.append(Send(v, ForwardedShares(run=run, step=1, senders=ids_w, ciphertexts=cts_w)))
    return out
