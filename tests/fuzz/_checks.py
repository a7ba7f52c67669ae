"""What a role must do with any message (the role targets' check, :mod:`tests.fuzz.roles`)."""

from __future__ import annotations

from mpc_rr.core import PeerError, ProtocolAbort, Role
from mpc_rr.core._errors import RELAY
from tests.fuzz._state import difference, state_of

TYPED = (PeerError, ProtocolAbort)

OPEN_BLAME: frozenset[tuple[str, str]] = frozenset()
"""``(role class, message type)`` pairs where one hostile sender could still get an honest party
blamed (none: a wrong share of another client's self-mask seed now makes SecAgg+'s server
retry with signed share commitments and exclude whoever the commitments prove lied, instead of
aborting and naming the seed's owner)."""


def check_receive(role: Role, src: int, msg: object) -> None:
    """``role.receive(src, msg)`` raises only a typed error; a refusal changes nothing but what it
    declares about the sender; no message makes the role blame anyone but its sender.

    A role refusing a message (:class:`~mpc_rr.core.PeerError`) either leaves its state exactly
    as it was, or takes one of the two consequences the protocols declare for the sender: it
    excludes the sender (who is then not waited for, :meth:`~mpc_rr.core.Role.waiting_for`:
    left out of the step, its contribution dropped), or it aborts.  Whenever the role aborts --
    the message refused or accepted -- its :class:`~mpc_rr.core.ProtocolAbort` blames only the
    sender (or the relay that carried the message): one hostile sender never gets an honest
    party named (but for the pairs in :data:`OPEN_BLAME`).
    """
    before = state_of(role)
    was_done = role.done
    try:
        role.receive(src, msg)  # type: ignore[arg-type]
    except TYPED as exc:
        if state_of(role) == before:
            return
        if not (role.done and not was_done) and src in role.waiting_for():
            raise AssertionError(
                f"{role.name}: a refused {type(msg).__name__} from {src} ({exc}) changed its state "
                f"at {difference(before, state_of(role))}, without excluding the sender or aborting"
            ) from None
    if role.error is not None and not was_done and (type(role).__name__, type(msg).__name__) not in OPEN_BLAME:
        _blames_only(role, src, msg)


def _blames_only(role: Role, src: int, msg: object) -> None:
    err = role.error
    assert err is not None
    allowed = {src, RELAY}
    wrong = [c for c in err.culprits if c not in allowed]
    wrong += [g for g in err.suspects if not allowed & set(g)]
    assert not wrong, (
        f"{role.name}: a {type(msg).__name__} from party {src} made it abort blaming {wrong} ({err})"
    )
