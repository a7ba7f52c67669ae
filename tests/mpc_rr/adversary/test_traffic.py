"""Wire-observer metrics on hand-made transcripts: fixed-length -> baseline, planted leaks found."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from mpc_rr.adversary import participation_leakage, size_leakage, timing_leakage
from mpc_rr.adversary._traffic import activity, feature_leakage
from mpc_rr.core import Transcript, UsageError

N = 300


def _secrets(seed: int = 0) -> dict[int, int]:
    rng = np.random.default_rng(seed)
    return {p: int(v) for p, v in zip(range(1, N + 1), rng.integers(0, 3, N), strict=True)}


def _fixed_length(secrets: dict[int, int], seed: int = 1) -> Transcript:
    """Every party sends its value as a fixed-length int64 array (plus a fixed header)."""
    rng = np.random.default_rng(seed)
    t = Transcript("memory network", meta={"encoding": "fixed"})
    for p, v in secrets.items():
        payload = b"HDR0" + np.array([v, rng.integers(1 << 40)], dtype="<i8").tobytes()
        t.record(float(rng.random()), p, 0, payload, run="r", step=1)
    return t


def _variable_length(secrets: dict[int, int], seed: int = 1) -> Transcript:
    """Planted bug: MessagePack of the value itself -- ints take 1, 2 or 5 bytes."""
    rng = np.random.default_rng(seed)
    value_of = {0: 5, 1: 200, 2: 70_000}
    t = Transcript("memory network", meta={"encoding": "varint"})
    for p, v in secrets.items():
        t.record(float(rng.random()), p, 0, msgspec.msgpack.encode(value_of[v]), run="r", step=1)
    return t


def test_fixed_length_sizes_sit_at_the_baseline_exactly():
    secrets = _secrets()
    res = size_leakage(_fixed_length(secrets), secrets, np.random.default_rng(2))
    assert res.success == res.baseline
    assert res.ci[0] <= res.baseline <= res.ci[1]
    assert not res.leaks and res.mutual_information == 0.0 and res.distinct_features == 1
    assert res.p_value == 1.0


def test_planted_variable_length_encoding_is_detected():
    secrets = _secrets()
    res = size_leakage(_variable_length(secrets), secrets, np.random.default_rng(2))
    assert res.leaks and res.success == 1.0 and res.baseline < 0.5
    assert res.mutual_information == pytest.approx(np.log2(3), abs=0.05)
    assert res.p_value < 1e-6


def test_offline_analysis_of_a_saved_transcript(tmp_path):
    secrets = _secrets(3)
    path = _variable_length(secrets).save(tmp_path / "run.bin")
    again = size_leakage(Transcript.load(path), secrets, np.random.default_rng(4))
    assert again == size_leakage(_variable_length(secrets), secrets, np.random.default_rng(4))


def test_timing_independent_of_value_is_baseline_and_planted_delay_is_found():
    secrets = _secrets(5)
    rng = np.random.default_rng(6)
    calm, leaky = Transcript("hub"), Transcript("hub")
    for p, v in secrets.items():
        calm.record(float(rng.exponential(1.0)), p, 0, b"x" * 32)
        leaky.record(float(v + 0.1 * rng.random()), p, 0, b"x" * 32)  # delay grows with the value
    res = timing_leakage(calm, secrets, np.random.default_rng(7))
    assert res.ci[0] <= res.baseline <= res.ci[1] and not res.leaks
    found = timing_leakage(leaky, secrets, np.random.default_rng(7))
    assert found.leaks and found.success > 0.9


def test_participation_without_and_with_cover_traffic():
    candidates = list(range(1, 101))
    took = candidates[:70]
    bare, covered = Transcript("tls wire"), Transcript("tls wire")
    for p in candidates:
        if p in took:
            bare.record(0.0, p, 0, b"r" * 48)
        covered.record(0.0, p, 0, b"r" * 48)  # dropouts send a same-size dummy
    rng = np.random.default_rng(8)
    seen = participation_leakage(bare, candidates, took, rng)
    assert seen.success == 1.0 and seen.leaks
    hidden = participation_leakage(covered, candidates, took, rng)
    assert hidden.success == hidden.baseline == 0.7 and not hidden.leaks


def test_activity_says_who_and_when():
    t = Transcript("hub")
    t.record(0.5, 3, 0, b"abc")
    t.record(0.2, 3, 0, b"de", delivered=False)
    t.record(1.0, 4, 0, b"")
    act = activity(t)
    assert act[3].first == 0.2 and act[3].last == 0.5 and act[3].messages == 2 and act[3].bytes == 5
    assert act[4].messages == 1 and act[4].bytes == 0


def test_usage_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(UsageError, match="same length, got 3 and 2"):
        feature_leakage([1, 2, 3], [0, 1], rng)
    with pytest.raises(UsageError, match=r"folds must be an integer >= 2, got 1"):
        feature_leakage([1, 2, 3], [0, 1, 0], rng, folds=1)
    with pytest.raises(UsageError, match="no party of secrets sent anything"):
        size_leakage(Transcript("hub"), {1: 0, 2: 1}, rng)
    with pytest.raises(UsageError, match=r"participants \[7\] are not among the candidates"):
        participation_leakage(Transcript("hub"), [1, 2], [7], rng)
