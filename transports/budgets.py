"""What one authenticated party may send in one run: messages, bytes, and errors it causes.

A deployment's parties are authenticated, but an authenticated party may still
flood: well-formed or garbage frames, as fast as TCP takes them.  Memory stays
bounded whatever it sends (:mod:`transports.tcp_limits`); a :class:`PartyBudget`
bounds the *work* it makes the others do.  A party over its budget is cut off:

* ``messages`` and ``bytes`` -- frames and payload bytes the hub reads from
  the party in the whole run (any destination).  Counted by the hub
  (:class:`~transports.tcp_limits.PartyBudgets`), which disconnects the party
  and tells every connected party why (a control frame, see
  :meth:`transports.tcp_hub.TcpHub.cut`);
* ``errors`` -- peer errors the party's messages cause at one receiver (frames
  that do not decode, messages its role refuses; :class:`~mpc_rr.core.PeerError`),
  and among them ``garbage``, frames that do not even decode into a message of
  the protocol (:class:`~mpc_rr.core.DecodeError`: an honest party never sends one).
  Counted by every receiving party's driver (its message loop), which from then on
  drops that sender's frames unread and asks its endpoint to stop carrying them
  (the hub disconnects the sender; a client asks the hub to relay it nothing more
  from that sender).

The defaults (:meth:`PartyBudget.default`) are far above what an honest party of
any protocol here sends: an honest client sends a few messages per step to at most
every other party (the full mesh: ``n - 1`` shares per sum; RRBA with a secure
tally: one sum per block), so ``10,000 + 1,000 n`` messages and ``1 GiB + 4 MiB n``
bytes per run leave a margin of 1,000x or more at every size measured (the most
messages an honest client sent: 5 in SecAgg+ at n = 50, 50 in the full mesh's board
mode at n = 50, 3 in Prio3 at n = 20, 5 in RRBA with a secure tally at n = 20); an honest
party's messages cause no errors but for a few late ones after a step closed
(``100`` per receiver), and never a frame that does not decode (``10``).  A
flooder of garbage is cut within its first ten frames at whichever honest party
it addresses, and of well-formed but refused messages within a hundred.
"""

from __future__ import annotations

from dataclasses import dataclass

from mpc_rr.core import UsageError

__all__ = ["DEFAULT_ERRORS", "DEFAULT_GARBAGE", "PartyBudget", "parse_budget"]

DEFAULT_ERRORS = 100
"""Default peer errors one sender may cause at one receiver in one run."""
DEFAULT_GARBAGE = 10
"""Default frames that do not decode one sender may send one receiver in one run."""

_FIELDS = ("messages", "bytes", "errors", "garbage")


@dataclass(frozen=True)
class PartyBudget:
    """Limits per sending party and run; ``None`` in a field: that dimension is unlimited."""

    messages: int | None = None
    bytes: int | None = None
    errors: int | None = None
    garbage: int | None = None

    def __post_init__(self) -> None:
        for name in _FIELDS:
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise UsageError(f"PartyBudget: {name} must be None or an int >= 1, got {v!r}")

    @classmethod
    def default(cls, n_parties: int) -> PartyBudget:
        """The deployments' default for a roster of ``n_parties`` (module docstring)."""
        n = max(1, int(n_parties))
        return cls(messages=10_000 + 1_000 * n, bytes=(1 << 30) + (4 << 20) * n, errors=DEFAULT_ERRORS,
                   garbage=DEFAULT_GARBAGE)  # fmt: skip

    def describe(self) -> str:
        """``messages=..,bytes=..,errors=..,garbage=..`` (``none``: unlimited): the flag's syntax."""
        return ",".join(f"{k}={'none' if getattr(self, k) is None else getattr(self, k)}" for k in _FIELDS)

    def to_json(self) -> dict[str, int | None]:
        return {k: getattr(self, k) for k in _FIELDS}


def parse_budget(text: str, n_parties: int) -> PartyBudget | None:
    """``--party-budget``: ``default``, ``none`` (no budget at all), or
    ``messages=N,bytes=N,errors=N,garbage=N`` -- any subset, each ``N`` an integer >= 1 or ``none``;
    an unnamed dimension keeps its default for ``n_parties``.  A bad value is a
    :class:`UsageError` naming the flag, the rule and what was given."""
    t = str(text).strip().lower()
    if t == "none":
        return None
    base = PartyBudget.default(n_parties)
    if t == "default":
        return base
    values = base.to_json()
    for item in t.split(","):
        key, sep, val = item.partition("=")
        key, val = key.strip(), val.strip()
        if not sep or key not in values:
            raise UsageError(
                f"--party-budget: expected 'default', 'none' or messages=N,bytes=N,errors=N,garbage=N "
                f"(N an integer >= 1 or 'none'), got {text!r}"
            )
        if val == "none":
            values[key] = None
            continue
        try:
            n = int(val)
        except ValueError:
            n = 0
        if n < 1:
            raise UsageError(f"--party-budget: {key} must be an integer >= 1 or 'none', got {val!r}")
        values[key] = n
    return PartyBudget(**values)
