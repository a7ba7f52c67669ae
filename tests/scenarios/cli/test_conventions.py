"""Every subcommand follows the CLI conventions: help text on every option, defaults shown,
choices validated by argparse, ``--json`` everywhere, one error format."""

from __future__ import annotations

import argparse
import json

import pytest

from scenarios.cli import build_parser, main


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


PARSERS = list(_walk(build_parser()))
LEAVES = [
    (path, p)
    for path, p in PARSERS
    if path and not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)
]


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    skip = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
    return [a for a in parser._actions if not isinstance(a, skip)]


def test_the_walk_finds_every_command() -> None:
    names = {p[0] for p, _ in LEAVES}
    assert {"run", "secure-sum", "rrba", "classroom", "keys", "party", "ping", "audit"} <= names
    assert len(LEAVES) >= 14


@pytest.mark.parametrize("path,parser", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_option_has_help_and_every_default_is_shown(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    missing = [a.dest for a in _options(parser) if not (a.help or "").strip()]
    assert not missing, f"mpc-rr {' '.join(path)}: options without help text: {missing}"
    formatter = parser._get_formatter()
    hidden = []
    for a in _options(parser):
        if not a.option_strings or a.default in (None, False, [], argparse.SUPPRESS):
            continue
        if "default" not in formatter._format_action(a).lower():
            hidden.append(f"{a.option_strings[0]} (default {a.default!r})")
    assert not hidden, f"mpc-rr {' '.join(path)}: --help hides these defaults: {hidden}"
    assert "default" in parser.format_help() or not any(
        a.option_strings and a.default not in (None, False, [], argparse.SUPPRESS)
        for a in _options(parser)
    )


@pytest.mark.parametrize("path,parser", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_command_offers_json(path: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
    if path == ("party",):  # prints its JSON report always (one line, the process's result)
        return
    flags = {s for a in parser._actions for s in a.option_strings}
    assert "--json" in flags, f"mpc-rr {' '.join(path)} has no --json"


@pytest.mark.parametrize("path,parser", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_choices_are_validated_by_argparse(
    path: tuple[str, ...], parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    for a in _options(parser):
        if a.choices is None or not a.option_strings:
            continue
        with pytest.raises(SystemExit) as exc:
            main([*path, a.option_strings[0], "no-such-choice"])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"mpc-rr {' '.join(path)}: error: argument {a.option_strings[0]}" in err
        assert "invalid choice" in err


def test_version_and_one_error_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("mpc-rr ")
    with pytest.raises(SystemExit) as exc:
        main(["classroom", "full-mesh", "--parties", "11"])
    assert exc.value.code == 2
    assert "mpc-rr classroom: error: argument --parties: must be an integer in [3, 10], got 11" in (
        capsys.readouterr().err
    )
    assert main(["classroom", "full-mesh", "--drop", "9@shares"]) == 2
    assert capsys.readouterr().err.startswith("mpc-rr classroom: error: --drop 9@shares: party id")


def test_keys_init_json(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert main(["keys", "init", "--parties", "3", "--out", str(tmp_path / "d"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parties"] == 3 and out["roster"].endswith("roster.json")


def test_the_cli_starts_without_the_heavy_libraries() -> None:
    """``mpc-rr --help`` (and every command's start) must not wait for scipy or the RRBA stack:
    under load that took seconds and made party processes miss their first signal."""
    import subprocess
    import sys

    code = (
        "import sys; import scenarios.cli as c; c.build_parser(); "
        "print(sorted(m for m in sys.modules if m in ('scipy', 'numpy', 'matplotlib', 'trio', 'clarabel') "
        "or (m.startswith('mpc_rr.rrba._') and m not in ('mpc_rr.rrba._choices', 'mpc_rr.rrba._spec'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rrba_choices_are_the_ones_the_library_checks() -> None:
    from mpc_rr.rrba import CLIENT_RNG, ESTIMATORS, REPAIRS, STOPS, BlockAggregator, run_rrba
    from mpc_rr.rrba._simulate import CLIENT_RNG as checked_rng
    from mpc_rr.rrba._update import REPAIRS as checked_repairs

    assert checked_rng is CLIENT_RNG and checked_repairs is REPAIRS
    assert ESTIMATORS == ("pooled", "paper") and STOPS == ("first", "never")
    assert callable(run_rrba) and BlockAggregator is not None
