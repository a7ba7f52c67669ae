"""The one-hot-blocks circuit (the pipeline's pair cells) and the FLP's exact Field64 products."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.secure_sum.prio3 import (
    Field64,
    Field128,
    InvalidReport,
    Prio3,
    Prio3Options,
    build_vdaf,
    default_chunk,
)
from mpc_rr.secure_sum.prio3._circuits import OneHotBlocks

P64 = Field64.MODULUS
CTX = b"mpc_rr blocks"
BLOCKS = (4, 1, 6, 3)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 5), st.integers(1, 70), st.integers(1, 4),
    st.integers(0, 2**32), st.sampled_from([0, 1, P64 - 1]),
)  # fmt: skip
def test_field64_matmul_is_exact(rows: int, inner: int, cols: int, seed: int, edge: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, P64, size=(rows, inner), dtype=np.uint64)
    b = rng.integers(0, P64, size=(inner, cols), dtype=np.uint64)
    a[0, 0] = b[0, 0] = np.uint64(edge)  # the extremes of the limbs
    want = np.asarray(a, dtype=object).dot(np.asarray(b, dtype=object)) % P64
    assert (np.asarray(Field64.matmul(a, b), dtype=object) == want).all()
    batched = Field64.matmul(a[None, :, :], b[None, :, :])[0]  # numpy's broadcasting too
    assert (np.asarray(batched, dtype=object) == want).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0, 1, 2**32 - 1, 2**32, P64 - 2**32, P64 - 1]))
def test_field64_mul_is_exact(seed: int, edge: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, P64, size=(3, 50), dtype=np.uint64)
    b = rng.integers(0, P64, size=(50,), dtype=np.uint64)  # broadcast
    a[0, :2] = b[:2] = np.uint64(edge)  # the carries' and reductions' extremes
    a[1, 0], b[1] = np.uint64(P64 - 1), np.uint64(edge)
    want = np.asarray(a, dtype=object) * np.asarray(b, dtype=object) % P64
    assert (np.asarray(Field64.mul(a, b), dtype=object) == want).all()
    assert int(Field64.mul(np.uint64(edge), np.uint64(P64 - 1))) == edge * (P64 - 1) % P64


def test_field64_matmul_longer_than_one_exact_block() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(0, P64, size=(2, 5000), dtype=np.uint64)
    b = rng.integers(0, P64, size=(5000, 3), dtype=np.uint64)
    want = np.asarray(a, dtype=object).dot(np.asarray(b, dtype=object)) % P64
    assert (np.asarray(Field64.matmul(a, b), dtype=object) == want).all()


def _prio3(field: Any) -> Prio3:
    proofs = 3 if field is Field64 else 1
    return Prio3(OneHotBlocks(BLOCKS, 3, field=field), proofs=proofs)


def _one_hot(hot: list[int]) -> list[int]:
    return [int(i == h) for b, h in zip(BLOCKS, hot, strict=True) for i in range(b)]


@pytest.mark.parametrize("field", [Field64, Field128])
@settings(max_examples=8, deadline=None)
@given(st.tuples(*(st.integers(0, b - 1) for b in BLOCKS)))
def test_one_hot_blocks_are_accepted_and_sum_exactly(verified_sum: Any, field: Any, hot: tuple[int, ...]) -> None:
    vdaf = _prio3(field)
    x = _one_hot(list(hot))
    assert verified_sum(vdaf, vdaf.valid.encode(x), CTX) == x


def _invalid() -> Any:
    """Every way a vector can fail: a second 1 in one block, an empty block, a cell not 0/1."""
    base = st.tuples(*(st.integers(0, b - 1) for b in BLOCKS)).map(lambda h: _one_hot(list(h)))
    two_in_a_block = base.flatmap(
        lambda x: st.sampled_from([i for i in range(4) if x[i] == 0]).map(
            lambda i: [1 if j == i else v for j, v in enumerate(x)]
        )
    )
    empty_block = base.map(lambda x: [0] * 4 + x[4:])
    big_cell = base.flatmap(
        lambda x: st.tuples(st.integers(0, len(x) - 1), st.integers(2, 10**6)).map(
            lambda t: [t[1] if j == t[0] else v for j, v in enumerate(x)]
        )
    )
    minus = base.map(lambda x: [x[0] + 1, -1, *x[2:]] if x[0] == 0 else [2, -1, *x[2:]])
    return st.one_of(two_in_a_block, empty_block, big_cell, minus)


@pytest.mark.parametrize("field", [Field64, Field128])
@settings(max_examples=10, deadline=None)
@given(_invalid())
def test_every_invalid_block_vector_is_rejected(verified_sum: Any, field: Any, vector: list[int]) -> None:
    vdaf = _prio3(field)
    with pytest.raises(InvalidReport):
        verified_sum(vdaf, vdaf.field.array(vector), CTX)


def test_one_hot_blocks_encode_refuses_two_ones_in_a_block() -> None:
    with pytest.raises(ValueError, match="block 2"):
        OneHotBlocks(BLOCKS, 3).encode([1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0])


def test_auto_circuit_is_blocks_when_the_blocks_are_known() -> None:
    # inputs nobody declared one-hot: each cell in range (test_auto_circuit: declared ones)
    assert type(build_vdaf(14, 1, Prio3Options()).valid).__name__ == "SumVec"
    v = build_vdaf(14, 1, Prio3Options(blocks=BLOCKS))
    assert isinstance(v.valid, OneHotBlocks) and v.valid.EVAL_OUTPUT_LEN == 1 + len(BLOCKS)
    with pytest.raises(Exception, match="summing to the 15 cells"):
        build_vdaf(15, 1, Prio3Options(circuit="blocks", blocks=BLOCKS))


def test_default_chunk_minimizes_the_flp_work() -> None:
    assert default_chunk(1582) == 52  # p = 32 wire evaluations, against 64 for sqrt's 39
    assert default_chunk(1) == 1


@pytest.mark.parametrize("field", [Field64, Field128])
@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 60))
def test_the_provers_sparse_range_check_wires_equal_the_dense_ones(field: Any, seed: int, chunk: int) -> None:
    from mpc_rr.secure_sum.prio3._circuits import _sparse_left
    from mpc_rr.secure_sum.prio3._flp import powers

    rng = np.random.default_rng(seed)
    x = field.array((rng.random((3, 5, chunk)) < 0.2).astype(np.int64))  # 0/1, a few ones
    r = field.array(rng.integers(1, 2**62, size=(3, 5)))
    dense = field.mul(powers(field, r, chunk, first=1), x)
    assert (np.asarray(_sparse_left(field, x, r), dtype=object) == np.asarray(dense, dtype=object)).all()
