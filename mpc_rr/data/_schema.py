"""Categorical schemas and the encoder from raw values to integer codes.

A :class:`Schema` is an ordered tuple of :class:`Attribute` (name, ordered
category list, ordinal or nominal).  Records are encoded as an ``(n, m)``
integer array of category codes, ``codes[i, j]`` being the index of party
``i``'s value of attribute ``j`` in ``attributes[j].categories``.  The kind
(ordinal / nominal) chooses the dependence measure (|Pearson r| for two
ordinal attributes, Cramér's V otherwise; Domingo-Ferrer & Soria-Comas,
Expressions 8-9).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data._csv_reader import read_csv_columns

__all__ = ["Attribute", "Dataset", "Schema", "encode_columns", "load_csv"]


@dataclass(frozen=True)
class Attribute:
    """One categorical attribute: ``categories`` in their (ordinal) order."""

    name: str
    categories: tuple[str, ...]
    ordinal: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise UsageError("Attribute: name must be non-empty")
        if len(self.categories) < 1:
            raise UsageError(f"Attribute {self.name!r}: needs at least one category")
        if len(set(self.categories)) != len(self.categories):
            raise UsageError(f"Attribute {self.name!r}: duplicate categories {self.categories}")

    @property
    def size(self) -> int:
        return len(self.categories)


@dataclass(frozen=True)
class Schema:
    """An ordered set of attributes (hashable; names and sizes are cached)."""

    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if not names:
            raise UsageError("Schema: needs at least one attribute")
        if len(set(names)) != len(names):
            raise UsageError(f"Schema: duplicate attribute names in {names}")

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.attributes)

    @property
    def domain_size(self) -> int:
        return math.prod(self.sizes)

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise UsageError(f"Schema: no attribute named {name!r}; have {self.names}") from None

    def __len__(self) -> int:
        return len(self.attributes)

    def subset(self, idx: Sequence[int]) -> Schema:
        return Schema(tuple(self.attributes[i] for i in idx))


@dataclass(frozen=True)
class Dataset:
    """Encoded records: ``codes`` is ``(n, m)`` int with ``m == len(schema)``.

    ``name`` identifies the data in every output (a CSV file's stem unless
    given; ``"adult"`` for Adult).
    """

    schema: Schema
    codes: np.ndarray
    name: str = "data"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise UsageError(f"Dataset: name must be a non-empty string, got {self.name!r}")
        c = self.codes
        if c.ndim != 2 or c.shape[1] != len(self.schema):
            raise UsageError(
                f"Dataset: codes must have shape (n, {len(self.schema)}), got {c.shape}"
            )
        if c.shape[0] == 0:
            raise UsageError("Dataset: no records")
        if not np.issubdtype(c.dtype, np.integer):
            raise UsageError(f"Dataset: codes must be integers, got dtype {c.dtype}")
        bad = (c < 0) | (c >= np.asarray(self.schema.sizes))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise UsageError(
                f"Dataset: record {i}, attribute {self.schema.names[j]!r}: code {c[i, j]} "
                f"outside 0..{self.schema.sizes[j] - 1}"
            )

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    def repeat(self, times: int) -> Dataset:
        """The data set concatenated ``times`` times (the paper's Adult6)."""
        if times < 1:
            raise UsageError(f"Dataset.repeat: times must be >= 1, got {times}")
        name = self.name if times == 1 else f"{self.name}x{times}"
        return Dataset(self.schema, np.tile(self.codes, (times, 1)), name)

    def subsample(self, n: int, rng: np.random.Generator) -> Dataset:
        if not 1 <= n <= self.n:
            raise UsageError(f"Dataset.subsample: n must be in 1..{self.n}, got {n}")
        idx = np.sort(rng.choice(self.n, size=n, replace=False))
        return Dataset(self.schema, self.codes[idx], self.name)


def encode_columns(
    columns: Mapping[str, Sequence[str]], schema: Schema, *, name: str = "data"
) -> Dataset:
    """Encode raw string columns (one per schema attribute) into a :class:`Dataset`.

    Raises :class:`UsageError` for a missing column, empty input, columns of
    different lengths, or a value that is not among the attribute's
    categories (the message names the attribute, the value and its first row).
    """
    missing = [a.name for a in schema.attributes if a.name not in columns]
    if missing:
        raise UsageError(f"encode: missing columns {missing}; have {sorted(columns)}")
    lengths = {a.name: len(columns[a.name]) for a in schema.attributes}
    n = next(iter(lengths.values()))
    if n == 0:
        raise UsageError("encode: empty input (no records)")
    if len(set(lengths.values())) != 1:
        raise UsageError(f"encode: columns have different lengths {lengths}")
    codes = np.empty((n, len(schema)), dtype=np.int64)
    for j, attr in enumerate(schema.attributes):
        values, inverse = np.unique(
            np.asarray(columns[attr.name], dtype=object).astype(str), return_inverse=True
        )
        lookup = {c: k for k, c in enumerate(attr.categories)}
        unseen = [str(v) for v in values if v not in lookup]
        if unseen:
            first = int(np.flatnonzero(np.asarray(columns[attr.name]) == unseen[0])[0])
            raise UsageError(
                f"encode: attribute {attr.name!r} has unseen category {unseen[0]!r} "
                f"(first at record {first}); known categories: {list(attr.categories)}"
            )
        codes[:, j] = np.array([lookup[v] for v in values], dtype=np.int64)[inverse]
    return Dataset(schema, codes, name)


def load_csv(
    path: str | Path,
    schema: Schema,
    *,
    header: bool | Sequence[str] = True,
    delimiter: str = ",",
    name: str | None = None,
    encoding: str = "utf-8-sig",
    skip_lines: int = 0,
    allow_control: bool = False,
) -> Dataset:
    """Load a CSV file and encode the schema's columns (the others are dropped unread).

    ``header=True`` reads column names from the first line; otherwise pass
    the column names.  Surrounding whitespace of every field is stripped and
    blank lines are skipped.  The data set is named ``name`` or the file's
    stem.  Errors name the file and the line (see :mod:`mpc_rr.data._csv_reader`);
    a value that is not among its attribute's categories is reported with
    the line of its first occurrence.
    """
    cols = read_csv_columns(
        path,
        schema.names,
        header=header,
        delimiter=delimiter,
        encoding=encoding,
        skip_lines=skip_lines,
        allow_control=allow_control,
    )
    codes = np.empty((cols.n, len(schema)), dtype=np.int64)
    for j, attr in enumerate(schema.attributes):
        lookup = {c: k for k, c in enumerate(attr.categories)}
        mapped = np.array([lookup.get(v, -1) for v in cols.values[j]], dtype=np.int64)
        col = mapped[cols.codes[:, j]]
        if (col < 0).any():
            first = int(np.flatnonzero(col < 0)[0])
            value = cols.values[j][cols.codes[first, j]]
            unseen = sorted({v for v, m in zip(cols.values[j], mapped, strict=True) if m < 0})
            cats = list(attr.categories)
            shown = cats if len(cats) <= 30 else [*cats[:30], "..."]
            raise UsageError(
                f"{cols.path} line {cols.line_of(first)}: column {attr.name!r} has value "
                f"{value!r}, not a category of the schema {shown}"
                f" ({len(unseen)} unseen value(s): {unseen[:10]}); add it to the schema "
                "or recode the data"
            )
        codes[:, j] = col
    return Dataset(schema, codes, name if name is not None else cols.path.stem)
