"""Records by name: Bayesian-network samples, Adult, or any categorical CSV (RRBA's clients, attacks).

* ``survey`` | ``alarm`` | ``child`` (or any shipped network name): ``clients``
  records drawn by seeded ancestral sampling from the shipped ``bnlearn/<name>.bif``
  (docs/rrba.md, data: the paper's n = 8,000 exceeds Survey's 500 records).
* ``adult``: the 8 categorical attributes of UCI Adult (32,561 records),
  shuffled with the seed, the first ``clients`` kept.
* ``FILE.csv``: a CSV with a header; every column is categorical, its
  categories are the distinct values in sorted order; shuffled with the seed,
  the first ``clients`` kept.  (The shipped ``*_10000.csv`` samples work here.)
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data._bif import NETWORKS, load_network
from mpc_rr.data._datasets import load_adult
from mpc_rr.data._schema import Attribute, Dataset, Schema, encode_columns

__all__ = ["DEFAULT_CLIENTS", "load_records"]

DEFAULT_CLIENTS = 8000


def _check_clients(clients: int | None, available: int | None, source: str) -> int:
    if clients is None:
        return available if available is not None else DEFAULT_CLIENTS
    if clients < 1:
        raise UsageError(f"--clients must be >= 1, got {clients}")
    if available is not None and clients > available:
        raise UsageError(f"--clients {clients} exceeds the {available} records of {source}")
    return clients


def _load_csv(path: Path) -> Dataset:
    if not path.exists():
        raise UsageError(f"--data: no such file {path}")
    with path.open(newline="") as fh:
        rows = [[f.strip() for f in r] for r in csv.reader(fh) if any(f.strip() for f in r)]
    if not rows:
        raise UsageError(f"--data: {path} is empty")
    header, body = rows[0], rows[1:]
    if not body:
        raise UsageError(f"--data: {path} has a header but no records (empty data)")
    if len(set(header)) != len(header) or any(not h for h in header):
        raise UsageError(f"--data: {path} header must name every column once, got {header}")
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise UsageError(
                f"--data: {path} record {i} has {len(r)} fields, expected {len(header)}"
            )
    cols = {h: [r[j] for r in body] for j, h in enumerate(header)}
    schema = Schema(tuple(Attribute(h, tuple(sorted(set(cols[h])))) for h in header))
    return encode_columns(cols, schema)


def load_records(spec: str, clients: int | None, rng: np.random.Generator) -> tuple[Dataset, str]:
    """The clients' records and a one-line description of where they came from."""
    if spec in NETWORKS:
        n = _check_clients(clients, None, spec)
        return load_network(spec).sample(n, rng), f"{n} records sampled from {spec}.bif"
    if spec == "adult":
        full = load_adult()
        source = "adult.data (8 categorical attributes)"
    elif spec.lower().endswith(".csv"):
        full = _load_csv(Path(spec))
        source = Path(spec).name
    else:
        raise UsageError(
            f"--data must be one of {', '.join((*NETWORKS, 'adult'))} or a .csv file, got {spec!r}"
        )
    n = _check_clients(clients, full.n, source)
    order = rng.permutation(full.n)[:n]
    return Dataset(full.schema, full.codes[order]), f"{n} of {full.n} records of {source}, shuffled"
