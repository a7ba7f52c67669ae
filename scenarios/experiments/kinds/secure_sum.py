"""Scenario kind ``secure-sum``: a secure sum of random one-hot vectors, checked against the plain sum.

As ``mpc-rr secure-sum``, with any registered sum protocol (``protocol``):
``parties`` data parties each hold a one-hot vector over ``cells`` (drawn
with the run's seed); ``dropout`` of them (chosen with the seed) crash when
they would send their ``drop_step`` message.  The protocol's options are the
flat SecAgg+ fields below or an ``options`` table (``[protocol.options]``,
any protocol's), checked against the protocol's spec.  ``completed`` is whether the run produced a sum; ``exact`` whether
it equals the plaintext sum of the included parties.  SecAgg+'s
``max_dropout`` (default 0.1) is independent of ``dropout``, so a sweep past
it shows the clean aborts; ``max_corrupt`` (default 0.1) is the fraction of
parties that may collude with the server (the threshold exceeds what they
hold of any neighbourhood; the degree grows until both bounds hold).  Keys, shares and masks come from the OS CSPRNG
(only the inputs and the victims derive from the seed).  ``wall_s`` is the
runner's whole call (over TCP: keys and handshakes included).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from mpc_rr.secure_sum import DEFAULT_SUM
from parties.cli_args import DEFAULT_STEP_TIMEOUT
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["SecureSumParams"]


class SecureSumParams(
    msgspec.Struct, tag="secure-sum", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    protocol: str = DEFAULT_SUM  # a registered sum protocol (checked with the point)
    parties: Annotated[int, Meta(ge=2)] = 100
    cells: Annotated[int, Meta(ge=1)] = 16
    transport: Literal["harness", "memory", "tcp"] = "memory"
    network: str | None = None  # lan|wan|mobile|FILE.toml: priced on it (transport memory)
    step_timeout: Annotated[float, Meta(gt=0)] = DEFAULT_STEP_TIMEOUT
    dropout: Annotated[float, Meta(ge=0, lt=1)] = 0.0
    drop_step: str | None = None  # one of the protocol's steps
    max_dropout: Annotated[float, Meta(ge=0, lt=1)] | None = None
    max_corrupt: Annotated[float, Meta(ge=0, lt=1)] | None = None
    degree: Annotated[int, Meta(ge=1)] | None = None
    threshold: Annotated[int, Meta(ge=1)] | None = None
    failure: Annotated[float, Meta(gt=0, lt=1)] | None = None
    options: dict[str, float | int | bool | str] = msgspec.field(default_factory=dict)

    def sum_options(self) -> dict[str, Any]:
        """The protocol's options given: the flat SecAgg+ fields, then the ``options`` table."""
        flat = {k: getattr(self, k) for k in ("max_dropout", "max_corrupt", "degree", "threshold", "failure")}
        return {k: v for k, v in {**flat, **self.options}.items() if v is not None}


METRICS: tuple[str, ...] = (
    "completed", "exact", "survivors", "inputs_in_sum", "dropped", "dropout", "messages", "bytes", "rounds",
    "wall_s", "bytes_per_party", "messages_per_party", "tcp_handshakes", "tcp_handshake_s",
    "degree", "threshold", "max_dropped", "network_s", "projected_wall_s",
)  # fmt: skip



def _sum_protocols() -> tuple[str, ...]:
    from mpc_rr.secure_sum import sum_protocol_names

    return sum_protocol_names()


def check(prm: SecureSumParams, source: Any) -> None:
    from mpc_rr.secure_sum import memory_estimate, sum_options, sum_protocol
    from parties.pricing import scenario_runner

    scenario_runner(prm.network, prm.transport, 0)  # an unknown profile or transport refused here
    spec = sum_protocol(prm.protocol)
    options = sum_options(prm.protocol, prm.sum_options())
    if prm.drop_step is not None and prm.drop_step not in spec.steps:
        raise UsageError(
            f"drop_step of {prm.protocol} must be one of {list(spec.steps)}, got {prm.drop_step!r}"
        )
    degree = getattr(options, "degree", None)
    if degree is not None and degree > prm.parties - 1:
        raise UsageError(f"degree must be at most parties - 1 = {prm.parties - 1}, got {degree}")
    need = memory_estimate(prm.protocol, prm.parties, prm.cells, prm.sum_options())
    if need > 8 * 2**30:
        raise UsageError(
            f"{prm.protocol} with {prm.parties:,} parties x {prm.cells:,} cells needs about "
            f"{need / 2**30:.1f} GiB; use fewer parties or cells"
        )


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.workflows import run_secure_sum
    from parties.runners import runner_for

    prm: SecureSumParams = ctx.params
    rng = np.random.default_rng(np.random.SeedSequence([ctx.seed, 0x5EC]))
    x = np.zeros((prm.parties, prm.cells), np.uint8)
    x[np.arange(prm.parties), rng.integers(0, prm.cells, prm.parties)] = 1
    from parties.pricing import network_metrics, scenario_runner

    priced = scenario_runner(prm.network, prm.transport, ctx.seed, step_timeout=prm.step_timeout)
    rep = run_secure_sum(
        prm.protocol, x, seed=ctx.seed % 2**32, dropout=prm.dropout, drop_step=prm.drop_step,
        options=prm.sum_options(), one_hot_blocks=(prm.cells,),  # one-hot inputs: prio3 proves it
        runner=priced or runner_for(prm.transport, step_timeout=prm.step_timeout),
    )  # fmt: skip
    doc = rep.to_json()
    if priced is not None:
        doc["network"] = priced.summary()
    cost = doc["cost"]
    dp = cost["data_parties"]["mean"]
    metrics: dict[str, Scalar] = {
        "completed": rep.aborted is None, "exact": rep.exact, "survivors": rep.survivors, "inputs_in_sum": rep.inputs_in_sum,
        "dropped": len(rep.dropped), "dropout": prm.dropout, "messages": rep.costs.messages,
        "bytes": rep.costs.bytes, "rounds": rep.costs.rounds, "wall_s": rep.params["wall_s"],
        "bytes_per_party": dp["bytes_sent"], "messages_per_party": dp["messages_sent"],
        "tcp_handshakes": cost.get("handshakes"), "tcp_handshake_s": cost.get("handshake_s"),
        "degree": rep.params.get("degree"), "threshold": rep.params.get("threshold"),
        "max_dropped": rep.params.get("max_dropped"), **network_metrics(priced),
    }  # fmt: skip
    return Outcome("ok" if rep.aborted is None else "aborted", metrics, doc)


register(
    Kind(
        name="secure-sum",
        params=SecureSumParams,
        run=run,
        metrics=METRICS,
        default_metrics=("completed", "exact", "survivors", "messages", "bytes", "wall_s"),
        data="none",
        check=check,
        summary="a secure sum (any registered sum protocol) of random one-hot vectors vs the plaintext sum",
        choices={"protocol": _sum_protocols},
    )
)
