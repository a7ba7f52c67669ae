"""Issue 21: hostile CSV files -- very wide headers, NUL bytes, quoted line breaks,
unterminated quotes, constant columns."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import (
    ConstantColumnWarning,
    infer_schema,
    read_csv_columns,
    schema_to_toml,
)


def _wide(path: Path, k: int, rows: int = 3) -> Path:
    names = ",".join(f"c{i}" for i in range(k))
    body = "\n".join(",".join("ab"[(i + r) % 2] for i in range(k)) for r in range(rows))
    path.write_text(f"{names}\n{body}\n")
    return path


def test_a_wide_header_is_read_and_described_in_linear_time(tmp_path: Path) -> None:
    """Before: quadratic in the columns (``names.count``, ``names.index``, and
    ``schema_to_toml`` looking names up in tuples): 20k columns 20.7 s, 40k 86 s; 10k 27 s on a loaded machine."""
    data_file = _wide(tmp_path / "wide.csv", 10_000)
    t0 = time.perf_counter()
    data = read_csv_columns(data_file)
    text = schema_to_toml(infer_schema(data), data=data)
    seconds = time.perf_counter() - t0
    assert data.names[-1] == "c9999" and text.count("\n[[attribute]]") == 10_000
    assert seconds < 6.0, f"{seconds:.1f} s for 10,000 columns"  # before: 27 s (loaded); now ~1-2 s


def test_a_huge_header_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """Before: a 50 MB header never finished (and held its parse in memory)."""
    f = tmp_path / "huge.csv"
    f.write_bytes(b",".join(b"column%d" % i for i in range(300_000)) + b"\nx\n")  # ~3.3 MB
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(UsageError, match=r"huge.csv line 1: the first line is longer than 1,048,576"):
        read_csv_columns(f)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert time.perf_counter() - t0 < 2.0 and peak < 4 << 20, peak


def test_a_nul_byte_is_refused_naming_line_and_column(tmp_path: Path) -> None:
    """Before: "M\\x00" silently became a category of its own."""
    f = tmp_path / "nul.csv"
    f.write_bytes(b"sex,edu\nF,hs\nM\x00,uni\nM,hs\n")
    with pytest.raises(UsageError, match=r"nul.csv line 3, column 'sex' \(1\): the value 'M\\x00' has a NUL"):
        read_csv_columns(f)
    assert set(read_csv_columns(f, allow_control=True).values[0]) == {"F", "M", "M\x00"}
    assert read_csv_columns(f, ["edu"]).values == (("hs", "uni"),)  # only kept columns matter


def test_a_quoted_line_break_is_refused_naming_where_it_opens(tmp_path: Path) -> None:
    """Before: the category "uni\\nversity"."""
    f = tmp_path / "nl.csv"
    f.write_text('sex,edu\nF,hs\nM,"uni\nversity"\nM,hs\n')
    with pytest.raises(UsageError, match=r"nl.csv line 3, column 'edu' \(2\).*line break; a quote "
                       r"opens on line 3 and runs to line 4"):  # fmt: skip
        read_csv_columns(f)
    assert "uni\nversity" in read_csv_columns(f, allow_control=True).values[1]


@pytest.mark.parametrize("width", [1, 2])
def test_an_unterminated_quote_is_reported_where_it_opens(tmp_path: Path, width: int) -> None:
    """Before: reported at the end of the file (here line 7), not where the quote opens (4)."""
    f = tmp_path / "open.csv"
    rows = ["a", "x", "y", '"broken', "z", "w", "v"] if width == 1 else \
        ["a,b", "x,1", "y,2", '"broken,3', "z,4", "w,5", "v,6"]  # fmt: skip
    f.write_text("\n".join(rows) + "\n")
    with pytest.raises(UsageError, match=r"open.csv line 4.*a quote opens on (this )?line (4 )?and "
                       r"runs to line 7 \(unterminated\?\)"):  # fmt: skip
        read_csv_columns(f)


def test_a_constant_column_is_warned_about(tmp_path: Path) -> None:
    """Before: accepted silently (it carries no information: epsilon 0 for it)."""
    f = tmp_path / "const.csv"
    f.write_text("sex,country,edu\nF,NL,hs\nM,NL,uni\nM,NL,hs\n")
    with pytest.warns(ConstantColumnWarning, match=r"1 constant column\(s\): 'country' \(always 'NL'\)"):
        schema = infer_schema(read_csv_columns(f))
    assert schema.names == ("sex", "country", "edu")  # warned, not refused
