"""Prio3's aggregators as a coalition: together they recover every input, either one alone does not.

The leader holds each client's leader input share (its measurement share in
full); the helper opens each sealed helper share (a seed it expands into its
measurement share).  :func:`prio3_recover` pools the views it is given:

* leader **and** helper: the shares add up to the encoded measurement, so
  every input is recovered exactly (privacy needs one honest aggregator);
* one aggregator: its share is a uniformly random field vector whatever the
  input (additive sharing), so the best guess of a one-hot input from it -- the
  cell whose share is smallest as an integer, the guess that would be right
  if the share were the input -- is right at the chance rate ``1 / D``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["Prio3Recovery", "prio3_recover"]


@dataclass(frozen=True)
class Prio3Recovery:
    """Inputs guessed from the pooled views, and how many were right."""

    views: tuple[str, ...]
    guesses: dict[int, np.ndarray]
    exact: int
    targets: int
    chance: float

    @property
    def success(self) -> float:
        return self.exact / self.targets if self.targets else 0.0


def _shares(leader: Any, helper: Any) -> tuple[dict[int, Any], dict[int, Any]]:
    from mpc_rr.secure_sum._crypto import agree, decrypt
    from mpc_rr.secure_sum.prio3._params import seal_key

    v, ctx = leader.pub.vdaf, leader.pub.ctx
    lead, help_ = {}, {}
    m_len = v.flp.MEAS_LEN * v.field.ENCODED_SIZE
    for pid, rep in leader._reports.items():
        lead[pid] = v.field.decode_vec(rep.leader_share[:m_len])
        if helper is not None:
            key = seal_key(agree(helper._sk, rep.eph_pk), leader.run, pid)
            seed = decrypt(key, rep.sealed, rep.nonce + rep.public_share)[:32]
            help_[pid] = v.helper_meas_share(ctx, 1, seed)
    return lead, help_


def prio3_recover(
    leader: Any,
    helper: Any,
    truth: dict[int, np.ndarray],
    *,
    use_leader: bool = True,
    use_helper: bool = True,
) -> Prio3Recovery:
    """Guess every client's input from the leader's and/or the helper's view of a finished run.

    ``leader``: the run's :class:`~mpc_rr.secure_sum.prio3.Prio3Leader`;
    ``helper``: party 1's :class:`~mpc_rr.secure_sum.prio3.Prio3Client`
    (its private key opens the sealed shares); ``truth``: the inputs, scored.
    """
    if not (use_leader or use_helper):
        raise UsageError("prio3_recover needs at least one aggregator's view")
    v = leader.pub.vdaf
    lead, help_ = _shares(leader, helper if use_helper else None)
    f = v.field
    guesses: dict[int, np.ndarray] = {}
    for pid in sorted(lead):
        if use_leader and use_helper:
            enc = f.add(lead[pid], help_[pid])
            guesses[pid] = np.asarray(v.valid.decode(v.valid.truncate(enc), 1), dtype=np.int64)
        else:
            share = lead[pid] if use_leader else help_[pid]
            ints = np.asarray(f.to_ints(v.valid.truncate(share)), dtype=object)
            g = np.zeros(ints.size, np.int64)
            g[int(np.argmin(ints))] = 1
            guesses[pid] = g
    exact = sum(int(np.array_equal(guesses[p], np.asarray(truth[p]))) for p in guesses)
    cells = v.flp.OUTPUT_LEN
    views = tuple(n for n, use in (("leader", use_leader), ("helper", use_helper)) if use)
    return Prio3Recovery(views, guesses, exact, len(guesses), 1.0 / cells)
