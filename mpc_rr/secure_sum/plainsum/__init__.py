"""Plaintext sum through a hub: the reference protocol (no privacy) that proves the runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "SPEC",
    "ClientState",
    "HubState",
    "PlainPublic",
    "PlainSumClient",
    "PlainSumHub",
    "PlainSumOptions",
    "PlainSumProtocol",
    "PlainTotal",
    "PlainValue",
    "client_input",
    "expected_total",
    "make_role",
]

_HOME = {
    "PlainSumProtocol": "mpc_rr.secure_sum.plainsum._spec",
    "ClientState": "mpc_rr.secure_sum.plainsum._roles",
    "HubState": "mpc_rr.secure_sum.plainsum._roles",
    "PlainPublic": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumClient": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumHub": "mpc_rr.secure_sum.plainsum._roles",
    "PlainSumOptions": "mpc_rr.secure_sum.plainsum._spec",
    "PlainTotal": "mpc_rr.secure_sum.plainsum._roles",
    "PlainValue": "mpc_rr.secure_sum.plainsum._roles",
    "SPEC": "mpc_rr.secure_sum.plainsum._spec",
    "client_input": "mpc_rr.secure_sum.plainsum._roles",
    "expected_total": "mpc_rr.secure_sum.plainsum._roles",
    "make_role": "mpc_rr.secure_sum.plainsum._roles",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.plainsum._roles import (
        ClientState,
        HubState,
        PlainPublic,
        PlainSumClient,
        PlainSumHub,
        PlainTotal,
        PlainValue,
        client_input,
        expected_total,
        make_role,
    )
    from mpc_rr.secure_sum.plainsum._spec import (
        SPEC,
        PlainSumOptions,
        PlainSumProtocol,
    )
