"""Typed, frozen, versioned messages and their strict wire codec.

Every protocol defines its messages as subclasses of :class:`Message`
(``msgspec.Struct``, frozen, unknown fields forbidden, tagged by class name).
A :class:`Codec` is built from the message classes a role accepts; it encodes
to MessagePack and decodes strictly: unknown tag or field, wrong type, frame
larger than ``max_frame``, truncated or trailing bytes all raise
:class:`~mpc_rr.core.DecodeError` naming the sender.  Nothing is pickled.

Numpy arrays travel as :class:`WireArray` (dtype string from a whitelist,
shape, raw little-endian bytes); :meth:`WireArray.to_numpy` validates dtype,
shape and byte length and returns a read-only view on the decoded buffer (no
further copy).

Wire version: :data:`WIRE_VERSION` is carried in every message (field ``v``);
a message with another version is rejected.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Annotated, Any

import msgspec
import numpy as np

from mpc_rr.core._errors import DecodeError, UsageError

__all__ = [
    "DEFAULT_MAX_FRAME",
    "MAX_LABEL",
    "WIRE_VERSION",
    "Codec",
    "Message",
    "WireArray",
    "message_type",
]

WIRE_VERSION = 1
DEFAULT_MAX_FRAME = 64 * 1024 * 1024 + 4096  # a 64 MiB payload plus headers

_MAX_DIMS = 8

_ALLOWED_DTYPES = frozenset(
    ["|b1", "|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8", "<f4", "<f8"]
)
_DTYPE_OF = {s: np.dtype(s) for s in _ALLOWED_DTYPES}  # parsed once, not per message


MAX_LABEL = 256
"""Longest run label the codec accepts (a hostile 8 MiB label must not be stored)."""

_BY_NAME: dict[str, type[Message]] = {}


class Message(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag=True, kw_only=True, gc=False
):
    """Base of every message.

    Fields common to all messages are the routing labels: ``run`` (protocol
    run id, at most :data:`MAX_LABEL` characters), ``step`` (a protocol-defined
    step/round number).  The sender is not a field: it is the authenticated
    transport source.

    Messages are not tracked by Python's cyclic garbage collector
    (``gc=False``): their fields are values (numbers, strings, bytes, arrays,
    lists of numbers) that never refer back to a message, so they cannot be
    part of a reference cycle, and a simulation of 32,561 parties creates
    hundreds of thousands of them.
    """

    v: int = WIRE_VERSION
    run: Annotated[str, msgspec.Meta(max_length=MAX_LABEL)] = ""
    step: Annotated[int, msgspec.Meta(ge=0, le=2**31)] = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _BY_NAME.setdefault(cls.__name__, cls)


def message_type(name: str) -> type[Message]:
    """The message class whose wire tag is ``name`` (the first one defined with that name)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UsageError(f"no message type {name!r}; known: {sorted(_BY_NAME)}") from None


class WireArray(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A numpy array on the wire: dtype string, shape and raw bytes."""

    dtype: str
    shape: tuple[int, ...]
    data: bytes

    @classmethod
    def from_numpy(cls, arr: np.ndarray) -> WireArray:
        a = np.asarray(arr)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        code = a.dtype.str
        if code not in _ALLOWED_DTYPES:
            raise UsageError(f"WireArray: dtype {code!r} not allowed on the wire")
        # tobytes() writes C order whatever the strides; the shape is kept as it is (0-d too)
        return cls(dtype=code, shape=a.shape, data=a.tobytes())

    def to_numpy(
        self,
        *,
        dtype: Any = None,
        shape: tuple[int, ...] | None = None,
        sender: int | None = None,
    ) -> np.ndarray:
        """Validate and view as numpy (read-only, zero-copy on the decoded bytes).

        Raises :class:`DecodeError` (naming ``sender``) on a disallowed or
        unexpected dtype, an unexpected shape, or a byte length that does not
        match dtype x shape.
        """
        dt = _DTYPE_OF.get(self.dtype)
        who = f"from party {sender}" if sender is not None else ""
        if dt is None:
            raise DecodeError(f"array {who}: dtype {self.dtype!r} not allowed", sender)
        if dtype is not None and dt != dtype:
            raise DecodeError(
                f"array {who}: dtype {self.dtype!r}, expected {np.dtype(dtype).str!r}", sender
            )
        if len(self.shape) > _MAX_DIMS or (self.shape and min(self.shape) < 0):
            raise DecodeError(f"array {who}: shape {self.shape} is not a valid array shape", sender)
        if shape is not None and tuple(self.shape) != tuple(shape):
            raise DecodeError(f"array {who}: shape {self.shape}, expected {tuple(shape)}", sender)
        count = math.prod(self.shape)  # Python ints: a hostile shape cannot overflow to 0
        if count * dt.itemsize != len(self.data):
            raise DecodeError(
                f"array {who}: {len(self.data)} bytes do not match dtype {self.dtype} "
                f"x shape {self.shape}",
                sender,
            )
        return np.frombuffer(self.data, dtype=dt, count=count).reshape(self.shape)


class Codec:
    """Strict encoder/decoder for a fixed set of message classes.

    Parameters
    ----------
    types:
        The message classes that may be decoded.  Their tags (class names)
        must be distinct.
    max_frame:
        Largest accepted encoded frame in bytes.
    """

    def __init__(
        self, types: Iterable[type[Message]], *, max_frame: int = DEFAULT_MAX_FRAME
    ) -> None:
        self.types = tuple(dict.fromkeys(types))
        if not self.types:
            raise UsageError("Codec: at least one message type is required")
        for t in self.types:
            if not (isinstance(t, type) and issubclass(t, Message)):
                raise UsageError(f"Codec: {t!r} is not a Message subclass")
        names = [t.__name__ for t in self.types]
        if len(set(names)) != len(names):
            raise UsageError(f"Codec: duplicate message tags in {names}")
        if max_frame <= 0:
            raise UsageError(f"Codec: max_frame must be positive, got {max_frame}")
        self.max_frame = int(max_frame)
        union = self.types[0] if len(self.types) == 1 else _union(self.types)
        self._decoder = msgspec.msgpack.Decoder(union)
        self._encoder = msgspec.msgpack.Encoder()

    def encode(self, msg: Message) -> bytes:
        if not isinstance(msg, self.types):
            raise UsageError(f"Codec: cannot encode {type(msg).__name__}; not in this codec")
        data = self._encoder.encode(msg)
        if len(data) > self.max_frame:
            raise UsageError(
                f"Codec: {type(msg).__name__} encodes to {len(data)} bytes "
                f"> max_frame {self.max_frame}"
            )
        return data

    def decode(self, data: bytes | bytearray | memoryview, sender: int | None = None) -> Message:
        """Decode one frame; any problem raises :class:`DecodeError` naming ``sender``."""
        who = f"party {sender}" if sender is not None else "unknown sender"
        if len(data) > self.max_frame:
            raise DecodeError(
                f"frame from {who}: {len(data)} bytes > max_frame {self.max_frame}", sender
            )
        try:
            msg: Message = self._decoder.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise DecodeError(f"frame from {who}: {exc}", sender) from None
        except Exception as exc:  # msgspec should not raise anything else; keep the promise
            raise DecodeError(f"frame from {who}: {type(exc).__name__}: {exc}", sender) from None
        if msg.v != WIRE_VERSION:
            raise DecodeError(
                f"frame from {who}: wire version {msg.v}, this build speaks {WIRE_VERSION}",
                sender,
            )
        return msg


def _union(types: tuple[type[Message], ...]) -> Any:
    from functools import reduce
    from operator import or_

    return reduce(or_, types)
