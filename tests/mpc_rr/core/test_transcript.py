"""The one transcript type: record, save, load, labels."""

from __future__ import annotations

import pytest

from mpc_rr.core import Codec, DecodeError, Transcript, UsageError, WireEvent
from mpc_rr.secure_sum.plainsum import PlainValue


def test_record_save_load_roundtrip(tmp_path) -> None:
    t = Transcript("memory network", meta={"protocol": "plainsum", "seed": 3})
    t.record(0.5, 1, 0, b"\x00\x01abc", run="r", step=2)
    t.record(1.0, 0, 2, bytearray(b"xyz"), delivered=False)
    path = t.save(tmp_path / "t.bin")
    u = Transcript.load(path)
    assert u.observer == "memory network" and u.meta == {"protocol": "plainsum", "seed": 3}
    assert u.events == t.events
    assert u.events[0] == WireEvent(0.5, 1, 0, 5, b"\x00\x01abc", "r", 2, True)
    assert u.links() == {(1, 0): [b"\x00\x01abc"]}  # the undelivered event is not on a link
    assert u.total_bytes == 8


def test_metadata_only_keeps_sizes() -> None:
    t = Transcript("tcp wire beneath TLS", keep_data=False)
    t.record(0.0, 3, 0, b"secret payload")
    assert t[0].data == b"" and t[0].size == 14


def test_labels_from_plaintext_only() -> None:
    import numpy as np

    from mpc_rr.core import WireArray

    codec = Codec([PlainValue])
    plain = codec.encode(PlainValue(x=WireArray.from_numpy(np.arange(3)), run="ping", step=0))
    t = Transcript("memory network")
    t.record(0.0, 1, 0, plain)
    t.record(0.1, 2, 0, b"\x17\x03\x03 ciphertext")
    labelled = t.with_labels(codec.decode)
    assert (labelled[0].run, labelled[0].step) == ("ping", 0)
    assert (labelled[1].run, labelled[1].step) == (None, None)


def test_load_rejects_other_files(tmp_path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"not a transcript")
    with pytest.raises(DecodeError, match="not an mpc-rr transcript"):
        Transcript.load(bad)
    with pytest.raises(UsageError, match="cannot read transcript"):
        Transcript.load(tmp_path / "missing.bin")
