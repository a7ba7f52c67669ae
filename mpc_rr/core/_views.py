"""What an observer holds: the decoded messages of a transcript, restricted to its place.

Every adversary of the module reads one of these views and nothing else:

* an **eavesdropper** at the hub of the memory transport (or the relay hub of
  TCP, which terminates TLS) sees every payload in plaintext: ``observe(t, codec)``;
  a wire eavesdropper beneath TLS sees no payload at all (``plaintext`` is
  empty, only the metadata of :mod:`mpc_rr.adversary._traffic` remains);
* the **curious aggregator** (party 0) sees what it received and what it sent:
  ``observe(t, codec).of(0)``;
* a **coalition** sees what its members received and sent:
  ``observe(t, codec).of(*members)``, plus the members' role states
  (:mod:`mpc_rr.adversary._recovery`).

A :class:`Seen` message is one the observer decoded; events it cannot decode
(ciphertext, control frames, a truncated frame) are counted, never guessed at.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from mpc_rr.core._errors import DecodeError
from mpc_rr.core._messages import Codec, Message
from mpc_rr.core._transcript import Transcript

__all__ = ["Seen", "View", "message_types", "observe"]

M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class Seen:
    """One decoded message: hop ``src -> dst`` at ``time`` with its wire ``size``."""

    time: float
    src: int
    dst: int
    size: int
    msg: Message


@dataclass(frozen=True)
class View:
    """The decoded messages an observer holds (in recording order).

    ``undecodable`` counts events with bytes that did not decode (ciphertext,
    control frames); ``metadata_only`` counts events recorded without bytes.
    """

    observer: str
    messages: tuple[Seen, ...]
    undecodable: int = 0
    metadata_only: int = 0

    def __iter__(self) -> Iterator[Seen]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def plaintext(self) -> bool:
        """At least one payload was readable."""
        return bool(self.messages)

    def of(self, *parties: int, observer: str | None = None) -> View:
        """The part of this view a set of parties holds: messages they sent or received."""
        who = set(parties)
        kept = tuple(s for s in self.messages if s.src in who or s.dst in who)
        label = observer if observer is not None else f"parties {sorted(who)}"
        return View(label, kept)

    def select(
        self, kind: type[M], *, src: int | None = None, dst: int | None = None
    ) -> list[tuple[Seen, M]]:
        """``(seen, msg)`` for every message of type ``kind`` (optionally on one hop end)."""
        out: list[tuple[Seen, M]] = []
        for s in self.messages:
            if isinstance(s.msg, kind) and (src is None or s.src == src) and (
                dst is None or s.dst == dst
            ):
                out.append((s, s.msg))
        return out

    def first(self, kind: type[M], *, src: int | None = None, dst: int | None = None) -> M | None:
        """The first message of type ``kind`` on the given hop ends, if any."""
        found = self.select(kind, src=src, dst=dst)
        return found[0][1] if found else None

    def run_label(self) -> str | None:
        """The run id the decoded messages carry (the most common one)."""
        counts: dict[str, int] = {}
        for s in self.messages:
            counts[s.msg.run] = counts.get(s.msg.run, 0) + 1
        return max(counts, key=lambda k: counts[k]) if counts else None


def observe(
    transcript: Transcript,
    codec: Codec | Iterable[type[Message]],
    *,
    observer: str | None = None,
    delivered_only: bool = True,
) -> View:
    """Decode every payload of ``transcript`` an observer at its place could read.

    ``codec``: the strict codec of the protocol's messages (or the message
    classes to build one from) -- public knowledge: the protocol is public.
    Dropped events (``delivered=False``) are skipped unless ``delivered_only``
    is false (a tap before the loss saw them).
    """
    c = codec if isinstance(codec, Codec) else Codec(tuple(codec))
    seen: list[Seen] = []
    bad = empty = 0
    for e in transcript:
        if delivered_only and not e.delivered:
            continue
        if not e.data:
            empty += 1
            continue
        try:
            msg = c.decode(e.data, sender=e.src)
        except DecodeError:
            bad += 1
            continue
        seen.append(Seen(e.time, e.src, e.dst, e.size, msg))
    return View(observer if observer is not None else transcript.observer, tuple(seen), bad, empty)


def message_types(*groups: Iterable[type[Message]]) -> tuple[type[Message], ...]:
    """The union of several protocols' message classes, first occurrence kept (a codec's input)."""
    out: dict[type[Message], None] = {}
    for g in groups:
        out.update(dict.fromkeys(g))
    return tuple(out)
