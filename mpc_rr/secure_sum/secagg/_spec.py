"""SecAgg+ as a registered sum protocol: its options and its descriptor (import-light)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from mpc_rr.core import lazy
from mpc_rr.secure_sum._family import SumSpec

__all__ = ["SPEC", "SecAggOptions"]

_HERE = "mpc_rr.secure_sum.secagg._roles"


class SecAggOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """SecAgg+'s options (``None``: the documented default, sized from the other bounds).

    The one list of SecAgg+'s parameters: the secure-sum command's flags, the
    scenario fields and the pipeline's and RRBA's sum options all read it.
    """

    max_dropout: Annotated[
        float, Meta(ge=0, lt=1, description="tolerated fraction of parties that drop out (default 0.1)")
    ] | None = None
    max_corrupt: Annotated[
        float,
        Meta(
            ge=0, lt=1,
            description="tolerated fraction of parties colluding with the aggregator (default 0.1): "
            "the threshold exceeds what such a coalition holds of any neighbourhood, and the default "
            "degree grows until both bounds hold",
        ),
    ] | None = None  # fmt: skip
    degree: Annotated[int, Meta(ge=1, description="graph degree k (at most n-1)")] | None = None
    threshold: Annotated[int, Meta(ge=1, description="Shamir threshold t")] | None = None
    failure: Annotated[
        float, Meta(gt=0, lt=1, description="failure target of the threshold and of the consistency committee (default 1e-6)")
    ] | None = None


SPEC = SumSpec(
    name="secagg",
    summary="SecAgg+ (Bell et al. 2020): pairwise masks over a sparse graph, Shamir-shared "
    "seeds, dropouts tolerated in every step",
    steps=("keys", "shares", "masked", "consistency", "unmask"),
    options=SecAggOptions,
    public=lazy(f"{_HERE}:public"),
    role=lazy(f"{_HERE}:role"),
    messages=lazy(f"{_HERE}:messages"),
    step_messages=lazy(f"{_HERE}:step_messages"),
    message_count=lazy(f"{_HERE}:message_count"),
    party_messages=lazy(f"{_HERE}:party_messages"),
    memory_estimate=lazy(f"{_HERE}:memory_estimate"),
    fit_options=lazy(f"{_HERE}:fit_options"),
    precheck=lazy(f"{_HERE}:precheck"),
    trust=lazy("mpc_rr.secure_sum.secagg._params:trust"),
    run_label="secagg-{seed}",
    input_step="masked",
    hooks={
        "offline": "mpc_rr.adversary:secagg_offline",
        "recover": "mpc_rr.adversary:recover_secagg",
        "lesson": "scenarios.classroom.secagg_lesson:secagg_lesson",
        "plants": "mpc_rr.adversary:SECAGG_PLANTS",
        "coalition": "mpc_rr.adversary:secagg_coalition",
    },
)
