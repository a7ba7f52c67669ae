"""Registry specs of the secure sums for one-OS-process-per-party runs.

``parties.registry.BUILTIN`` points ``secagg`` and ``full-mesh-board`` here;
the role factories live in :mod:`mpc_rr.secure_sum.factories`, this module only
adds the JSON form of a :class:`~mpc_rr.secure_sum.common.SumResult`.
"""

from __future__ import annotations

from typing import Any

from mpc_rr.secure_sum.common import SumResult
from mpc_rr.secure_sum.factories import make_board_role, make_secagg_role
from parties.registry import ProtocolSpec

__all__ = ["BOARD", "SECAGG", "result_to_json"]


def result_to_json(result: Any) -> Any:
    if isinstance(result, SumResult):
        return {
            "total": result.total.tolist(),
            "n_included": result.n_included,
            "included": list(result.included),
            "modulus": result.modulus,
        }
    return result


SECAGG = ProtocolSpec("secagg", make_secagg_role, result_to_json)
BOARD = ProtocolSpec("full-mesh-board", make_board_role, result_to_json)
