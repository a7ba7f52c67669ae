"""Messages of the pipeline (its secure-sum sub-protocol brings its own), and record codecs."""

from __future__ import annotations

from typing import Annotated

import msgspec
import numpy as np

from mpc_rr.core import DecodeError, Message, PeerError, WireArray
from mpc_rr.pipeline._config import PipelineConfig

__all__ = [
    "PIPELINE_MESSAGES",
    "RandomizedRecord",
    "Release",
    "SignedClustering",
    "read_record",
    "wire_record",
]

_MAX_ATTRIBUTES = 4096
Cluster = Annotated[list[Annotated[int, msgspec.Meta(ge=0)]], msgspec.Meta(max_length=_MAX_ATTRIBUTES)]


class RandomizedRecord(Message, frozen=True):
    """Sec. 4.1: a party's record randomized attribute by attribute."""

    codes: WireArray


class SignedClustering(Message, frozen=True):
    """Algorithm 1's output, signed by the coordinator (Ed25519)."""

    source: Annotated[str, msgspec.Meta(max_length=32)]
    clusters: Annotated[list[Cluster], msgspec.Meta(max_length=_MAX_ATTRIBUTES)]
    digest: Annotated[str, msgspec.Meta(max_length=128)]
    signature: Annotated[bytes, msgspec.Meta(max_length=64)]


class Release(Message, frozen=True):
    """A party's record randomized cluster by cluster."""

    codes: WireArray


PIPELINE_MESSAGES: tuple[type[Message], ...] = (RandomizedRecord, SignedClustering, Release)


def read_record(w: WireArray, cfg: PipelineConfig, src: int, what: str) -> np.ndarray:
    """A record of ``m`` codes from peer ``src``, each within its attribute's categories."""
    m = len(cfg.sizes)
    if w.dtype not in ("|u1", "<u2", "<i8"):
        raise DecodeError(f"{what} from party {src}: dtype {w.dtype} not allowed", src)
    vals = w.to_numpy(shape=(m,), sender=src).tolist()  # a coordinator reads n of these: no numpy
    for v, s in zip(vals, cfg.sizes, strict=True):
        if not 0 <= v < s:
            raise PeerError(f"{what} from party {src}: code outside its attribute's categories", src)
    return np.array(vals, np.int64)


def wire_record(rec: np.ndarray, cfg: PipelineConfig) -> WireArray:
    """A record in the smallest of uint8 / uint16 / int64 that holds every category."""
    top = max(cfg.sizes)
    dt = np.uint8 if top <= 256 else np.uint16 if top <= 65536 else np.int64
    return WireArray.from_numpy(np.asarray(rec, dtype=dt))


def pipeline_messages() -> tuple[type[Message], ...]:
    """Every message type of the protocol (its spec's ``messages``)."""
    return PIPELINE_MESSAGES
