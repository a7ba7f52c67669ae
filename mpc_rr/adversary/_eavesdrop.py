"""The eavesdropper on a recorded run: who took part and when, and whether sizes say anything.

Pure functions of a :class:`~mpc_rr.core.Transcript` (a tap, or a saved
file analysed offline).  They complement :mod:`mpc_rr.adversary._traffic`
(whose metrics need the private values as labels) with what an observer
learns with no labels at all:

* :func:`participation` -- every party seen on the wire, when it first and
  last sent, how much; the run/step labels where payloads are readable.
  Without cover traffic nothing of this is hidden;
* :func:`size_census` -- for each position in a party's sequence of sends
  (its 1st, 2nd, ... message), how many distinct sizes the parties used.
  One size everywhere means *no* function of a private value can be read
  from sizes (the mutual information is exactly 0): fixed-length encodings
  prove themselves without any secret;
* :func:`on_link` -- the part of a hub's transcript an eavesdropper on one
  party's link sees.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mpc_rr.core import Transcript

__all__ = ["Participation", "SizeCensus", "on_link", "participation", "size_census"]


@dataclass(frozen=True)
class Participation:
    """Who sent on the wire and when (times on the recorder's clock).

    ``senders``: every id that sent (the hub included); ``first`` / ``last`` /
    ``messages`` / ``bytes`` per sender; ``steps``: the ``(run, step)``
    labels seen with their message counts (empty beneath TLS); ``span``: time
    of the last event minus the first.
    """

    observer: str
    senders: tuple[int, ...]
    first: dict[int, float]
    last: dict[int, float]
    messages: dict[int, int]
    bytes: dict[int, int]
    steps: dict[str, int]
    events: int
    total_bytes: int
    span: float

    def took_part(self, candidates: Iterable[int]) -> tuple[list[int], list[int]]:
        """Split ``candidates`` into those seen sending and those never seen."""
        seen = set(self.senders)
        cand = [int(c) for c in candidates]
        return [c for c in cand if c in seen], [c for c in cand if c not in seen]

    def to_dict(self) -> dict[str, object]:
        return {
            "observer": self.observer,
            "senders": len(self.senders),
            "events": self.events,
            "bytes": self.total_bytes,
            "span_s": self.span,
            "steps": dict(self.steps),
            "per_party": {
                str(p): {
                    "first": self.first[p],
                    "last": self.last[p],
                    "messages": self.messages[p],
                    "bytes": self.bytes[p],
                }
                for p in self.senders
            },
        }


def participation(transcript: Transcript) -> Participation:
    """Who took part and when (see :class:`Participation`)."""
    first: dict[int, float] = {}
    last: dict[int, float] = {}
    msgs: dict[int, int] = {}
    nbytes: dict[int, int] = {}
    steps: dict[str, int] = {}
    t_min, t_max = float("inf"), float("-inf")
    for e in transcript:
        p = e.src
        first[p] = min(first.get(p, e.time), e.time)
        last[p] = max(last.get(p, e.time), e.time)
        msgs[p] = msgs.get(p, 0) + 1
        nbytes[p] = nbytes.get(p, 0) + e.size
        t_min, t_max = min(t_min, e.time), max(t_max, e.time)
        if e.step is not None:
            key = f"{e.run}/{e.step}"
            steps[key] = steps.get(key, 0) + 1
    senders = tuple(sorted(first))
    return Participation(
        observer=transcript.observer,
        senders=senders,
        first=first,
        last=last,
        messages=msgs,
        bytes=nbytes,
        steps=dict(sorted(steps.items())),
        events=len(transcript),
        total_bytes=transcript.total_bytes,
        span=(t_max - t_min) if senders else 0.0,
    )


@dataclass(frozen=True)
class SizeCensus:
    """Distinct sizes per send position across parties (see :func:`size_census`).

    ``distinct[k]``: number of distinct sizes among the parties' ``k``-th
    sends; ``lengths``: number of distinct counts of sends; ``constant``:
    one size at every position and one count -- sizes carry no information.
    """

    parties: int
    positions: int
    distinct: tuple[int, ...]
    lengths: int

    @property
    def constant(self) -> bool:
        return self.lengths <= 1 and all(d <= 1 for d in self.distinct)

    def to_dict(self) -> dict[str, object]:
        return {
            "parties": self.parties,
            "positions": self.positions,
            "distinct_sizes_per_position": list(self.distinct),
            "distinct_message_counts": self.lengths,
            "constant": self.constant,
        }


def size_census(transcript: Transcript, parties: Iterable[int]) -> SizeCensus:
    """How many distinct sizes each send position takes across ``parties`` (in time order).

    Only the parties' own sends count (``src`` in ``parties``).  A hop to a
    party id that depends on a private value would show as several sizes
    here only if sizes differ; destinations are :func:`participation`'s job.
    """
    who = [int(p) for p in parties]
    seqs: dict[int, list[tuple[float, int, int]]] = {p: [] for p in who}
    for i, e in enumerate(transcript):
        if e.src in seqs:
            seqs[e.src].append((e.time, i, e.size))
    sizes = [[sz for _, _, sz in sorted(v)] for v in seqs.values()]
    longest = max((len(s) for s in sizes), default=0)
    distinct = tuple(len({s[k] for s in sizes if len(s) > k}) for k in range(longest))
    return SizeCensus(len(who), longest, distinct, len({len(s) for s in sizes}))


def on_link(transcript: Transcript, party: int) -> Transcript:
    """The events an eavesdropper on ``party``'s link sees (``party`` at either end)."""
    out = Transcript(f"{transcript.observer} (link of party {party})", keep_data=transcript.keep_data,
                     meta=transcript.meta)  # fmt: skip
    out.extend(e for e in transcript if e.src == party or e.dst == party)
    return out
