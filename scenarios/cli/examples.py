"""Examples shown at the end of every command's ``--help`` (1-3 real invocations each).

:func:`add_examples` writes them as each parser's epilog after the commands are
registered, keyed by the command's words (``"attack eavesdrop"``).  A test
parses every example with the real parser (tests/scenarios/cli/test_help.py),
so an example cannot name a flag that no longer exists.
"""

from __future__ import annotations

import argparse

__all__ = ["EXAMPLES", "add_examples"]

EXAMPLES: dict[str, tuple[str, ...]] = {
    "run": (
        "mpc-rr run adult --parties 5000 --p 0.7                  # Adult, 5,000 parties",
        "mpc-rr run people.csv --schema people.toml --dependence secure-sum",
        "mpc-rr run people.csv --infer-schema --columns age,sex,region --ordinal age --json",
    ),
    "secure-sum": (
        "mpc-rr secure-sum --protocol secagg --parties 1000 --cells 16",
        "mpc-rr secure-sum --protocol secagg --parties 200 --dropout 0.05 --drop-step masked",
        "mpc-rr secure-sum --protocol full-mesh --parties 20 --transport tcp --transcript run.bin",
    ),
    "rrba": (
        "mpc-rr rrba --data survey --clients 8000 --block 250 --p 0.5",
        "mpc-rr rrba --data people.csv --delimiter ';' --columns age,sex,region --max-categories 20",
        "mpc-rr rrba --data alarm --clients 4000 --transport memory --secure-tally",
    ),
    "schema infer": (
        "mpc-rr schema infer survey.csv --ordinal A --out schema.toml",
        "mpc-rr schema infer people.csv --columns age,sex,region --ordinal age",
    ),
    "schema check": ("mpc-rr schema check survey.csv --schema schema.toml",),
    "data list": ("mpc-rr data list", "mpc-rr data list --json"),
    "data info": ("mpc-rr data info adult", "mpc-rr data info bnlearn/alarm.bif --json"),
    "data path": ("mpc-rr data path survey_10000          # the Survey sample: cp \"$(mpc-rr data path survey_10000)\" .",),
    "classroom": (
        "mpc-rr classroom full-mesh --parties 4                       # a text trace",
        "mpc-rr classroom secagg --parties 6 --format html --out secagg.html",
        "mpc-rr classroom full-mesh --format mermaid --states --out mesh.md",
    ),
    "classroom-serve": (
        "mpc-rr classroom serve --protocol full-mesh --port 8000",
        "mpc-rr classroom serve --protocol rr-survey --question 'Did you cheat?' --p 0.7 --bots 10",
    ),
    "scenario run": (
        "mpc-rr scenario run scenarios/experiments/examples/dropout_secagg.toml --store results.db",
    ),
    "scenario check": ("mpc-rr scenario check my_study.toml --store results.db",),
    "scenario kinds": ("mpc-rr scenario kinds", "mpc-rr scenario kinds pipeline"),
    "results list": ("mpc-rr results list --store results.db",),
    "results show": (
        "mpc-rr results show dropout-secagg --store results.db",
        "mpc-rr results show dropout-secagg --runs --store results.db",
    ),
    "results export": ("mpc-rr results export --csv --out runs.csv --store results.db",),
    "report": ("mpc-rr report results.db --out report/", "mpc-rr report results.db --scenario dropout-secagg"),
    "audit": (
        "mpc-rr audit --mechanism krr --k 2 --epsilon 1 --trials 1000000",
        "mpc-rr audit --mechanism rrba --data survey --clients 2500 --block 250",
        "mpc-rr audit --mechanism pipeline --data people.csv --schema people.toml --parties 5000",
    ),
    "privacy": (
        "mpc-rr privacy --epsilon0 4 --parties 100000 --delta 1e-6 --channel anonymous",
        "mpc-rr privacy --epsilon0 4 --parties 100000 --channel secure-sum --target-epsilon 0.5",
    ),
    "attack linkability": (
        "mpc-rr attack linkability --data adult --parties 1000 --p 0.9 --channel anonymous",
        "mpc-rr attack linkability --data people.csv --infer-schema --parties 2000 --json",
    ),
    "attack eavesdrop": (
        "mpc-rr attack eavesdrop --protocol secagg --transport tcp --parties 100",
        "mpc-rr attack eavesdrop --protocol pipeline --data people.csv --schema people.toml --parties 2000",
        "mpc-rr attack eavesdrop --transcript run.bin                # a recorded run, offline",
    ),
    "attack coalition": (
        "mpc-rr attack coalition --protocol secagg --parties 20 --size 13",
        "mpc-rr attack coalition --protocol full-mesh --parties 12 --size 11",
    ),
    "attack poison": (
        "mpc-rr attack poison --protocol secagg --malicious 1 --strategy out-of-range",
        "mpc-rr attack poison --protocol prio3 --malicious 5 --strategy skip-rr --keep 0.5",
    ),
    "attack cheat": (
        "mpc-rr attack cheat --protocol secagg --strategy equivocate --trials 5",
        "mpc-rr attack cheat --protocol full-mesh-board --strategy key-substitution --json",
        "mpc-rr attack cheat --protocol rrba --strategy isolate --trials 2",
    ),
    "reproduce": (
        "mpc-rr reproduce mdrr-table1 --runs 20",
        "mpc-rr reproduce mdrr-fig3 --data people.csv --schema people.toml --runs 5",
        "mpc-rr reproduce rrba-table4 --clients 8000 --runs 10",
    ),
    "mechanism lambda": ("mpc-rr mechanism lambda --sizes 5,5,5 --lambdas 0.6,0.7,0.4",),
    "mechanism optimized": (
        "mpc-rr mechanism optimized --sizes 5,5,5 --eps 2,3,4",
        "mpc-rr mechanism optimized --sizes 5,5,5,5 --eps 2,3,4,5 --method heuristic --on-mismatch reorder",
    ),
    "keys init": (
        "mpc-rr keys init --parties 10 --out deploy/",
        "mpc-rr keys init --parties 50 --hub 10.0.0.1:7000 --out deploy/",
    ),
    "party": (
        "mpc-rr party --roster deploy/roster.json --id 0 --protocol secagg --params '{\"cells\": 16}'",
        "mpc-rr party --roster deploy/roster.json --id 3 --protocol secagg --params '{\"cells\": 16}'",
    ),
    "ping": (
        "mpc-rr ping --transport tcp --parties 20",
        "mpc-rr ping --transport tcp --processes --parties 50 --hub-process",
    ),
}
"""Command words -> invocations (``#`` starts a comment shown beside it)."""

_GROUPS = {"schema", "data", "scenario", "results", "attack", "mechanism", "keys"}
"""Commands whose sub-commands carry the examples: their own help lists one per sub-command."""


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Append each command's examples to its epilog (a group command: its sub-commands' first)."""
    for path, p in _walk(parser):
        key = " ".join(path)
        lines = EXAMPLES.get(key, ())
        if not lines and key in _GROUPS and "Examples:" not in (p.description or ""):
            lines = tuple(v[0] for k, v in EXAMPLES.items() if k.startswith(key + " "))
        if not lines:
            continue
        text = "examples:\n" + "\n".join(f"  {line}" for line in lines)
        p.epilog = text if not p.epilog else f"{p.epilog}\n\n{text}"
