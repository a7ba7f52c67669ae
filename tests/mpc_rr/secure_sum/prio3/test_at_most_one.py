"""The at-most-one-1-per-block circuit (RRBA's secure tally): one-hot or empty blocks accepted and
summed exactly, every other vector rejected; in RRBA, a client that puts two 1s in a table is
rejected and named, the block's counts unmoved."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import COORDINATOR, run_roles
from mpc_rr.data import Attribute, Dataset, Schema
from mpc_rr.rrba import RRBAClient, rrba_roles
from mpc_rr.rrba._protocol import config_for
from mpc_rr.secure_sum.prio3 import (
    Field64,
    Field128,
    InvalidReport,
    Prio3,
    Prio3Client,
    Prio3Options,
    build_vdaf,
)
from mpc_rr.secure_sum.prio3._circuits import AtMostOneBlocks

CTX = b"mpc_rr at most one"
BLOCKS = (3, 1, 4, 2)


def _prio3(field: Any) -> Prio3:
    return Prio3(AtMostOneBlocks(BLOCKS, 3, field=field), proofs=3 if field is Field64 else 1)


def _vector(hot: tuple[int, ...]) -> list[int]:
    """Block ``b``'s 1 at ``hot[b]``; ``hot[b] == BLOCKS[b]`` leaves the block empty."""
    return [int(i == h) for b, h in zip(BLOCKS, hot, strict=True) for i in range(b)]


VALID = st.tuples(*(st.integers(0, b) for b in BLOCKS))


@pytest.mark.parametrize("field", [Field64, Field128])
@settings(max_examples=8, deadline=None)
@given(VALID)
def test_one_hot_or_empty_blocks_are_accepted_and_sum_exactly(verified_sum: Any, field: Any, hot: tuple[int, ...]) -> None:
    vdaf = _prio3(field)
    x = _vector(hot)
    assert verified_sum(vdaf, vdaf.valid.encode(x), CTX) == x


def _invalid() -> Any:
    """A second 1 in a block, a cell of 2 or more, a -1 (each of them alone, the rest valid)."""
    two = VALID.flatmap(
        lambda h: st.integers(0, len(BLOCKS) - 1).filter(lambda b: BLOCKS[b] > 1).map(
            lambda b: (h, b)
        )
    ).map(lambda hb: _two_in(*hb))
    big = VALID.flatmap(
        lambda h: st.tuples(st.integers(0, sum(BLOCKS) - 1), st.integers(2, 10**6)).map(
            lambda t: [t[1] if j == t[0] else v for j, v in enumerate(_vector(h))]
        )
    )
    minus = VALID.flatmap(
        lambda h: st.integers(0, sum(BLOCKS) - 1).map(
            lambda i: [-1 if j == i else v for j, v in enumerate(_vector(h))]
        )
    )
    return st.one_of(two, big, minus)


def _two_in(hot: tuple[int, ...], b: int) -> list[int]:
    x = _vector(hot)
    start = sum(BLOCKS[:b])
    x[start], x[start + 1] = 1, 1
    return x


@pytest.mark.parametrize("field", [Field64, Field128])
@settings(max_examples=10, deadline=None)
@given(_invalid())
def test_every_vector_with_more_than_one_1_or_a_bad_cell_in_a_block_is_rejected(verified_sum: Any, field: Any, vector: list[int]) -> None:
    vdaf = _prio3(field)
    with pytest.raises(InvalidReport):
        verified_sum(vdaf, vdaf.valid.encode_unchecked(np.asarray(vector)), CTX)


def test_encode_refuses_two_ones_in_a_block_and_auto_picks_the_circuit() -> None:
    with pytest.raises(ValueError, match="block 2"):
        AtMostOneBlocks(BLOCKS, 3).encode([0, 0, 1, 0, 1, 0, 0, 1, 0, 0])
    v = build_vdaf(10, 1, Prio3Options(circuit="blocks-or-empty", blocks=BLOCKS))
    assert isinstance(v.valid, AtMostOneBlocks) and v.flp.MEAS_LEN == 10 + len(BLOCKS)
    assert v.flp.OUTPUT_LEN == 10


def _data(n: int) -> Dataset:
    sizes = (3, 2, 2, 3)
    schema = Schema(tuple(Attribute(f"a{i}", tuple(map(str, range(k)))) for i, k in enumerate(sizes)))
    return Dataset(schema, np.random.default_rng(4).integers(0, sizes, size=(n, len(sizes))))


def test_rrba_secure_tally_proves_at_most_one_1_per_table() -> None:
    data = _data(20)
    cfg = config_for(data, 10, 0.5, secure_tally=True, sum_protocol="prio3")
    pub = cfg.tally_public(1)
    assert pub.as_json()["circuit"] == "AtMostOneBlocks"
    assert pub.vdaf.valid.cells_per_block == tuple(int(c) for c in np.diff(cfg.offsets))


class _TwoInATable(RRBAClient):
    """A tally client that puts a second 1 in a table it was asked (to push that table)."""

    def attach_sub(self, role: Any, members: Any = None) -> Any:
        assert isinstance(role, Prio3Client)
        x = role.x.copy()
        hot = int(np.flatnonzero(x)[0])
        t = int(np.searchsorted(self.cfg.offsets, hot, "right")) - 1
        lo, size = int(self.cfg.offsets[t]), int(self.cfg.offsets[t + 1] - self.cfg.offsets[t])
        x[lo + (hot - lo + 1) % size] = 1
        cheat = Prio3Client(role.party_id, role.pub, x, entropy=role.entropy,
                            encoded=role.pub.vdaf.valid.encode_unchecked(x))  # fmt: skip
        return super().attach_sub(cheat, members)


def test_an_rrba_client_with_two_ones_in_a_table_is_rejected_and_named() -> None:
    data = _data(20)
    cfg = config_for(data, 10, 0.5, secure_tally=True, sum_protocol="prio3")
    roles = rrba_roles(cfg, data.codes, 5)
    honest = roles[4]
    assert isinstance(honest, RRBAClient)
    roles[4] = _TwoInATable(4, cfg, data.codes[3], honest.rng)
    res = run_roles(roles)
    out = roles[COORDINATOR].result
    assert res.ok and out.blocks == 2
    b1, b2 = out.records
    assert b1.rejected == (4,) and b1.answered == 9 and not b1.lost  # named, left out, block kept
    assert not b2.lost and b2.answered == 10 and b2.rejected == ()
