"""``--party-budget``: its syntax, its defaults, and its refusals."""

from __future__ import annotations

import pytest

from mpc_rr.core import UsageError
from parties.party_main import main
from transports.budgets import PartyBudget, parse_budget


def test_the_default_grows_with_the_roster_and_none_turns_it_off() -> None:
    d = parse_budget("default", 11)
    assert d == PartyBudget.default(11) == PartyBudget(messages=21_000, bytes=(1 << 30) + 44 * (1 << 20),
                                                       errors=100, garbage=10)  # fmt: skip
    assert parse_budget("none", 11) is None
    assert parse_budget("errors=5,bytes=none", 11) == PartyBudget(messages=21_000, bytes=None, errors=5, garbage=10)
    assert parse_budget(d.describe(), 11) == d


@pytest.mark.parametrize(("text", "why"), [
    ("errors=0", "errors must be an integer >= 1 or 'none', got '0'"),
    ("frames=3", "expected 'default', 'none' or messages=N"),
    ("messages", "expected 'default', 'none' or messages=N"),
])  # fmt: skip
def test_a_bad_budget_is_refused_naming_the_rule(text: str, why: str) -> None:
    with pytest.raises(UsageError, match=why):
        parse_budget(text, 4)


def test_the_party_command_refuses_a_bad_budget_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--roster", "no-such-roster.json", "--id", "1", "--party-budget", "errors=-1"])
    assert exc.value.code == 2
    assert "--party-budget: errors must be an integer >= 1 or 'none', got '-1'" in capsys.readouterr().err


async def test_the_hubs_count_names_a_party_at_its_first_frame_over_budget(autojump_clock) -> None:
    """The hub's count (:class:`PartyBudgets`), in virtual time: frames and bytes per party and
    run, each party on its own; nothing waits while a party is within ``party_bytes``."""
    import trio

    from transports.tcp_limits import PartyBudgets

    b = PartyBudgets(1 << 20, PartyBudget(messages=3, bytes=1000), hub=0, patience=5.0)
    t0 = trio.current_time()
    assert [await b.admit(1, 10) for _ in range(3)] == [None, None, None]
    over = await b.admit(1, 10)
    assert over is not None and over.peer == 1
    assert str(over) == "hub: party 1 sent 4 messages, over its budget of 3 messages per run; disconnected it"
    assert await b.admit(2, 1000) is None  # another party's budget is its own
    over = await b.admit(2, 1)
    assert over is not None and "sent 1001 bytes, over its budget of 1000 bytes per run" in str(over)
    assert trio.current_time() == t0
    unlimited = PartyBudgets(1 << 20, None, hub=0, patience=5.0)
    assert all([await unlimited.admit(1, 1 << 10) is None for _ in range(10_000)])
