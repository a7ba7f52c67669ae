"""A role's state as one comparable value: what "a refused message changes nothing" compares."""

from __future__ import annotations

import enum
import types
from collections import deque
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

_LEAVES = (type(None), bool, int, str, bytes)
_REFS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type)


def state_of(obj: Any) -> Any:
    """``obj`` and everything it refers to, as nested tuples of plain values (arrays by dtype,
    shape and bytes; a generator by its bit generator's state; functions and classes by name;
    an object seen twice by the order it was first seen, so sharing is part of the state)."""
    return _state(obj, {})


def _state(obj: Any, seen: dict[int, int]) -> Any:
    if isinstance(obj, _LEAVES):
        return obj
    if isinstance(obj, float):
        return ("float", obj.hex())
    if isinstance(obj, enum.Enum):
        return ("enum", type(obj).__qualname__, obj.name)
    if isinstance(obj, _REFS):
        return ("ref", getattr(obj, "__qualname__", type(obj).__qualname__))
    if isinstance(obj, np.generic):
        return ("np", obj.dtype.str, obj.tobytes())
    key = id(obj)
    if key in seen:
        return ("seen", seen[key])
    seen[key] = len(seen)
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
    if isinstance(obj, np.random.Generator):
        return ("rng", _state(obj.bit_generator.state, seen))
    if isinstance(obj, bytearray | memoryview):
        return ("buffer", bytes(obj))
    if isinstance(obj, list | tuple | deque):
        return (type(obj).__name__, tuple(_state(v, seen) for v in obj))
    if isinstance(obj, set | frozenset):
        return (type(obj).__name__, tuple(sorted((_state(v, seen) for v in obj), key=repr)))
    if isinstance(obj, Mapping):
        return ("map", tuple((_state(k, seen), _state(v, seen)) for k, v in obj.items()))
    if isinstance(obj, msgspec.Struct):
        return (type(obj).__qualname__, tuple(_state(getattr(obj, f), seen) for f in obj.__struct_fields__))
    fields: list[Any] = []
    if hasattr(obj, "__dict__"):
        fields.append(_state(vars(obj), seen))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                fields.append((slot, _state(getattr(obj, slot), seen)))
    if not fields:  # an opaque object (a key held by a C library): its type is all we can compare
        return ("opaque", type(obj).__qualname__)
    return (type(obj).__qualname__, tuple(fields))


def difference(a: Any, b: Any, path: str = "") -> str:
    """Where two :func:`state_of` values first differ (a path of indices and keys), for a message."""
    if a == b:
        return ""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                label = x[0] if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str | int) else i
                return difference(x, y, f"{path}/{label}")
    return f"{path}: {str(a)[:200]} -> {str(b)[:200]}"
