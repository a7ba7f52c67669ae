"""Checks every command runs on its inputs before any work, in one place.

Each takes what a command line (or a scenario file) says and raises
:class:`~mpc_rr.core.UsageError` naming the flag, the rule and what to do.
They import nothing heavy (no numpy, trio or protocols), so a refusal
prints at once; the checks that need the data (:func:`check_columns_vary`,
:func:`check_parties`) run right after it is loaded, before any party is built.
"""

from __future__ import annotations

import argparse
import string
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError

__all__ = [
    "NETWORK_PROFILES",
    "RECORDS",
    "check_columns_vary",
    "check_network",
    "check_parties",
    "known_records",
    "poll_answers",
]

NETWORK_PROFILES = ("lan", "wan", "mobile")
"""transports.network_profiles.PROFILES' names, without importing the transports (a test checks
they agree)."""

RECORDS = {"adult": 32_561}
"""Records of each embedded data set, known before it is loaded (a test checks them)."""


def check_network(spec: str | None) -> None:
    """``--network``: a built-in profile or a readable ``.toml`` file (read later)."""
    if spec is None or spec in NETWORK_PROFILES:
        return
    path = Path(spec)
    if path.suffix != ".toml":
        raise UsageError(f"--network {spec!r} is neither a profile ({', '.join(NETWORK_PROFILES)}) "
                         "nor a .toml file")  # fmt: skip
    if not path.is_file():
        raise UsageError(f"--network {spec}: no such file")


def known_records(source: str) -> int | None:
    """How many records data source ``source`` holds, where that is known without reading it."""
    return RECORDS.get(source)


def check_parties(parties: int | None, records: int | None, name: str) -> None:
    """``--parties`` within the records of the data (``records`` ``None``: not known yet)."""
    if parties is not None and records is not None and parties > records:
        raise UsageError(f"--parties must be at most the {records:,} records of {name}, got {parties:,}")


def check_columns_vary(schema: Any, source: str) -> None:
    """Refuse attributes with a single category: randomized response cannot randomize them
    (their local epsilon is 0 and their estimate is exact), and they carry no information."""
    constant = [a.name for a in schema.attributes if len(a.categories) < 2]
    if not constant:
        return
    others = [a.name for a in schema.attributes if len(a.categories) >= 2]
    listed = ", ".join(constant)
    if others:
        fix = f"drop them: --infer-schema --columns {','.join(others)} (or remove them from the schema)"
    else:
        fix = "every column is constant: there is nothing to randomize; check the file and its delimiter"
    raise UsageError(f"{source}: column(s) {listed} have a single value in every record: {fix}")


def poll_answers(text: str) -> tuple[str, ...]:
    """``--options`` of the classroom: the answers, comma-separated (``Yes,No``), or how many
    (``3`` is ``A,B,C``); 2 to 8 distinct answers."""
    if text.strip().isdigit():
        k = int(text)
        if not 2 <= k <= 8:
            raise argparse.ArgumentTypeError(f"2 to 8 answers, got {k}")
        return tuple(string.ascii_uppercase[:k])
    answers = tuple(a.strip() for a in text.split(",") if a.strip())
    if not 2 <= len(answers) <= 8:
        raise argparse.ArgumentTypeError(
            f"2 to 8 answers, comma-separated (e.g. Yes,No) or their number, got {text!r}"
        )
    if len(set(answers)) != len(answers):
        raise argparse.ArgumentTypeError(f"answers must differ, got {list(answers)}")
    return answers
