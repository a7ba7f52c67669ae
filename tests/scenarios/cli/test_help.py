"""Every command's ``--help`` is text for a user: no
reStructuredText markup leaking from docstrings, and 1-3 examples that the parser accepts."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest

from parties.cli_args import plain_text
from scenarios.cli import build_parser
from scenarios.cli.examples import EXAMPLES

MARKUP = re.compile(r"(?<!`)``(?!`)|:(?:func|mod|class|data|meth|attr|obj|exc|ref|doc):`|`[^`\n]+`_\b|\S::$", re.M)
"""reST a help text must not show: literals, roles, links, a paragraph's ``::``."""


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


PARSER = build_parser()
ALL = list(_walk(PARSER))
COMMANDS = [(path, p) for path, p in ALL if path]
IDS = [" ".join(path) for path, _ in COMMANDS]


def test_plain_text_removes_the_markup() -> None:
    text = "see :func:`~mpc_rr.rrba.run_rrba` and ``--seed``, `docs <http://x>`_, Examples::"
    assert plain_text(text) == "see run_rrba and --seed, docs, Examples:"
    assert plain_text(":mod:`mpc_rr.privacy`") == "mpc_rr.privacy"


@pytest.mark.parametrize("path,parser", COMMANDS, ids=IDS)
def test_help_shows_no_restructuredtext(path, parser) -> None:  # type: ignore[no-untyped-def]
    text = parser.format_help()
    assert not MARKUP.findall(text), (" ".join(path), MARKUP.findall(text))


@pytest.mark.parametrize("path,parser", COMMANDS, ids=IDS)
def test_every_command_has_examples_in_its_help(path, parser) -> None:  # type: ignore[no-untyped-def]
    text = parser.format_help()
    assert re.search(r"^examples?:\s*$", text, re.M | re.I), f"mpc-rr {' '.join(path)} --help has no examples"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("mpc-rr ")]
    assert 1 <= len(lines) <= 8


def _argv(example: str) -> list[str]:
    words = shlex.split(example, comments=True)
    assert words[0] == "mpc-rr", example
    argv = words[1:]
    if argv[:2] == ["classroom", "serve"]:  # as main() does
        argv[:2] = ["classroom-serve"]
    return argv


CASES = [(key, ex) for key, lines in EXAMPLES.items() for ex in lines]


@pytest.mark.parametrize("key,example", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_every_example_parses(key, example, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)  # --out and --transcript are probed (not created) at parse time
    argv = _argv(example)
    args = PARSER.parse_args(argv)  # argparse exits (SystemExit) on a flag it refuses
    assert args.command.replace(" ", "-") == argv[0] and callable(args.func)
    assert argv[: len(key.split())] == key.split()


def test_the_examples_name_real_commands() -> None:
    leaves = {" ".join(p) for p, parser in COMMANDS}
    assert set(EXAMPLES) <= leaves, set(EXAMPLES) - leaves
