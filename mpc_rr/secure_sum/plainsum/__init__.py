"""Plaintext sum through a hub: the reference protocol (no privacy) that proves the runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "ClientState",
    "HubState",
    "PlainSumClient",
    "PlainSumHub",
    "PlainTotal",
    "PlainValue",
    "client_input",
    "expected_total",
    "make_role",
]

_HOME = {
    "ClientState": "mpc_rr.secure_sum.plainsum._roles",
    "HubState": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumClient": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumHub": "mpc_rr.secure_sum.plainsum._roles",
    "PlainTotal": "mpc_rr.secure_sum.plainsum._roles",
    "PlainValue": "mpc_rr.secure_sum.plainsum._roles",
    "client_input": "mpc_rr.secure_sum.plainsum._roles",
    "expected_total": "mpc_rr.secure_sum.plainsum._roles",
    "make_role": "mpc_rr.secure_sum.plainsum._roles",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.plainsum._roles import (
        ClientState,
        HubState,
        PlainSumClient,
        PlainSumHub,
        PlainTotal,
        PlainValue,
        client_input,
        expected_total,
        make_role,
    )
