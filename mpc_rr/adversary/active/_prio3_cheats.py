"""A cheating Prio3 leader: isolating one client's report, or filling the batch with made-up ones.

Prio3's leader (party 0) relays every report to the helper and sees the total.
If it could make that total cover a single honest report, it would learn that
client's input, validity proofs or not.  Two ways (DAP, draft-ietf-ppm-dap,
Sec. 4.1 ``min_batch_size`` and its Sybil caveat):

* ``isolate`` (:class:`IsolatingLeader`): keep only the target's report, leave
  every other out as if its client had dropped;
* ``forge-shares`` (:class:`ForgingLeader`): keep the target's report and add
  reports it made up for every other client id, each a valid sharing of zeros
  sealed to the pinned helper key (the leader has all it needs but the
  client's signing key), so the batch looks full.

Our helper releases its aggregate share only over at least the run's minimum
batch of accepted reports, each signed by its roster client
(:class:`~mpc_rr.secure_sum.prio3.Prio3Client`): ``isolate`` meets a refusal
(the helper cannot tell an omission from dropouts, so it names nobody: the
attack is stopped, not attributed -- the same as DAP), ``forge-shares`` a
refusal naming the leader (a report its client did not sign).  The broken
variant :class:`UncheckedHelper` checks neither, and both attacks recover the
target's input exactly.  :func:`prio3_cheat` plays them over seeded trials.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from mpc_rr.adversary.active._cheat_runs import CheatReport, in_process
from mpc_rr.core import COORDINATOR, HarnessRunner, Role, Runner, Send, UsageError
from mpc_rr.core._roles import broadcast
from mpc_rr.secure_sum import Identity, SeededEntropy, simulated_pki
from mpc_rr.secure_sum.prio3 import SPEC as PRIO3
from mpc_rr.secure_sum.prio3 import Prio3Client, Prio3Leader, Prio3Options, Report
from mpc_rr.secure_sum.prio3._roles import public

__all__ = ["PRIO3_CHEATS", "prio3_cheat"]

PRIO3_CHEATS = {"isolate": "server", "forge-shares": "server"}
"""The strategies a cheating Prio3 leader plays, and their side."""

TARGET = 2
"""The client whose input the leader tries to isolate (not the helper, party 1)."""


class UncheckedHelper(Prio3Client):
    """Broken variant: a helper that checks no client signature and releases its aggregate
    share over any number of reports (DAP without a minimum batch, unsigned reports)."""

    def _below_min_batch(self) -> bool:
        return False

    def _unsigned(self, ids: list[int], msg: Any) -> int | None:
        return None


class IsolatingLeader(Prio3Leader):
    """Sends the helper the target's report alone; the rest are 'dropouts'."""

    def __init__(self, *args: Any, target: int = TARGET, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.target = target
        self.learned: dict[int, np.ndarray] = {}  # what the total told it, by client

    def _start_jobs(self) -> list[Send]:
        self._keep_only_target()
        return self._send_jobs()

    def _keep_only_target(self) -> None:
        self._reports = {self.target: self._reports[self.target]}
        self._digests = {self.target: self._digests[self.target]}

    def _finish_total(self, src: int, agg_share: bytes) -> list[Send]:
        sends = super()._finish_total(src, agg_share)
        if not (self.done and self.error is None):
            return sends
        self.learned[self.target] = np.asarray(self.result.total)  # the target's report alone: its input
        # and every client gets the total as if it were included (none waits, none complains)
        return broadcast(range(1, self.pub.n + 1), sends[0].msg)


class ForgingLeader(IsolatingLeader):
    """Keeps the target's report and makes up a zero report for every other client id,
    signed with its own key (it holds no client's): a full batch that sums to the target."""

    def __init__(self, *args: Any, forger: Identity, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forger = forger

    def _start_jobs(self) -> list[Send]:
        self._keep_only_target()
        pub = self.pub
        zeros = np.zeros(pub.cells, np.int64)
        for j in range(1, pub.n + 1):
            if j == self.target:
                continue
            fake = Prio3Client(j, pub, zeros, entropy=self.entropy,
                               identity=Identity(j, self.forger.key, self.forger.roster))  # fmt: skip
            report = fake._report(pub.helper_pk).msg
            assert isinstance(report, Report)
            self._reports[j] = report
            self._digests[j] = hashlib.sha256(report.leader_share).digest()
        return self._send_jobs()


def prio3_cheat(strategy: str, *, broken: bool, n: int = 8, cells: int = 4, seed: int = 0,
                trials: int = 5, runner: Runner | None = None) -> CheatReport:  # fmt: skip
    """``strategy`` (:data:`PRIO3_CHEATS`) by the leader over ``trials`` seeded runs, against our
    helper or the broken :class:`UncheckedHelper`, each run by ``runner`` (default the harness;
    any runner that runs the roles in this process).

    ``detections`` counts the trials an honest party stopped the attack (the helper's refusal);
    ``culprits`` whom the honest parties named (``isolate``: nobody -- an omission looks like
    dropouts; ``forge-shares``: the leader); ``inputs_recovered``: the target's input learned
    exactly, one target per trial.
    """
    if strategy not in PRIO3_CHEATS:
        raise UsageError(f"--protocol prio3 plays {', '.join(PRIO3_CHEATS)}, not {strategy!r} (a substituted "
                         f"helper key is refused by every client: the key is pinned in the run's public "
                         f"parameters; a client cheats with an invalid input: mpc-rr attack poison)")  # fmt: skip
    in_process(runner, "prio3_cheat")
    if n < 3 or trials < 1:
        raise UsageError(f"prio3_cheat: need n >= 3 clients and trials >= 1, got n={n}, trials={trials}")
    rng = np.random.default_rng(seed)
    detections = recovered = wrong = completed = 0
    culprits: set[int] = set()
    for trial in range(trials):
        run = f"prio3-cheat-{seed}-{trial}"
        ids = simulated_pki(range(n + 1), SeededEntropy(seed, f"prio3-pki-{trial}"))
        x = rng.integers(0, 2, (n, cells))
        pub = public(n, cells, run=run, options=Prio3Options())
        kw: dict[str, Any] = {"entropy": SeededEntropy(seed, f"prio3-leader-{trial}"), "identity": ids[0]}
        leader = (ForgingLeader(pub, forger=ids[0], **kw) if strategy == "forge-shares"
                  else IsolatingLeader(pub, **kw))  # fmt: skip
        roles: dict[int, Role] = {COORDINATOR: leader}
        for j in range(1, n + 1):
            cls = UncheckedHelper if broken and j == 1 else Prio3Client
            roles[j] = cls(j, pub, x[j - 1], entropy=SeededEntropy(seed, f"prio3-{trial}-{j}"), identity=ids[j])
        (runner if runner is not None else HarnessRunner())(roles)
        clients = [roles[j] for j in range(1, n + 1)]
        helper = roles[1]
        detections += helper.error is not None
        culprits |= {c for r in clients if r.error is not None for c in r.error.culprits}
        recovered += sum(int(np.array_equal(v, x[t - 1])) for t, v in leader.learned.items())
        done = [r for r in clients if r.done and r.error is None]
        truth = x.sum(axis=0)
        wrong += sum(1 for r in done if not np.array_equal(r.result.total, truth))
        completed += len(done) == n and all(np.array_equal(r.result.total, truth) for r in done)
    notes = []
    if broken:
        notes.append("broken variant: UncheckedHelper (no minimum batch, client signatures unchecked)")
    elif strategy == "isolate":
        notes.append("the helper refuses (fewer accepted reports than the minimum batch) but names nobody: "
                     "it cannot tell the leader's omission from dropouts (DAP has the same limit)")  # fmt: skip
    return CheatReport(
        protocol=PRIO3.name, strategy=strategy, side="server", variant="broken" if broken else "ours",
        trials=trials, n=n, detected=detections == trials, detections=detections,
        culprits=tuple(sorted(culprits)), culprit_named=COORDINATOR in culprits,
        honest_blamed=tuple(sorted(culprits - {COORDINATOR})), inputs_recovered=recovered, inputs_total=trials,
        baseline=round(trials * 0.5**cells, 3), wrong_totals=wrong, completed=completed, notes=tuple(notes),
    )  # fmt: skip
