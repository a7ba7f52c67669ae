"""Real runs of every registered protocol, small and seeded: the messages that seed the decoders'
corpora and the valid prefixes the role targets drive a role through.

Each :class:`Run` builds the same roles every time (inputs, noise and secrets from seeds:
:class:`~mpc_rr.secure_sum.SeededEntropy`), so a role rebuilt and fed the messages it received
in the recorded run reaches the state it had there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from mpc_rr.core import COORDINATOR, DropPlan, HarnessRunner, Message, Role
from mpc_rr.core._registry import get_protocol, protocols
from mpc_rr.core._runs import SpecPlan
from mpc_rr.secure_sum._entropy import SeededEntropy
from mpc_rr.secure_sum._identity import use_simulation_secret
from mpc_rr.secure_sum._plan import SecureSumPlan
from mpc_rr.secure_sum._protocol import SumProtocol
from mpc_rr.secure_sum.testing import kit_inputs

FUZZ_SECRET = bytes(range(100, 132))
"""The simulated PKI's secret in a fuzzing process (:func:`reproducible`)."""


def reproducible() -> None:
    """Make this process's runs the same in every process: the simulated PKI's long-term keys
    from :data:`FUZZ_SECRET` instead of the OS (everything else a run draws is seeded), so an
    input found by one fuzzing process replays in another.  Only for a process of its own
    (``python -m tests.fuzz.run``): it changes every simulated party's key in the process."""
    use_simulation_secret(FUZZ_SECRET)


@dataclass(frozen=True)
class Delivery:
    src: int
    dst: int
    data: bytes


@dataclass(frozen=True)
class Run:
    """One protocol's small run: ``build()`` its roles; ``faulty()`` the same run's plans with a
    party crashing at each step (their transcripts hold the abort and complaint messages)."""

    name: str
    build: Callable[[], dict[int, Role]]
    message_types: tuple[type[Message], ...]
    faulty: Callable[[], list[dict[int, Role]]] = lambda: []


def _sum_run(proto: SumProtocol) -> Run:
    n, cells, seed = 4, 3, 2

    def plan() -> SecureSumPlan:
        return SecureSumPlan(proto, kit_inputs(n, cells, seed), run=f"fuzz-{proto.name}",
                             entropy=SeededEntropy(seed).spawn)  # fmt: skip

    def faulty() -> list[dict[int, Role]]:
        out = []
        for point in proto.step_messages().values():
            out.append(DropPlan(plan(), {n: point}).build())  # within the bound
            out.append(DropPlan(plan(), dict.fromkeys(range(2, n + 1), point)).build())  # beyond it
        return out

    def build() -> dict[int, Role]:
        p = plan()
        roles = p.build()
        if COORDINATOR in roles:  # a plan gives party 0 the OS's entropy; here its seeds too
            roles[COORDINATOR] = proto.role(COORDINATOR, p.public(), None, entropy=SeededEntropy(seed).spawn(0))
        return roles

    return Run(proto.name, build, tuple(proto.message_types()), faulty)


def _spec_run(name: str, n: int, params: dict[str, object]) -> Run:
    spec = get_protocol(name)
    return Run(name, lambda: SpecPlan(spec, n + 1, 3, params).build(), tuple(spec.message_types()))


@cache
def runs() -> dict[str, Run]:
    """Every registered protocol's run, by protocol name (derived from the registry)."""
    out: dict[str, Run] = {}
    for spec in protocols():
        if isinstance(spec, SumProtocol):
            out[spec.name] = _sum_run(spec)
    out.update(_collection_runs())
    return out


def _collection_runs() -> dict[str, Run]:
    """The two collection protocols built on the sums (their families, not their names)."""
    out: dict[str, Run] = {}
    for spec in protocols():
        if spec.family == "rrba":
            out[spec.name] = _spec_run(spec.name, 6, {"schema": "survey", "block": 3, "p": 0.5,
                                                      "noise": "seeded"})  # fmt: skip
        elif spec.family == "pipeline":
            out[spec.name] = _pipeline_run(spec.name)
    return out


def _pipeline_run(name: str) -> Run:
    from mpc_rr.data import Attribute, Schema
    from mpc_rr.pipeline import PipelineConfig, pipeline_roles
    from mpc_rr.pipeline import _signing as signing

    schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")),
                     Attribute("c", ("0", "1"), ordinal=True)))  # fmt: skip
    key = signing.new_signing_key(bytes(range(32)))
    n = 5
    config = PipelineConfig(schema=schema, n=n, p=0.8, tv=12, td=0.2, dependence="secure-sum",
                            coordinator_key=signing.public_bytes(key), min_parties=2)  # fmt: skip
    records = np.random.default_rng(0).integers(0, 2, (n, 3))

    def build() -> dict[int, Role]:
        return pipeline_roles(config, records, 7, key, sum_entropy=SeededEntropy(7).spawn)

    types = tuple(dict.fromkeys(t for r in build().values() for t in r.message_types))
    return Run(name, build, types)


def deliveries(roles: dict[int, Role]) -> list[Delivery]:
    """Every message of a harness run of ``roles``, as encoded, in delivery order (the
    harness's default delivery is one FIFO queue: the order messages were sent)."""
    res = HarnessRunner(transcript=True)(roles)
    assert res.transcript is not None
    return [Delivery(e.src, e.dst, bytes(e.data)) for e in res.transcript.events if e.delivered]
