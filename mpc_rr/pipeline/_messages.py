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
    "RecordRows",
    "Release",
    "SignedClustering",
    "read_codes",
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


def read_codes(w: WireArray, cfg: PipelineConfig, src: int, what: str) -> list[int]:
    """A record of ``m`` codes from peer ``src``, each within its attribute's categories."""
    m = len(cfg.sizes)
    if w.dtype not in ("|u1", "<u2", "<i8"):
        raise DecodeError(f"{what} from party {src}: dtype {w.dtype} not allowed", src)
    vals: list[int] = w.to_numpy(shape=(m,), sender=src).tolist()  # a coordinator reads n of these
    for v, s in zip(vals, cfg.sizes, strict=True):
        if not 0 <= v < s:
            raise PeerError(f"{what} from party {src}: code outside its attribute's categories", src)
    return vals


def read_record(w: WireArray, cfg: PipelineConfig, src: int, what: str) -> np.ndarray:
    """:func:`read_codes` as an int64 array."""
    return np.array(read_codes(w, cfg, src, what), np.int64)


class RecordRows:
    """The records a coordinator received in one phase, row ``pid`` of one ``(n + 1, m)`` array.

    A dict of one int64 array per party cost ~0.3 KB a party and phase (the
    array object and the dict entry): 0.6 GB in the coordinator's worker at
    10^6 parties (docs/scale.md).  Here a record is ``m`` bytes (codes in the
    smallest of uint8 / uint16 / int64 that holds every category, as on the
    wire) and a flag; :meth:`stack` gives the int64 rows a dict used to.
    """

    def __init__(self, n: int, sizes: tuple[int, ...]) -> None:
        top = max(sizes, default=1)
        dt = np.uint8 if top <= 256 else np.uint16 if top <= 65536 else np.int64
        self.rows = np.zeros((n + 1, len(sizes)), dt)  # calloc: pages never written stay free
        self.have = np.zeros(n + 1, np.bool_)
        self.count = 0

    def __contains__(self, pid: int) -> bool:
        return 0 <= pid < len(self.have) and bool(self.have[pid])

    def __setitem__(self, pid: int, codes: list[int]) -> None:
        """Store party ``pid``'s validated codes (the caller refuses a second record)."""
        self.rows[pid] = codes
        self.have[pid] = True
        self.count += 1

    def __len__(self) -> int:
        return self.count

    def put_many(self, ids: np.ndarray, rows: np.ndarray | None) -> None:
        """Store the validated ``rows`` of parties ``ids`` (distinct, none stored yet); ``None``:
        only that they sent one (their pages of the row array are never written: never paid)."""
        if rows is not None:
            self.rows[ids] = rows
        self.have[ids] = True
        self.count += len(ids)

    def ids(self) -> list[int]:
        """The parties with a record, sorted."""
        ids: list[int] = np.flatnonzero(self.have).tolist()
        return ids

    def stack(self, ids: list[int] | tuple[int, ...] | np.ndarray) -> np.ndarray:
        """The records of ``ids``, in that order, as an int64 ``(len(ids), m)`` array."""
        return self.rows[np.asarray(ids, np.intp)].astype(np.int64)


def wire_record(rec: np.ndarray, cfg: PipelineConfig) -> WireArray:
    """A record in the smallest of uint8 / uint16 / int64 that holds every category."""
    top = max(cfg.sizes)
    dt = np.uint8 if top <= 256 else np.uint16 if top <= 65536 else np.int64
    return WireArray.from_numpy(np.asarray(rec, dtype=dt))


def pipeline_messages() -> tuple[type[Message], ...]:
    """Every message type of the protocol (its spec's ``messages``)."""
    return PIPELINE_MESSAGES
