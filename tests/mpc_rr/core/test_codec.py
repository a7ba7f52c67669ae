"""Property tests of the strict codec: arbitrary bytes, round trips, version check."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import WIRE_VERSION, Codec, DecodeError, Message, WireArray
from mpc_rr.secure_sum.plainsum import PlainTotal, PlainValue


class Note(Message, frozen=True):
    text: str
    count: int


CODEC = Codec([PlainValue, PlainTotal, Note], max_frame=1 << 16)


@settings(max_examples=400, deadline=200)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_raise_only_decode_error(data: bytes) -> None:
    try:
        msg = CODEC.decode(data, sender=5)
    except DecodeError as exc:
        assert exc.peer == 5
        assert "party 5" in str(exc)
    else:  # a random byte string that happens to be a valid message must round-trip
        assert CODEC.decode(CODEC.encode(msg)) == msg


@settings(max_examples=200, deadline=200)
@given(st.binary(min_size=1, max_size=512), st.integers(0, 511))
def test_mutated_valid_frames_raise_only_decode_error(noise: bytes, pos: int) -> None:
    good = bytearray(CODEC.encode(Note(text="hello", count=3, run="r", step=2)))
    pos %= len(good)
    bad = bytes(good[:pos]) + noise + bytes(good[pos + 1 :])
    try:
        CODEC.decode(bad, sender=1)
    except DecodeError:
        pass


dtypes = st.sampled_from(["|u1", "<i2", "<u4", "<i8", "<f8", "|b1"])
shapes = st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple)


@settings(max_examples=150, deadline=None)
@given(dtypes, shapes, st.integers(0, 2**32 - 1), st.text(max_size=20), st.integers(0, 2**31))
def test_round_trip_arrays_and_labels(dtype: str, shape: tuple, seed: int, run: str, step: int):
    rng = np.random.default_rng(seed)
    arr = (rng.random(shape) * 100).astype(np.dtype(dtype))
    msg = PlainValue(x=WireArray.from_numpy(arr), run=run, step=step)
    back = CODEC.decode(CODEC.encode(msg), sender=0)
    assert isinstance(back, PlainValue) and back.run == run and back.step == step
    out = back.x.to_numpy(dtype=dtype, shape=shape)
    np.testing.assert_array_equal(out, arr)
    assert not out.flags.writeable  # a view on the decoded bytes, not a copy


def test_big_endian_input_travels_little_endian() -> None:
    arr = np.arange(5, dtype=">i4")
    w = WireArray.from_numpy(arr)
    assert w.dtype == "<i4"
    np.testing.assert_array_equal(w.to_numpy(), arr)


def test_version_mismatch_is_rejected_naming_sender() -> None:
    raw = msgspec.msgpack.encode(Note(text="x", count=1, v=WIRE_VERSION + 1))
    with pytest.raises(DecodeError, match=rf"party 7: wire version {WIRE_VERSION + 1}"):
        CODEC.decode(raw, sender=7)


def test_unknown_field_wrong_type_and_truncation() -> None:
    raw = msgspec.msgpack.encode({"type": "Note", "text": "x", "count": 1, "extra": 0})
    with pytest.raises(DecodeError, match="extra"):
        CODEC.decode(raw, sender=1)
    raw = msgspec.msgpack.encode({"type": "Note", "text": "x", "count": "one"})
    with pytest.raises(DecodeError, match="Expected `int`"):
        CODEC.decode(raw, sender=1)
    good = CODEC.encode(Note(text="hello", count=1))
    with pytest.raises(DecodeError, match=r"truncated|Input data"):
        CODEC.decode(good[:-2], sender=1)
