"""Prio3's ``auto`` circuit on one-hot counts proves one-hotness: an all-ones report is rejected.

SumVec (every cell in [0, 1]) accepts a vector of all ones -- one client adds 1 to every
count; the one-hot circuits ``auto`` picks for inputs its caller declares one-hot (Histogram,
or one block per attribute pair: ``SumProtocol.one_hot_options``, what the secure-sum command, the
pipeline, RRBA and the adversary's runs declare) reject it and name its sender.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, HarnessRunner
from mpc_rr.secure_sum import SecureSumPlan, sum_protocol
from mpc_rr.secure_sum.prio3 import Prio3Client
from mpc_rr.workflows import run_secure_sum

N, CELLS = 8, 6


def _one_hot(rng: np.random.Generator, n: int, blocks: tuple[int, ...]) -> np.ndarray:
    x = np.zeros((n, sum(blocks)), np.uint8)
    start = 0
    for b in blocks:
        x[np.arange(n), start + rng.integers(0, b, n)] = 1
        start += b
    return x


def _with_all_ones_client(options: Any, x: np.ndarray) -> tuple[np.ndarray, tuple[int, ...], str]:
    """The sum of one-hot inputs when client N submits an encoded vector of all ones."""
    parsed = sum_protocol("prio3").one_hot_options(options, (x.shape[1],))
    plan = SecureSumPlan("prio3", x, run="all-ones", options=parsed)
    roles = plan.build()
    honest = roles[N]
    vdaf = honest.pub.vdaf
    roles[N] = Prio3Client(N, honest.pub, honest.x, encoded=vdaf.field.array([1] * vdaf.flp.MEAS_LEN))
    res = HarnessRunner()(roles)
    r = sum_protocol("prio3").result_of(res.roles[COORDINATOR])
    return np.asarray(r.total, np.int64), tuple(r.rejected), type(vdaf.valid).__name__


def test_auto_on_one_hot_inputs_rejects_an_all_ones_report_and_names_it() -> None:
    x = _one_hot(np.random.default_rng(1), N, (CELLS,))
    total, rejected, circuit = _with_all_ones_client({}, x)
    assert circuit == "Histogram" and rejected == (N,)
    assert total.tolist() == x[: N - 1].sum(axis=0).tolist()  # the honest clients' sum, exactly


def test_sumvec_accepts_the_same_report() -> None:  # the choice auto made before
    x = _one_hot(np.random.default_rng(1), N, (CELLS,))
    total, rejected, circuit = _with_all_ones_client({"circuit": "sumvec"}, x)
    assert circuit == "SumVec" and rejected == ()
    assert total.tolist() == (x[: N - 1].sum(axis=0) + 1).tolist()  # one client moved every count


@pytest.mark.parametrize(("blocks", "circuit"), [((CELLS,), "Histogram"), ((2, 4), "OneHotBlocks")])
def test_the_secure_sum_of_one_hot_inputs_uses_a_one_hot_circuit(blocks: tuple[int, ...], circuit: str) -> None:
    x = _one_hot(np.random.default_rng(2), N, blocks)
    rep = run_secure_sum("prio3", x, one_hot_blocks=blocks)
    assert rep.exact and rep.params["circuit"] == circuit and "proved" in rep.validity
    assert run_secure_sum("secagg", x, one_hot_blocks=blocks).validity == "none: one client can set any count"


def test_the_secure_sum_command_declares_its_one_hot_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    from scenarios import cli

    argv = ["secure-sum", "--protocol", "prio3", "--parties", "6", "--cells", "6", "--transport", "harness"]
    assert cli.main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["circuit"] == "Histogram"
    assert cli.main([*argv, "--blocks", "2,4", "--json"]) == 0  # one-hot in each block
    assert json.loads(capsys.readouterr().out)["params"]["circuit"] == "OneHotBlocks"
