"""Public parameters read back from a recorded transcript (registered per protocol in _extensions).

An offline attack holds a saved transcript and nothing else: these rebuild
what the recovery needs of the run's public parameters from the messages
themselves (vector length, modulus, SecAgg+'s threshold from the shares seen).
"""

from __future__ import annotations

from dataclasses import dataclass

from mpc_rr.core import UsageError
from mpc_rr.core._views import View
from mpc_rr.secure_sum.full_mesh import (
    MeshPublish,
)
from mpc_rr.secure_sum.plainsum import PlainValue
from mpc_rr.secure_sum.secagg import (
    MaskedInput,
    SecAggConfig,
    UnmaskShares,
)

__all__ = ["OfflinePublic", "full_mesh_offline", "plainsum_offline", "secagg_offline"]


@dataclass(frozen=True)
class OfflinePublic:
    """What an offline attack rebuilds of a run's public parameters from its transcript."""

    cells: int | None
    n: int
    modulus: int | None = None
    config: SecAggConfig | None = None


def plainsum_offline(view: View, n: int) -> OfflinePublic:
    """A plaintext sum's transcript: the vector length of the values seen."""
    found = view.select(PlainValue)
    return OfflinePublic(int(found[0][1].x.shape[0]) if found else None, n)


def full_mesh_offline(view: View, n: int) -> OfflinePublic:
    """The full mesh: the modulus is ``n + 1`` (Sec. 4.2); the length, that of a publication."""
    found = view.select(MeshPublish)
    return OfflinePublic(int(found[0][1].value.shape[0]) if found else None, n, n + 1)


def secagg_offline(view: View, n: int) -> OfflinePublic:
    """SecAgg+: the modulus of ``n`` one-hot inputs; the threshold is not on the wire, so it is
    rebuilt from the shares seen (a polynomial of degree < t through >= t points is recovered
    exactly; fewer points fail the commitment check and are discarded)."""
    found = view.select(MaskedInput)
    if not found:
        raise UsageError("transcript holds no masked input: cannot attack SecAgg+ offline")
    cells = int(found[0][1].y.shape[0])
    modulus = max(2, 1 << n.bit_length())
    owners: dict[int, int] = {}
    for _, us in view.select(UnmaskShares):
        for o in us.b_owners.to_numpy().tolist():
            owners[int(o)] = owners.get(int(o), 0) + 1
    t = max(1, min(owners.values())) if owners else 1
    config = SecAggConfig(n, cells, modulus, n - 1, t, 0.0, run=view.run_label() or "")
    return OfflinePublic(cells, n, modulus, config)
