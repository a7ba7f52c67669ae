"""The ``noise`` lesson without a browser: its trace (golden per seed, the check that the noisy
total is the true count plus the parties' noise), the calibration against the library's
accountant, and the live round's bots.  The pages' side: ``test_lesson_browsers.py``."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.privacy._discrete import skellam_epsilon
from mpc_rr.secure_sum._noise import calibrate_noise, honest_survivors
from mpc_rr.secure_sum.secagg import SecAggClient
from scenarios.classroom import make_trace
from scenarios.classroom.live import Lesson, make_round
from scenarios.classroom.noise_lesson import DELTA, class_noise, poll_sensitivity
from scenarios.cli import main

GOLDEN = Path(__file__).parent / "golden"


def test_noise_trace_is_golden_per_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["classroom", "noise", "--parties", "5", "--seed", "2", "--options", "Yes,No"])
    out = capsys.readouterr().out
    path = GOLDEN / "noise-5.txt"
    if os.environ.get("MPC_RR_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text(), f"{path.name} changed (MPC_RR_UPDATE_GOLDEN=1 to accept)"
    assert code == 0


def test_the_noisy_total_is_the_true_count_plus_the_included_parties_noise() -> None:
    t = make_trace("noise", 6, seed=3, drops=["4@masked"], options=("A", "B", "C"))
    x, z, c = np.asarray(t.extra["inputs"]), np.asarray(t.extra["noise"]), t.extra["offset"]
    inc = [1, 2, 3, 5, 6]  # P4 dropped before its masked answer
    want = (x + z)[np.asarray(inc) - 1].sum(axis=0)
    assert t.ok and f"inputs included: P{', P'.join(map(str, inc))}" in t.check
    assert any(line.startswith("noisy total") and str(want.tolist()).replace(",", "") in line for line in t.check)
    assert np.abs(z).max() <= c and z.any()  # noise was drawn, within the clip
    other = make_trace("noise", 6, seed=4, options=("A", "B", "C"))
    assert other.extra["noise"] != t.extra["noise"]


def test_epsilon_is_the_accountants_for_the_worst_case_of_honest_survivors() -> None:
    n, max_dropout, max_corrupt = 30, 0.34, 0.1
    noise, c = class_noise(n, 2, 1.0, max_dropout, max_corrupt)
    h = honest_survivors(n, max_dropout, max_corrupt)
    assert noise.honest_min == h == 30 - 10 - 3
    assert noise == calibrate_noise(1.0, 0.99 * DELTA, n, poll_sensitivity(), max_dropout, max_corrupt)
    assert noise.epsilon == pytest.approx(skellam_epsilon(noise.central_variance, 2, 0.99 * DELTA))
    assert 0.99 < noise.epsilon <= 1.0
    assert noise.client_variance == pytest.approx(noise.central_variance / h)
    assert c >= 5 * math.sqrt(noise.client_variance)


def test_the_live_bots_send_their_answer_plus_clipped_noise() -> None:
    build = make_round(Lesson("noise", seed=2, epsilon=1.0), np.random.default_rng(2))
    setup = build(0, 8, "run-1", {})
    c, var = setup.public["noise"]["offset"], setup.public["noise"]["variance"]
    assert setup.public["protocol"] == "secagg" and setup.public["modulus"] > 8 * (1 + 2 * c)
    bots = [setup.roles[i] for i in range(1, 9)]
    assert all(isinstance(b, SecAggClient) for b in bots)
    sent = np.stack([np.asarray(b.x, np.int64) for b in bots]) - c  # answer + noise, per bot
    assert sent.min() >= -c and sent.max() <= 1 + c
    assert not all(row.tolist() in ([1, 0], [0, 1]) for row in sent)  # noise was added
    assert var == pytest.approx(class_noise(8, 2, 1.0, 0.34, 0.1)[0].client_variance)
