"""The teacher's view of a live round's relayed frames: counts, each party's last step, and
a few frames to the server field by field (the room, :mod:`parties.room`, sends it a few
times a second instead of one event per frame)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mpc_rr.core import DecodeError, Message, WireArray

__all__ = ["SAW_PER_TYPE", "Progress"]

SAW_PER_TYPE = 12
"""Frames of each message type to the server shown field by field ("what the server saw");
the others of that type are counted."""


@dataclass(eq=False)
class Progress:
    """The round's relayed frames, summarised for the teacher's page: per (step, message type)
    the frames and bytes, each party's last step, a few frames to the server field by field
    (:data:`SAW_PER_TYPE` per type).  :meth:`flush` returns what changed since the last one."""

    counts: dict[tuple[int, str], list[int]] = field(default_factory=dict)  # -> [frames, bytes, to server]
    last_step: dict[int, int] = field(default_factory=dict)
    shown: dict[str, int] = field(default_factory=dict)
    frames: int = 0
    saw: list[dict[str, Any]] = field(default_factory=list)  # every frame shown so far
    _saw: list[dict[str, Any]] = field(default_factory=list)
    _moved: dict[int, int] = field(default_factory=dict)
    dirty: bool = False

    def add(self, src: int, dst: int, msg: Message, size: int) -> None:
        name = type(msg).__name__
        step = int(msg.step)
        c = self.counts.setdefault((step, name), [0, 0, 0])
        c[0] += 1
        c[1] += size
        self.frames += 1
        if self.last_step.get(src, -1) < step:
            self.last_step[src] = self._moved[src] = step
        if dst == 0:
            c[2] += 1
            if self.shown.get(name, 0) < SAW_PER_TYPE:
                self.shown[name] = self.shown.get(name, 0) + 1
                frame = {"src": src, "msg": name, "step": step, "size": size, "fields": _shown(msg)}
                self._saw.append(frame)
                self.saw.append(frame)
        self.dirty = True

    def summary(self) -> dict[str, Any]:
        """Every count so far (the page redraws its small table from it)."""
        steps = [{"step": step, "msg": name, "frames": c[0], "bytes": c[1], "to_server": c[2]}
                 for (step, name), c in sorted(self.counts.items())]  # fmt: skip
        return {"frames": self.frames, "steps": steps}

    def flush(self) -> dict[str, Any]:
        """The summary, the parties whose last step moved and the frames newly shown."""
        out = {**self.summary(), "moved": {str(k): v for k, v in self._moved.items()}, "saw": self._saw}
        self._moved, self._saw, self.dirty = {}, [], False
        return out

    def everything(self) -> dict[str, Any]:
        """All of it, for a teacher page that (re)connects."""
        return {**self.summary(), "moved": {str(k): v for k, v in self.last_step.items()}, "saw": list(self.saw)}


def _shown(msg: Message) -> dict[str, Any]:
    """What a frame to the server carries, field by field (arrays as their values, bytes in
    hex, cut short): the "what the server saw" panel."""
    out: dict[str, Any] = {}
    for name in msg.__struct_fields__:
        if name in ("v", "run", "step"):
            continue
        value = getattr(msg, name)
        if isinstance(value, WireArray):
            try:
                flat = value.to_numpy().ravel()
                out[name] = [int(v) for v in flat[:24]] + (["..."] if flat.size > 24 else [])
            except DecodeError:
                out[name] = f"<malformed array of {len(value.data)} bytes>"
        elif isinstance(value, bytes):
            out[name] = value[:24].hex() + ("..." if len(value) > 24 else "")
        elif isinstance(value, list | tuple):  # e.g. Prio3's nonces: a few items, bytes in hex
            out[name] = [v[:8].hex() + "..." if isinstance(v, bytes) else v for v in value[:8]] + (
                ["..."] if len(value) > 8 else [])
        else:
            out[name] = value
    return out
