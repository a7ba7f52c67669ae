"""Read the columns you need from a CSV file of any width, as integer codes.

One streaming pass with the standard library's C parser (:mod:`csv`): every
row is parsed, only the requested fields are kept, and each chunk of rows is
turned into integer codes at once (a dict from value to code per column), so
memory is the codes of the kept columns plus one chunk of their strings --
never the whole file as Python lists.  Values are stripped of surrounding
whitespace (``a, b`` and ``a,b`` read alike); blank lines are skipped.

Every error names the file and, where there is one, the line:

* a directory or a missing file, an empty file, a header-only file;
* a header with an empty or repeated name, a requested column that is not in
  the header (with the closest names), header names given by the caller that
  do not match the width of the rows;
* a row with too many or too few fields (ragged rows);
* text that is not valid in the encoding (the first bad line is found by a
  second, binary scan) and what the :mod:`csv` module rejects;
* a header line longer than ``max_header_bytes`` (1 MiB: about 100,000
  columns), refused before it is parsed, so memory and time stay bounded;
* NUL bytes and line breaks inside a kept value (naming the line and the
  column; ``allow_control=True`` accepts them) -- a quoted line break is how
  an unterminated quote shows, so the message names the line where the quote
  opens, as does a ragged row that spans lines.

Everything is linear in the number of columns (a header of 80,000
columns took over 300 s when names were looked up in lists).

Decision: the standard library parses a 200,000 x 42 file and keeps
8 columns in about 0.9 s on our 2-core machine (pyarrow.csv 0.16 s,
polars 0.10 s), well inside the 1.5 s asked for, so we add no dependency of
170-180 MB; see ``docs/data.md`` for the comparison.
"""

from __future__ import annotations

import csv
import difflib
import gc
import itertools
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from mpc_rr.core import UsageError

__all__ = ["MAX_HEADER_BYTES", "CsvColumns", "read_csv_columns"]

_CHUNK = 65_536  # rows encoded at once: bounds the strings alive at any time
MAX_HEADER_BYTES = 1 << 20
"""Longest first line (the header, or the first record) read by default, in bytes."""
_CONTROL = re.compile("[\x00\r\n]")


class _Reader(Protocol):
    """What we use of a :func:`csv.reader` object."""

    line_num: int

    def __iter__(self) -> Iterator[list[str]]: ...

    def __next__(self) -> list[str]: ...


@dataclass(frozen=True)
class CsvColumns:
    """The kept columns of a CSV file: distinct values and per-record codes.

    ``codes[i, j]`` indexes ``values[j]``, the distinct whitespace-stripped
    values of column ``names[j]`` (in a deterministic order: chunk of first
    appearance, then sorted).  :meth:`line_of` gives the line of a record.
    """

    path: Path
    names: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    codes: npt.NDArray[np.int32]
    _options: _Options = field(repr=False)

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    def counts(self, j: int) -> npt.NDArray[np.int64]:
        """Records per distinct value of column ``j`` (aligned with ``values[j]``)."""
        return np.bincount(self.codes[:, j], minlength=len(self.values[j])).astype(np.int64)

    def line_of(self, record: int) -> int:
        """1-based line of the file on which record ``record`` ends (a second scan:
        line numbers are only needed for error messages, so none are stored)."""
        if not 0 <= record < self.n:
            raise UsageError(f"line_of: record must be in 0..{self.n - 1}, got {record}")
        return _line_of(self.path, self._options, record)


def _line_of(path: Path, o: _Options, record: int) -> int:
    """1-based line on which record ``record`` (0-based, blank lines not counted) ends."""
    with path.open(newline="", encoding=o.encoding) as fh:
        for _ in range(o.skip_lines):
            fh.readline()
        reader = csv.reader(fh, delimiter=o.delimiter, skipinitialspace=True)
        if o.header:
            _next_nonblank(reader)
        k = -1
        for row in reader:
            if len(row) == o.width or not _blank(row):
                k += 1
                if k == record:
                    return reader.line_num + o.skip_lines
    raise AssertionError("record beyond the end of the file")  # pragma: no cover


@dataclass(frozen=True)
class _Options:
    header: bool
    width: int
    delimiter: str
    encoding: str
    skip_lines: int


def read_csv_columns(
    path: str | Path,
    columns: Sequence[str] | None = None,
    *,
    header: bool | Sequence[str] = True,
    delimiter: str = ",",
    encoding: str = "utf-8-sig",
    skip_lines: int = 0,
    allow_control: bool = False,
    max_header_bytes: int = MAX_HEADER_BYTES,
) -> CsvColumns:
    """Read ``columns`` (default: all) of the CSV file at ``path``.

    Parameters
    ----------
    columns:
        Column names to keep, in the order wanted; the others are parsed and
        dropped at once.
    header:
        ``True``: the first line (after ``skip_lines``) names the columns.
        A sequence: the file has no header and these are its column names.
        ``False``: no header; columns are named ``"1"``, ``"2"``, ... by position.
    delimiter, encoding:
        Field separator; text encoding (default UTF-8, with or without BOM).
    skip_lines:
        Physical lines to skip before the header or the first record
        (a banner such as adult.test's ``|1x3 Cross validator``).
    allow_control:
        Accept NUL bytes and line breaks inside kept values (refused by
        default: they are almost always a damaged file or an unterminated quote).
    max_header_bytes:
        Longest first line accepted (the header, or the first record).

    Raises
    ------
    UsageError
        For every problem listed in the module docstring; the message names
        the file and the line.
    """
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p}: is a directory, not a CSV file")
    if not p.exists():
        raise UsageError(f"{p}: no such file")
    if skip_lines < 0:
        raise UsageError(f"read_csv_columns: skip_lines must be >= 0, got {skip_lines}")
    if len(delimiter) != 1:
        raise UsageError(f"read_csv_columns: delimiter must be one character, got {delimiter!r}")
    _check_first_line(p, skip_lines, max_header_bytes)
    try:
        fh = p.open(newline="", encoding=encoding)
    except LookupError:
        raise UsageError(f"read_csv_columns: unknown encoding {encoding!r}") from None
    except OSError as exc:
        raise UsageError(f"{p}: cannot open ({exc.strerror})") from None
    with fh:
        reader = csv.reader(fh, delimiter=delimiter, skipinitialspace=True)
        try:
            for _ in range(skip_lines):
                fh.readline()
            return _read(p, reader, columns, header, skip_lines, delimiter, encoding, allow_control)
        except UnicodeDecodeError as exc:
            line, col = _first_bad_line(p, encoding, skip_lines)
            raise UsageError(
                f"{p} line {line}: not valid {encoding} text (byte {col}: {exc.reason}); "
                "save the file as UTF-8, or give its encoding (e.g. encoding='latin-1', "
                "CLI --encoding latin-1)"
            ) from None
        except csv.Error as exc:
            hint = " (an unterminated quote above this line?)" if "field limit" in str(exc) else ""
            raise UsageError(f"{p} line {reader.line_num + skip_lines}: {exc}{hint}") from None


def _read(
    p: Path,
    reader: _Reader,
    columns: Sequence[str] | None,
    header: bool | Sequence[str],
    skip: int,
    delimiter: str,
    encoding: str,
    allow_control: bool,
) -> CsvColumns:
    header_line = 0
    rows: Iterator[list[str]] = reader
    if header is True:
        row = _next_nonblank(reader)
        if row is None:
            raise UsageError(f"{p}: empty file (no header line)")
        header_line = reader.line_num + skip
        names = [f.strip() for f in row]
        where = f"{p} line {header_line} (header)"
        empty = [k + 1 for k, nm in enumerate(names) if not nm]
        if empty:
            raise UsageError(f"{where}: column {empty[0]} has no name")
        dup = sorted(nm for nm, k in Counter(names).items() if k > 1)  # linear: 80k columns
        if dup:
            raise UsageError(f"{where}: repeated column names {dup}")
        expected = f"the {len(names)} names of the header (line {header_line})"
    else:
        first = _next_nonblank(reader)
        if first is None:
            raise UsageError(f"{p}: empty file (no records)")
        rows = itertools.chain([first], reader)
        if header is False:
            names = [str(k + 1) for k in range(len(first))]
            expected = f"the {len(names)} fields of the first record"
        else:
            names = [str(nm) for nm in header]
            if len(set(names)) != len(names):
                raise UsageError(f"read_csv_columns: repeated header names in {names}")
            expected = f"the {len(names)} header names given"
    keep = list(names) if columns is None else [str(c) for c in columns]
    if not keep:
        raise UsageError(f"{p}: no columns requested")
    if len(set(keep)) != len(keep):
        raise UsageError(f"{p}: columns requested twice in {keep}")
    position = {nm: k for k, nm in enumerate(names)}  # (repeated names refused above)
    for c in keep:
        if c not in position:
            close = difflib.get_close_matches(c, names[:10_000], n=3)
            hint = f"; did you mean {close}?" if close else ""
            shown = names if len(names) <= 50 else [*names[:50], "..."]
            raise UsageError(f"{p}: no column {c!r}{hint} (columns: {shown})")
    width = len(names)
    idx = [position[c] for c in keep]
    get: Callable[[list[str]], tuple[str, ...]]
    if len(idx) == 1:
        k0 = idx[0]

        def get(row: list[str]) -> tuple[str, ...]:
            return (row[k0],)

    else:
        get = operator.itemgetter(*idx)
    blanks = 0

    def odd(row: list[str]) -> tuple[str, ...] | None:
        """A row of the wrong width: a blank line (skipped) or an error."""
        nonlocal blanks
        if _blank(row):
            blanks += 1
            return None
        end = reader.line_num + skip
        start = end - _breaks("".join(row))
        if start < end:  # the row spans lines: a quote opened on `start` and closed late or never
            raise UsageError(
                f"{p} line {start}: a quote opens on this line and runs to line {end} "
                f"(unterminated?); the record has {len(row)} fields, expected {expected}"
            )
        raise UsageError(f"{p} line {end}: {len(row)} fields, expected {expected}")

    options = _Options(header is True, width, delimiter, encoding, skip)
    done = 0  # records encoded before this chunk

    def refuse_control(j: int, col: tuple[str, ...], v: str) -> None:
        """A kept value with a NUL byte or a line break: name its line and column."""
        end = _line_of(p, options, done + col.index(v))
        start = end - _breaks(v)
        what = "a NUL byte" if "\x00" in v else "a line break"
        why = (f"a quote opens on line {start} and runs to line {end} (unterminated?)"
               if start < end else "")  # fmt: skip
        raise UsageError(
            f"{p} line {start}, column {keep[j]!r} ({idx[j] + 1}): the value {v[:40]!r} has "
            f"{what}{'; ' + why if why else ''}; fix the file, or accept such values with "
            "allow_control=True"
        )

    dicts: list[dict[str, int]] = [{} for _ in keep]
    chunks: list[npt.NDArray[np.int32]] = []
    # the parse allocates only short-lived strings and tuples: the cyclic GC finds nothing
    # to free and its passes over the growing dicts cost ~10 %
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        while True:
            sel = [
                get(row) if len(row) == width else odd(row)
                for row in itertools.islice(rows, _CHUNK)
            ]
            if not sel:
                break
            if blanks:
                sel = [s for s in sel if s is not None]
                blanks = 0
                if not sel:
                    continue
            out = np.empty((len(sel), len(keep)), dtype=np.int32)
            for j, (col, d) in enumerate(zip(zip(*sel, strict=True), dicts, strict=True)):
                for v in sorted(set(col).difference(d)):
                    if not allow_control and _CONTROL.search(v):
                        refuse_control(j, col, v)
                    d[v] = len(d)
                out[:, j] = np.fromiter(map(d.__getitem__, col), dtype=np.int32, count=len(col))
            chunks.append(out)
            done += len(sel)
            del sel
    finally:
        if gc_was_enabled:
            gc.enable()
    if not chunks:
        raise UsageError(f"{p}: has no records (only a header, line {header_line})")
    codes = np.concatenate(chunks)
    values: list[tuple[str, ...]] = []
    for j, d in enumerate(dicts):
        raw = list(d)
        stripped = [v.strip() for v in raw]
        if stripped == raw:
            values.append(tuple(raw))
            continue
        merged: dict[str, int] = {}
        remap = np.array([merged.setdefault(v, len(merged)) for v in stripped], dtype=np.int32)
        codes[:, j] = remap[codes[:, j]]
        values.append(tuple(merged))
    return CsvColumns(p, tuple(keep), tuple(values), codes, options)


def _blank(row: list[str]) -> bool:
    return not row or (len(row) == 1 and not row[0].strip())


def _next_nonblank(reader: _Reader) -> list[str] | None:
    for row in reader:
        if not _blank(row):
            found: list[str] = row
            return found
    return None


def _breaks(text: str) -> int:
    """Line breaks inside a record's text that start a new line of the file (a break that
    ends the text is the record's own end, absorbed by a quote left open at end of file)."""
    return text.count("\n") - text.endswith("\n")


def _check_first_line(p: Path, skip: int, limit: int) -> None:
    """Refuse a first line (after ``skip``) over ``limit`` bytes before anything parses it."""
    try:
        with p.open("rb") as fh:
            for _ in range(skip):
                fh.readline()
            first = fh.readline(limit + 1)
    except OSError as exc:
        raise UsageError(f"{p}: cannot open ({exc.strerror})") from None
    if len(first) > limit and not first.endswith(b"\n"):
        raise UsageError(
            f"{p} line {skip + 1}: the first line is longer than {limit:,} bytes (max_header_bytes; "
            f"about {first.count(b',') + 1:,}+ columns in the first {limit:,} bytes); "
            "randomized response over that many attributes is not meaningful -- keep the "
            "columns you need in a smaller file"
        )


def _first_bad_line(p: Path, encoding: str, skip: int) -> tuple[int, int]:
    """1-based line and byte column of the first line that does not decode."""
    with p.open("rb") as fh:
        for k, raw in enumerate(fh, start=1):
            try:
                raw.decode(encoding)
            except UnicodeDecodeError as exc:
                return k, exc.start + 1
    return skip + 1, 1  # pragma: no cover (the text reader failed, so some line does)
