"""Field64 and Field128 against Python-integer arithmetic: element operations, sums, products of
matrices, inverses, NTTs, interpolation and evaluation -- on edge values and on random ones, on
arrays small and large (every code path of the machine-word representations)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.secure_sum.prio3 import Field64, Field128
from mpc_rr.secure_sum.prio3._flp import double_evaluations, lagrange_eval

FIELDS = [Field64, Field128]


def _edges(p: int) -> list[int]:
    """Values where carries, borrows and the reductions change course."""
    near = [0, 1, 2, 3, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2]
    words = [2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**64 + 1, 2**96, 2**127, 2**128 - 1]
    return sorted({v % p for v in near + words + [p - w for w in words if w < p]})


def _elements(p: int) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(_edges(p)), st.integers(0, p - 1))


def _pairs(field: Any) -> st.SearchStrategy[list[tuple[int, int]]]:
    e = _elements(field.MODULUS)
    return st.lists(st.tuples(e, e), min_size=1, max_size=300)


@pytest.mark.parametrize("field", FIELDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_element_operations_match_python_integers(field: Any, data: st.DataObject) -> None:
    p = field.MODULUS
    pairs = data.draw(_pairs(field))
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    a, b = field.array(xs), field.array(ys)
    assert field.to_ints(field.add(a, b)) == [(x + y) % p for x, y in pairs]
    assert field.to_ints(field.sub(a, b)) == [(x - y) % p for x, y in pairs]
    assert field.to_ints(field.mul(a, b)) == [x * y % p for x, y in pairs]
    assert field.to_ints(field.neg(a)) == [-x % p for x in xs]
    assert int(field.to_ints(field.sum(a, axis=0))) == sum(xs) % p
    assert field.to_ints(field.decode_vec(field.encode_vec(a))) == xs
    assert field.encode_vec(a) == b"".join(x.to_bytes(field.ENCODED_SIZE, "little") for x in xs)
    assert field.eq_small(a, 1).tolist() == [x == 1 for x in xs]


@pytest.mark.parametrize("field", FIELDS)
def test_all_edge_pairs_and_a_large_batch(field: Any) -> None:
    """Every pair of edge values (one call: the vectorized path), then 20,000 random pairs."""
    p = field.MODULUS
    e = _edges(p)
    xs = [x for x in e for _ in e]
    ys = e * len(e)
    rng = np.random.default_rng(7)
    xs += [int.from_bytes(rng.bytes(16), "little") % p for _ in range(20_000)]
    ys += [int.from_bytes(rng.bytes(16), "little") % p for _ in range(20_000)]
    a, b = field.array(xs), field.array(ys)
    assert field.to_ints(field.mul(a, b)) == [x * y % p for x, y in zip(xs, ys, strict=True)]
    assert field.to_ints(field.add(a, b)) == [(x + y) % p for x, y in zip(xs, ys, strict=True)]
    assert field.to_ints(field.sub(a, b)) == [(x - y) % p for x, y in zip(xs, ys, strict=True)]


@pytest.mark.parametrize("field", FIELDS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_broadcasting_batched_sums_and_block_sums(field: Any, data: st.DataObject) -> None:
    p = field.MODULUS
    rows, cols = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 40))
    m = data.draw(st.lists(st.lists(_elements(p), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    v = data.draw(st.lists(_elements(p), min_size=cols, max_size=cols))
    a = field.array(m)
    assert field.to_ints(field.mul(a, field.array(v))) == [[x * y % p for x, y in zip(r, v, strict=True)] for r in m]
    assert field.to_ints(field.sum(a, axis=-1)) == [sum(r) % p for r in m]
    assert field.to_ints(field.sum(a, axis=0)) == [sum(c) % p for c in zip(*m, strict=True)]
    starts = sorted({0, *data.draw(st.lists(st.integers(0, cols - 1), max_size=4))})
    ends = [*starts[1:], cols]
    got = field.to_ints(field.reduceat_sum(a, np.asarray(starts, dtype=np.intp)))
    assert got == [[sum(r[s:t]) % p for s, t in zip(starts, ends, strict=True)] for r in m]


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("k", [1, 7, 32, 33, 64, 100, 1025])
def test_matmul_is_exact_across_the_slicing_of_its_terms(field: Any, k: int) -> None:
    """``K`` below, at and above the 32-term slices and the 1,024-term reduction (Field128) and
    the 4,096-term split (Field64): the worst case too, every entry ``p - 1``."""
    p = field.MODULUS
    rng = np.random.default_rng(k)
    rand = lambda r, c: [[int.from_bytes(rng.bytes(16), "little") % p for _ in range(c)] for _ in range(r)]  # noqa: E731
    for x, y in ((rand(3, k), rand(k, 5)), ([[p - 1] * k] * 2, [[p - 1] * 3] * k)):
        want = [[sum(x[i][t] * y[t][j] for t in range(k)) % p for j in range(len(y[0]))] for i in range(len(x))]
        assert field.to_ints(field.matmul(field.array(x), field.array(y))) == want
        batched = field.matmul(field.array([x, x]), field.array([y, y]))  # a stack of products
        assert field.to_ints(batched) == [want, want]


@pytest.mark.parametrize("field", FIELDS)
def test_from_small_and_array_agree_on_machine_integers(field: Any) -> None:
    p = field.MODULUS
    v = np.array([0, 1, 5, 2**62, 2**63 - 1], dtype=np.int64)
    assert field.to_ints(field.from_small(v)) == [int(x) % p for x in v]
    assert field.to_ints(field.array(v)) == [int(x) % p for x in v]
    if field is Field128:  # negative machine integers (Field64's callers pass none)
        neg = np.array([-1, -2, -(2**63)], dtype=np.int64)
        assert field.to_ints(field.from_small(neg)) == [int(x) % p for x in neg]


@pytest.mark.parametrize("field", FIELDS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_inverse(field: Any, data: st.DataObject) -> None:
    p = field.MODULUS
    xs = data.draw(st.lists(_elements(p).filter(bool), min_size=1, max_size=20))
    assert field.to_ints(field.inv(field.array(xs))) == [pow(x, -1, p) for x in xs]
    with pytest.raises(ZeroDivisionError):
        field.inv(field.array([*xs, 0]))


def _eval(coeffs: list[int], x: int, p: int) -> int:
    return sum(c * pow(x, i, p) for i, c in enumerate(coeffs)) % p


@pytest.mark.parametrize("field", FIELDS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_ntt_interpolation_and_evaluation(field: Any, data: st.DataObject) -> None:
    """``ntt`` evaluates at the powers of the root (``set_s``: on the coset), ``inv_ntt`` inverts it,
    ``double_evaluations`` extends ``n`` Lagrange values to ``2n``, ``lagrange_eval`` evaluates
    the interpolant anywhere -- each against Horner's rule on Python integers."""
    p = field.MODULUS
    n = 2 ** data.draw(st.integers(0, 6))
    coeffs = data.draw(st.lists(_elements(p), min_size=n, max_size=n))
    w, s = field.nth_root(n), field.nth_root(2 * n)
    values = field.ntt(field.array(coeffs), n)
    assert field.to_ints(values) == [_eval(coeffs, pow(w, i, p), p) for i in range(n)]
    coset = field.ntt(field.array(coeffs), n, set_s=True)
    assert field.to_ints(coset) == [_eval(coeffs, s * pow(w, i, p) % p, p) for i in range(n)]
    assert field.to_ints(field.inv_ntt(values, n)) == coeffs
    doubled = double_evaluations(field, values[None, :])[0]
    assert field.to_ints(doubled) == [_eval(coeffs, pow(s, i, p), p) for i in range(2 * n)]
    if n >= 2:
        t = data.draw(_elements(p).filter(lambda x: pow(x, n, p) != 1))
        got = lagrange_eval(field, values[None, None, :], field.array([t]))
        assert field.to_ints(got) == [[_eval(coeffs, t, p)]]


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("max_measurement", [1, 2, 7, 1000])
def test_decode_range_checked_recovers_every_value_and_is_linear(field: Any, max_measurement: int) -> None:
    from mpc_rr.secure_sum.prio3._circuits import decode_range_checked, encode_range_checked

    values = np.arange(max_measurement + 1)
    enc = field.from_small(encode_range_checked(values, max_measurement))  # (values, bits)
    assert field.to_ints(decode_range_checked(field, enc, max_measurement)) == values.tolist()
    share = field.array(np.random.default_rng(1).integers(0, 2**62, size=enc.shape))
    other = field.sub(enc, share)  # two additive shares: their decodings add up to the value
    total = field.add(decode_range_checked(field, share, max_measurement), decode_range_checked(field, other, max_measurement))
    assert field.to_ints(total) == values.tolist()


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(("count", "points"), [(3, 5), (52, 64), (7, 1), (1100, 3)])
def test_mul_sum_is_the_sum_of_the_products(field: Any, count: int, points: int) -> None:
    """``mul_sum`` (ParallelSum of Mul) against Python integers: edge values and random ones,
    few and many terms (the limb path, and beyond 1,024 terms the product then the sum)."""
    p = field.MODULUS
    rng = np.random.default_rng(count)
    edges = _edges(p)

    def pick() -> list[list[int]]:
        def one() -> int:
            return int(rng.choice(edges)) if rng.random() < 0.3 else int.from_bytes(rng.bytes(16), "little") % p

        return [[one() for _ in range(points)] for _ in range(count)]

    x, y = pick(), pick()
    want = [sum(x[j][t] * y[j][t] for j in range(count)) % p for t in range(points)]
    assert field.to_ints(field.mul_sum(field.array(x), field.array(y), axis=0)) == want
    xt, yt = field.array(x).T, field.array(y).T  # the summed axis last, strided operands
    assert field.to_ints(field.mul_sum(xt, yt, axis=-1)) == want
