"""Plaintext sum through a hub: the reference protocol (no privacy) that proves the runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "SPEC",
    "PlainPublic",
    "PlainSumClient",
    "PlainSumHub",
    "PlainSumOptions",
    "PlainSumProtocol",
    "PlainTotal",
    "PlainValue",
    "expected_total",
    "make_role",
]

_HOME = {
    "PlainPublic": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumClient": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumHub": "mpc_rr.secure_sum.plainsum._roles",
    "PlainTotal": "mpc_rr.secure_sum.plainsum._roles",
    "PlainValue": "mpc_rr.secure_sum.plainsum._roles",
    "expected_total": "mpc_rr.secure_sum.plainsum._roles",
    "make_role": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumOptions": "mpc_rr.secure_sum.plainsum._spec",
    "PlainSumProtocol": "mpc_rr.secure_sum.plainsum._spec",
    "SPEC": "mpc_rr.secure_sum.plainsum._spec",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.plainsum._roles import (
        PlainPublic,
        PlainSumClient,
        PlainSumHub,
        PlainTotal,
        PlainValue,
        expected_total,
        make_role,
    )
    from mpc_rr.secure_sum.plainsum._spec import (
        SPEC,
        PlainSumOptions,
        PlainSumProtocol,
    )
