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
