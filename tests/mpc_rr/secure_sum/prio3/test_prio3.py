"""Prio3 beyond the vectors: exact field arithmetic, valid reports accepted, every invalid kind rejected."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.secure_sum.prio3 import Field64, Field128, InvalidReport, Prio3
from mpc_rr.secure_sum.prio3._vdaf import prio3_variant

P64 = Field64.MODULUS
CTX = b"mpc_rr test"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, P64 - 1), st.integers(0, P64 - 1)), min_size=1, max_size=30)
)
def test_field64_uint64_arithmetic_is_exact(pairs: list[tuple[int, int]]) -> None:
    a = Field64.array([x for x, _ in pairs])
    b = Field64.array([y for _, y in pairs])
    assert Field64.to_ints(Field64.mul(a, b)) == [x * y % P64 for x, y in pairs]
    assert Field64.to_ints(Field64.add(a, b)) == [(x + y) % P64 for x, y in pairs]
    assert Field64.to_ints(Field64.sub(a, b)) == [(x - y) % P64 for x, y in pairs]
    assert int(Field64.sum(a, axis=0)) == sum(x for x, _ in pairs) % P64


@pytest.mark.parametrize("field", [Field64, Field128])
def test_ntt_round_trip_and_evaluation(field: Any) -> None:
    coeffs = field.array([3, 1, 4, 1, 5, 9, 2, 6])
    values = field.ntt(coeffs, 8)
    w = field.nth_root(8)
    assert (
        int(field.to_ints(values)[3])
        == sum(c * pow(w, 3 * i, field.MODULUS) for i, c in enumerate([3, 1, 4, 1, 5, 9, 2, 6]))
        % field.MODULUS
    )
    assert field.to_ints(field.inv_ntt(values, 8)) == [3, 1, 4, 1, 5, 9, 2, 6]


def _run(vdaf: Prio3, meas: Any, *, tamper_helper: bool = False) -> Any:
    """Shard an encoded vector (as a malicious client may), verify; the output shares or InvalidReport."""
    vk, nonce = os.urandom(32), os.urandom(16)
    public, inputs = vdaf.shard_encoded(CTX, meas, nonce, os.urandom(vdaf.RAND_SIZE))
    states, vshares = [], []
    for agg, share in enumerate(inputs):
        state, vs = vdaf.verify_init(vk, CTX, agg, nonce, public, share)
        states.append(state)
        vshares.append(vs)
    if tamper_helper:  # a malicious helper alters one element of its verifier share
        f = vdaf.field
        v = f.decode_vec(vshares[1][: len(vshares[1]) - (32 if vdaf.uses_jr else 0)])
        v = f.add(v, f.array([1] + [0] * (len(v) - 1)))
        vshares[1] = f.encode_vec(v) + vshares[1][len(f.encode_vec(v)) :]
    msg = vdaf.verifier_shares_to_message(CTX, vshares)
    return [vdaf.verify_next(s, msg) for s in states]


HIST = prio3_variant("Prio3Histogram", length=6, chunk_length=2)
MULTI = prio3_variant("Prio3MultihotCountVec", length=6, max_weight=2, chunk_length=3)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 5))
def test_valid_histogram_reports_are_accepted_and_sum_exactly(bucket: int) -> None:
    outs = _run(HIST, HIST.valid.encode(bucket))
    assert HIST.unshard(outs, 1) == [int(i == bucket) for i in range(6)]


def _invalid_histograms() -> Any:
    bad_value = st.tuples(st.integers(0, 5), st.integers(2, 10**6)).map(
        lambda t: [t[1] if i == t[0] else 0 for i in range(6)]
    )
    two_hot = st.lists(st.integers(0, 5), min_size=2, max_size=2, unique=True).map(
        lambda ix: [int(i in ix) for i in range(6)]
    )
    negative = st.integers(0, 5).map(lambda b: [-1 if i == b else 0 for i in range(6)])
    return st.one_of(bad_value, two_hot, negative, st.just([0] * 6), st.just([1] * 6))


@settings(max_examples=15, deadline=None)
@given(_invalid_histograms())
def test_every_invalid_histogram_kind_is_rejected(vector: list[int]) -> None:
    with pytest.raises(InvalidReport):
        _run(HIST, HIST.field.array(vector))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=6, max_size=6))
def test_multihot_weight_bound(bits: list[int]) -> None:
    weight = sum(bits)
    if weight <= 2:
        assert MULTI.unshard(_run(MULTI, MULTI.valid.encode(bits)), 1) == bits
    else:  # an honest encoding of weight > 2 does not exist: claim weight 2 and lie
        lie = MULTI.field.array([*bits, 0, 1])
        with pytest.raises(InvalidReport):
            _run(MULTI, lie)


@pytest.mark.parametrize("name,params", [("Prio3Count", {}), ("Prio3Sum", {"max_measurement": 10})])
def test_no_joint_rand_variants_reject_out_of_range(name: str, params: dict[str, int]) -> None:
    vdaf = prio3_variant(name, **params)
    vector = vdaf.field.array([2] + [0] * (vdaf.flp.MEAS_LEN - 1))
    with pytest.raises(InvalidReport):
        _run(vdaf, vector)


def test_a_helper_that_alters_its_verifier_share_makes_verification_fail() -> None:
    good = HIST.valid.encode(3)
    assert HIST.unshard(_run(HIST, good), 1) == [0, 0, 0, 1, 0, 0]
    with pytest.raises(InvalidReport):
        _run(HIST, good, tamper_helper=True)


def test_batched_verification_matches_one_by_one() -> None:
    vk = os.urandom(32)
    nonces = [os.urandom(16) for _ in range(4)]
    reports = [
        HIST.shard(CTX, b, n, os.urandom(HIST.RAND_SIZE))
        for b, n in zip([0, 1, 5, 5], nonces, strict=True)
    ]
    states, shares = HIST.verify_init_batch(
        vk, CTX, 0, nonces, [r[0] for r in reports], [r[1][0] for r in reports]
    )
    for i, (public, inputs) in enumerate(reports):
        s1, v1 = HIST.verify_init(vk, CTX, 0, nonces[i], public, inputs[0])
        assert v1 == shares[i]
        assert np.array_equal(np.asarray(s1.out_share), np.asarray(states[i].out_share))
