"""The plaintext sum as a registered sum protocol (import-light): the no-privacy reference."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from mpc_rr.core import lazy
from mpc_rr.secure_sum._family import SumSpec

__all__ = ["SPEC", "PlainSumOptions"]

_HERE = "mpc_rr.secure_sum.plainsum._roles"


class PlainSumOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The plaintext sum's one option."""

    proceed_on_timeout: Annotated[
        bool, Meta(description="at its deadline the hub sums the clients that answered (else it aborts)")
    ] = False


SPEC = SumSpec(
    name="plainsum",
    summary="plaintext sum through a hub: no privacy at all (the reference every other sum is measured against)",
    steps=("value",),
    options=PlainSumOptions,
    make_role=lazy(f"{_HERE}:make_role"),  # its own input recipe (random integers, ping)
    public=lazy(f"{_HERE}:public"),
    role=lazy(f"{_HERE}:role"),
    messages=lazy(f"{_HERE}:messages"),
    step_messages=lazy(f"{_HERE}:step_messages"),
    message_count=lazy(f"{_HERE}:message_count"),
    memory_estimate=lazy(f"{_HERE}:memory_estimate"),
    run_label="",
    hides_inputs=False,
    hooks={"offline": "mpc_rr.adversary:plainsum_offline", "recover": "mpc_rr.adversary:recover_plainsum", "plants": "mpc_rr.adversary:PLAINSUM_PLANTS"},
)
