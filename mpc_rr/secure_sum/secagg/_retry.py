"""SecAgg+'s retries: when the aggregator retries a run, and the ledger of the next attempt
-- pure functions over its ledger (:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`)
that :class:`~mpc_rr.secure_sum.secagg.SecAggServer` calls.

A retry (:class:`~mpc_rr.secure_sum.secagg._messages.SecAggRestart`) starts the run again
from the keys step under a run label bound to the attempt
(:func:`~mpc_rr.secure_sum.secagg._messages.retry_label`), with fresh secrets, without the
parties it excludes; docs/secure_aggregation.md argues what it costs and why it is safe.
"""

from __future__ import annotations

import numpy as np

from mpc_rr.core import Send
from mpc_rr.secure_sum.secagg import _unmasking
from mpc_rr.secure_sum.secagg._ledger import ServerLedger
from mpc_rr.secure_sum.secagg._messages import IDS, SecAggAbort, SecAggRestart, wire
from mpc_rr.secure_sum.secagg._params import SecAggConfig
from mpc_rr.secure_sum.secagg._unmasking import Abort, Retry, ids_text

__all__ = ["after_unmasking", "next_attempt"]


def after_unmasking(exc: Abort, attempt: int, ledger: ServerLedger, cfg: SecAggConfig, name: str) -> Abort:
    """What an unmasking that failed with ``exc`` in attempt ``attempt`` leads to: shares
    that do not rebuild what their dealers committed to are retried, first with every party
    and verifiable shares (attempt 0's shares prove nothing), then without the parties the
    verifiable shares prove cheated (:func:`._unmasking.identify`); anything else (too few
    shares: dropouts) aborts as it is."""
    if not exc.inconsistent:
        return exc
    if not attempt:
        return Retry(f"{exc}; retrying with verifiable shares", exc.culprits, (), proven=False)
    liars, dealers = _unmasking.identify(ledger, cfg)
    if not liars and not dealers:
        return exc
    why = []
    if dealers:
        why.append(f"parties {ids_text(dealers)} dealt shares that do not rebuild their committed secrets")
    if liars:
        why.append(f"parties {ids_text(liars)} revealed shares their dealers did not commit to")
    culprits = sorted(set(liars) | set(dealers))
    return Retry(f"{name}: {'; '.join(why)} (proven by their signed shares)", culprits, culprits, proven=True)


def next_attempt(old: ServerLedger, exc: Retry, old_run: str, attempt: int, step: str) -> tuple[ServerLedger, list[Send]]:
    """The ledger of attempt ``attempt`` (fresh; the dropped, the culprits and the late count
    carried over, ``exc.excluded`` dropped -- and culprits if ``exc.proven``) and the messages
    that begin it: every party live in ``old`` is told under the label it knows, ``old_run``
    (:class:`SecAggRestart`), the excluded told to stop (:class:`SecAggAbort`)."""
    told = np.flatnonzero(old.alive).tolist()
    led = ServerLedger.for_run(old.n, old.cells)
    led.alive[:] = old.alive
    led.dropped, led.culprits, led.late = dict(old.dropped), list(old.culprits), old.late
    for u in exc.excluded:
        if exc.proven and u not in led.culprits:
            led.culprits.append(u)
        if led.alive[u]:
            led.alive[u] = False
            led.dropped[u] = f"excluded at {step} of attempt {attempt - 1}"
    led.expect = set(np.flatnonzero(led.alive).tolist())
    ids = wire(np.asarray(exc.excluded, np.int64), IDS)
    restart = SecAggRestart(run=old_run, step=8, attempt=attempt, excluded=ids, reason=str(exc)[:4096])
    stop = SecAggAbort(run=old_run, step=9, reason=f"excluded from the retry: {exc}")
    out = set(exc.excluded)
    return led, [Send(int(u), stop if u in out else restart) for u in told]
