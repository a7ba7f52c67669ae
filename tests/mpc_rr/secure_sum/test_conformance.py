"""The conformance kit (:mod:`mpc_rr.secure_sum.testing`) over every registered sum protocol and
every runner: the harness, Party actors over the memory transport (in one process, and sharded
over 2 worker processes), and TCP with mutual TLS on the loopback.

A check that does not depend on the transport (dropouts, codecs, the observer, the inner sums)
runs on the harness alone.  The toy :mod:`.dealer_sum`, registered here and nowhere else, is
tested like the built-ins.  The sharded and TCP runners, and one process per party, are the
``-m slow`` tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import mpc_rr.adversary.testing
import mpc_rr.simulation.testing
import mpc_rr.workflows.testing  # noqa: F401  (adds the pipeline's and RRBA's inner-sum checks)
from mpc_rr.core import HarnessRunner, register_protocol, unregister_protocol
from mpc_rr.secure_sum import sum_protocol, sum_protocol_names
from mpc_rr.secure_sum.testing import Check, checks
from parties.runners import runner_for
from tests.mpc_rr.secure_sum.dealer_sum import DEALER_SUM

PROTOCOLS = tuple(sorted({*sum_protocol_names(), DEALER_SUM.name}))

RUNNERS: dict[str, Callable[[], Any]] = {
    "harness": HarnessRunner,
    "memory": lambda: runner_for("memory", step_timeout=5.0),
    "memory-sharded-2": lambda: runner_for("sharded", workers=2, step_timeout=5.0),
    "tcp-tls": lambda: runner_for("tcp", step_timeout=10.0),
}
SLOW_RUNNERS = {"memory-sharded-2", "tcp-tls"}

KNOWN_GAPS = {
    ("prio3", "dropouts-beyond-bound"): "below its minimum batch Prio3's leader aborts without naming "
    "the clients that did not report",
}


@pytest.fixture(autouse=True, scope="module")
def dealer_sum() -> Iterator[None]:
    register_protocol(DEALER_SUM, replace=True)  # the one line that adds a protocol
    yield
    unregister_protocol(DEALER_SUM.name)


def _cases() -> Iterator[Any]:
    for check in checks():
        for protocol in PROTOCOLS:
            for runner in RUNNERS if check.any_runner else ("harness",):
                marks = []
                if runner in SLOW_RUNNERS or check.slow:
                    marks.append(pytest.mark.slow)
                gap = KNOWN_GAPS.get((protocol, check.name))
                if gap is not None:
                    marks.append(pytest.mark.xfail(reason=gap, strict=True, raises=AssertionError))
                yield pytest.param(check, protocol, runner, id=f"{check.name}-{protocol}-{runner}", marks=marks)


@pytest.mark.parametrize(("check", "protocol", "runner"), list(_cases()))
def test_the_kit(check: Check, protocol: str, runner: str) -> None:
    proto = sum_protocol(protocol)
    if not check.applies(proto):
        pytest.skip(f"{check.name} does not apply to {protocol}")  # e.g. no party 0 for an inner sum
    check.run(proto, RUNNERS[runner]())


@pytest.mark.slow
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_it_deploys_one_process_per_party(protocol: str) -> None:
    from parties.procs import run_processes

    n, cells, seed = 4, 3, 6
    r = run_processes(protocol, n + 1, seed=seed, params={"cells": cells}, timeout=120, launch="fork")
    assert r.ok, r.errors
    proto = sum_protocol(protocol)
    want = sum(proto.deployment_input(i, seed, cells).astype(np.int64) for i in range(1, n + 1)).tolist()
    totals = [v["total"] for v in r.results.values() if isinstance(v, dict) and "total" in v]
    assert totals and all(t == want for t in totals), (totals, want)


def test_the_kit_catches_a_protocol_that_counts_a_party_twice() -> None:
    from mpc_rr.secure_sum import with_roles
    from mpc_rr.secure_sum.plainsum import PlainSumHub
    from mpc_rr.secure_sum.testing import check_plaintext_sum

    class DoubleHub(PlainSumHub):
        def _on_value(self, src: int, msg: Any) -> list[Any]:
            out = super()._on_value(src, msg)
            if src == 1:
                self._sum += msg.x.to_numpy(dtype=np.int64, shape=(self.cells,), sender=src)
            return out

    base = sum_protocol("plainsum")

    def role(pid: int, pub: Any, x: Any, **kw: Any) -> Any:
        return DoubleHub(pub.n, pub.cells, run=pub.run) if pid == 0 else base.role(pid, pub, x, **kw)

    with pytest.raises(AssertionError, match=r"plainsum: party 0's total"):
        check_plaintext_sum(with_roles(base, role))


@pytest.mark.parametrize(
    "argv",
    [
        ["secure-sum", "--help"],
        ["classroom", "--help"],
        ["attack", "eavesdrop", "--help"],
        ["party", "--help"],
        ["run", "--help"],
        ["rrba", "--help"],
    ],
    ids=lambda argv: " ".join(argv[:-1]),
)
def test_every_command_lists_the_registered_toy(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from scenarios.cli import main

    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    assert DEALER_SUM.name in capsys.readouterr().out
