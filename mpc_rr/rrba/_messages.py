"""The messages of distributed RRBA (its secure tally brings SecAgg+'s own).

Typed, frozen and bounded in the codec: every list has a ``max_length`` and
every integer a range, so a hostile frame is a
:class:`~mpc_rr.core.DecodeError` before any role sees it.  ``step`` (the
common routing label) is the block number, 1-based.

=============  =====================  ==========================================
message        direction              content
=============  =====================  ==========================================
AskBlock       aggregator -> client   at the start of the client's block: its
                                      view, the attribute subsets asked (the
                                      view's active ones, in view order) and
                                      their current tables, concatenated
Answer         client -> aggregator   the view and one reported cell per subset
                                      (plain tally only)
Dismiss        aggregator -> client   the collection ended before the client's
                                      block (``stop="first"``): nothing to do
=============  =====================  ==========================================
"""

from __future__ import annotations

from typing import Annotated

import msgspec
import numpy as np

from mpc_rr.core import DecodeError, Message, WireArray

__all__ = [
    "CELL_DTYPE",
    "MAX_ASK_CELLS",
    "MAX_ATTRIBUTES",
    "MAX_SUBSET",
    "MAX_VIEW",
    "RRBA_MESSAGES",
    "Answer",
    "AskBlock",
    "Dismiss",
    "read_cells",
    "wire_cells",
]

MAX_ATTRIBUTES = 4096
"""Attribute indices on the wire are below this."""
MAX_SUBSET = 64
"""Attributes in one subset (k)."""
MAX_VIEW = 4096
"""Subsets in one view (at most d / k)."""
MAX_ASK_CELLS = 1 << 20
"""Table cells in one AskBlock (8 MiB of float64)."""
_MAX_VIEWS = 1 << 20  # views of a cover (k = 2: d - 1 or d)

Attr = Annotated[int, msgspec.Meta(ge=0, lt=MAX_ATTRIBUTES)]
Subset = Annotated[list[Attr], msgspec.Meta(min_length=1, max_length=MAX_SUBSET)]
ViewId = Annotated[int, msgspec.Meta(ge=0, lt=_MAX_VIEWS)]


class AskBlock(Message, frozen=True):
    """The aggregator asks a client of block ``step`` to answer ``subsets`` of view ``view``.

    ``tables`` holds the tables of ``subsets``, each row-major over its
    attributes (ascending attribute order), one after the other.
    """

    view: ViewId
    subsets: Annotated[list[Subset], msgspec.Meta(min_length=1, max_length=MAX_VIEW)]
    tables: Annotated[list[float], msgspec.Meta(min_length=1, max_length=MAX_ASK_CELLS)]


class Answer(Message, frozen=True):
    """A client's reported cell of each subset it was asked, in the order asked.

    The cells travel as a fixed-width ``<u4`` array (:func:`wire_cells`): as
    MessagePack integers an answer of 128 or more took one byte more, which
    leaked part of the answer through TLS (measured on Adult by the
    adversary module's size census).
    """

    view: ViewId
    cells: WireArray


CELL_DTYPE = np.dtype("<u4")


def wire_cells(cells: np.ndarray | list[int]) -> WireArray:
    """An answer's cells on the wire: always 4 bytes per subset, whatever the values."""
    return WireArray.from_numpy(np.asarray(cells, dtype=CELL_DTYPE))


def read_cells(w: WireArray, sender: int) -> np.ndarray:
    """The cells of an Answer from ``sender``: 1 to MAX_VIEW entries of dtype ``<u4``.

    Raises :class:`~mpc_rr.core.DecodeError` naming the sender otherwise.
    """
    if len(w.shape) != 1 or not 1 <= w.shape[0] <= MAX_VIEW:
        raise DecodeError(f"Answer from party {sender}: cells of shape {w.shape}, expected 1 to "
                          f"{MAX_VIEW} entries", sender)  # fmt: skip
    out: np.ndarray = w.to_numpy(dtype=CELL_DTYPE, sender=sender).astype(np.int64)
    return out


class Dismiss(Message, frozen=True):
    """The collection ended after ``blocks`` blocks, before the client's block."""

    blocks: Annotated[int, msgspec.Meta(ge=0, le=2**31)]


RRBA_MESSAGES: tuple[type[Message], ...] = (AskBlock, Answer, Dismiss)


def rrba_messages() -> tuple[type[Message], ...]:
    """Every message type of the protocol (its spec's ``messages``)."""
    return RRBA_MESSAGES
