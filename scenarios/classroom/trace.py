"""What a classroom trace is: numbered items a renderer turns into text, mermaid or HTML.

A :class:`Trace` is plain data (frozen dataclasses of strings and ints), so
the three renderers (:mod:`.render`) and the JSON form share one source and a
golden-file test pins all of them at once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["DISCLAIMER", "Item", "Kind", "Trace", "to_json"]

DISCLAIMER = (
    "TEACHING TRACE, NOT A DEPLOYMENT: messages travel in plaintext and every share, mask, key "
    "and random draw comes from the public seed, so anyone can recompute them. A deployment "
    "draws them from the operating system's CSPRNG and sends them over mutual TLS."
)

Kind = Literal["round", "message", "note", "state", "deadline", "drop", "abort", "reject"]


@dataclass(frozen=True)
class Item:
    """One line of the trace.

    ``kind``:

    * ``round`` -- a new phase begins (``text`` is its title);
    * ``message`` -- message ``number`` from ``src`` to ``dst`` of ``type``,
      ``size`` bytes as encoded, ``values`` decoded from those bytes as
      ``(label, text)`` pairs; ``delivered`` is false for a message sent by a
      party that crashed right after (never seen on the wire) -- see ``drop``;
    * ``note`` -- an explanation or a check computed from the run (``parties``
      it is about);
    * ``state`` -- party ``src`` moved from one state of its transition table
      to another (``text``: ``"A -> B"``; ``type``: what triggered it);
    * ``deadline`` -- a step deadline passed at party ``src``;
    * ``drop`` -- party ``src`` crashed on purpose (``--drop``);
    * ``abort`` -- party ``src`` stopped without a result (``text``: why);
    * ``reject`` -- party ``src`` refused a message from ``dst`` (a peer error).
    """

    kind: Kind
    text: str = ""
    number: int = 0
    src: int = -1
    dst: int = -1
    type: str = ""
    size: int = 0
    values: tuple[tuple[str, str], ...] = ()
    delivered: bool = True
    parties: tuple[int, ...] = ()


@dataclass(frozen=True)
class Trace:
    """A whole classroom run.

    ``participants`` maps party id to a display name; ``setup`` are the lines
    printed before the first message (parameters, private inputs);
    ``check`` the lines after the last (the comparison with the plain
    computation) and ``ok`` its verdict; ``diagrams`` the transition table of
    each role class as ``(role, initial state, edges)`` with ``(state, event, next state)`` edges.
    """

    protocol: str
    title: str
    seed: int
    participants: dict[int, str]
    setup: tuple[str, ...]
    items: tuple[Item, ...]
    check: tuple[str, ...]
    ok: bool
    diagrams: tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...] = ()
    initial_states: dict[int, str] = field(default_factory=dict)
    runner: str = "harness"
    disclaimer: str = DISCLAIMER
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> list[Item]:
        return [i for i in self.items if i.kind == "message"]


def to_json(trace: Trace) -> dict[str, Any]:
    """The trace as JSON-able data (``--format json``)."""
    d = dataclasses.asdict(trace)
    d["participants"] = {str(k): v for k, v in trace.participants.items()}
    d["initial_states"] = {str(k): v for k, v in trace.initial_states.items()}
    d["items"] = [dataclasses.asdict(i) for i in trace.items]
    for it in d["items"]:
        it["values"] = [list(v) for v in it["values"]]
        it["parties"] = list(it["parties"])
    d["diagrams"] = [
        {"role": name, "initial": initial, "edges": [list(e) for e in edges]}
        for name, initial, edges in trace.diagrams
    ]
    return d
