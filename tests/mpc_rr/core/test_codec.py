"""The strict codec and its arrays: arbitrary bytes, round trips, version check, trailing bytes,
unknown tags, bounded labels, shapes and lengths."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import Codec, DecodeError, Message, UsageError, WireArray
from mpc_rr.core._messages import WIRE_VERSION
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


def test_codec_rejects_trailing_bytes_and_unknown_tags() -> None:
    codec = Codec([PlainValue])
    good = codec.encode(PlainValue(x=WireArray.from_numpy(np.arange(3))))
    with pytest.raises(DecodeError, match="party 9"):
        codec.decode(good + b"\x00", sender=9)
    total = Codec([PlainTotal]).encode(PlainTotal(total=WireArray.from_numpy(np.arange(2))))
    with pytest.raises(DecodeError, match="PlainTotal"):
        codec.decode(total, 1)
    with pytest.raises(DecodeError, match="max_frame"):
        Codec([PlainValue], max_frame=8).decode(good, sender=2)


def test_codec_bounds_the_run_label() -> None:
    codec = Codec([PlainValue])
    big = PlainValue(x=WireArray.from_numpy(np.arange(1)), run="r" * 300)
    with pytest.raises(DecodeError, match="Expected `str` of length <= 256"):
        codec.decode(codec._encoder.encode(big), sender=4)


def test_wire_array_validates_shape_and_length() -> None:
    w = WireArray.from_numpy(np.arange(6, dtype=np.uint16).reshape(2, 3))
    assert w.to_numpy(dtype=np.uint16, shape=(2, 3)).sum() == 15
    with pytest.raises(DecodeError, match=r"expected \(3, 2\)"):
        w.to_numpy(shape=(3, 2), sender=4)
    bad = WireArray(dtype="<u2", shape=(4,), data=b"\x00" * 6)
    with pytest.raises(DecodeError, match="do not match"):
        bad.to_numpy()
    with pytest.raises(UsageError, match="not allowed"):
        WireArray.from_numpy(np.array(["a"]))


def test_hostile_shape_whose_element_count_overflows_is_a_decode_error() -> None:
    """Before: (2^32, 2^32) with no data overflowed numpy's product to 0 (a ValueError)."""
    w = WireArray(dtype="<u4", shape=(2**32, 2**32), data=b"")
    with pytest.raises(DecodeError, match=r"from party 7: 0 bytes do not match"):
        w.to_numpy(sender=7)
    with pytest.raises(DecodeError, match="not a valid array shape"):
        WireArray(dtype="|u1", shape=(1,) * 9, data=b"\x00").to_numpy(sender=7)
