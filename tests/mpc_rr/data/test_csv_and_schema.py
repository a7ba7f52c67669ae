"""Your own data: the CSV column reader, schema inference and the schema TOML."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import (
    ADULT_SCHEMA,
    Attribute,
    Dataset,
    Schema,
    infer_schema,
    load_adult,
    load_adult_test,
    load_csv,
    load_schema,
    parse_schema,
    read_csv_columns,
    schema_to_toml,
)
from mpc_rr.data._schema_io import category_order


def test_read_keeps_only_the_named_columns(people, write_csv) -> None:
    cols = read_csv_columns(write_csv(people), ["region", "age"])
    assert cols.names == ("region", "age") and cols.n == 4
    got = [[cols.values[j][k] for j, k in enumerate(row)] for row in cols.codes]
    assert got == [["north", "34"], ["south", "9"], ["north", "100"], ["east", "9"]]
    assert [cols.line_of(i) for i in range(4)] == [2, 3, 5, 6]  # the blank line 4 is skipped


def test_whitespace_quotes_bom_and_no_header(write_csv) -> None:
    f = write_csv('\ufeffa, b\n x , "p, q"\nx,r \n')
    cols = read_csv_columns(f)
    assert cols.names == ("a", "b")
    assert [cols.values[1][k] for k in cols.codes[:, 1]] == ["p, q", "r"]
    assert cols.values[0] == ("x",)  # " x " and "x" are one value
    g = write_csv("1,2\n3,4\n", name="nohead.csv")
    assert read_csv_columns(g, ["2"], header=False).values[0] == ("2", "4")
    assert read_csv_columns(g, ["b"], header=["a", "b"]).values[0] == ("2", "4")


def test_category_order_is_numeric_then_text() -> None:
    assert category_order(["10", "9", "?", "b", "a", "2.5", "-1", "B"]) == (
        "-1",
        "2.5",
        "9",
        "10",
        "?",
        "B",
        "a",
        "b",
    )
    assert category_order(["nan", "1"]) == ("1", "nan")


def test_infer_toml_load_round_trip(people, write_csv, tmp_path: Path) -> None:
    f = write_csv(people)
    cols = read_csv_columns(f, ["age", "sex", "income"])
    schema = infer_schema(cols, ordinal=["age"])
    assert schema.attributes[0] == Attribute("age", ("9", "34", "100"), ordinal=True)
    assert schema.attributes[1] == Attribute("sex", ("?", "F", "M"))
    text = schema_to_toml(schema, data=cols, source=f.name)
    assert '"10,000-20,000",  # 2 records' in text
    (tmp_path / "s.toml").write_text(text)
    back = load_schema(tmp_path / "s.toml")
    assert back == schema
    data = load_csv(f, back)
    assert data.name == "people" and data.n == 4
    assert data.codes.tolist() == [[1, 1, 0], [0, 2, 1], [2, 1, 0], [0, 0, 2]]


def test_toml_escapes_awkward_names_and_values(tmp_path: Path) -> None:
    schema = Schema((Attribute('we"ird\\name', ("a\tb", "ü", "x\x7fy", "")),))
    assert parse_schema(schema_to_toml(schema)) == schema


def test_dataset_names(people, write_csv, tmp_path: Path) -> None:
    f = write_csv(people, name="survey 2024.csv")
    schema = Schema((Attribute("sex", ("?", "F", "M")),))
    assert load_csv(f, schema).name == "survey 2024"
    d = load_csv(f, schema, name="mine")
    assert d.name == "mine" and d.repeat(3).name == "minex3"
    assert d.subsample(2, np.random.default_rng(0)).name == "mine"
    assert load_adult().name == "adult"
    copy = tmp_path / "census1994.data"
    copy.write_bytes(_adult_bytes())
    assert load_adult(copy).name == "census1994"
    with pytest.raises(UsageError, match="name must be a non-empty string"):
        Dataset(schema, d.codes, " ")


def _adult_bytes() -> bytes:
    from mpc_rr.data._shipped import shipped_bytes

    return shipped_bytes("adult.data")


def test_adult_test_is_the_other_half() -> None:
    d = load_adult_test()
    assert d.n == 16_281 and d.schema == ADULT_SCHEMA and d.name == "adult-test"
    assert np.bincount(d.codes[:, 6]).tolist() == [5_421, 10_860]  # Female, Male (MANIFEST)
    assert np.bincount(d.codes[:, 7]).tolist() == [12_435, 3_846]  # <=50K., >50K.


# --- every error names the file and, where there is one, the line ---------------------------


def test_errors_name_file_and_line(write_csv, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"is a directory, not a CSV file"):
        read_csv_columns(tmp_path)
    with pytest.raises(UsageError, match=r"nope\.csv: no such file"):
        read_csv_columns(tmp_path / "nope.csv")
    with pytest.raises(UsageError, match=r"empty\.csv: empty file \(no header line\)"):
        read_csv_columns(write_csv("\n\n", name="empty.csv"))
    with pytest.raises(UsageError, match=r"head\.csv: has no records \(only a header, line 1\)"):
        read_csv_columns(write_csv("a,b\n", name="head.csv"))
    bad = "a,b,c\n1,2,3\nx,y,z\n4,5\n"
    with pytest.raises(
        UsageError,
        match=r"ragged\.csv line 4: 2 fields, expected the 3 names of the header \(line 1\)",
    ):
        read_csv_columns(write_csv(bad, name="ragged.csv"))
    with pytest.raises(UsageError, match=r"long\.csv line 3: 4 fields, expected the 3"):
        read_csv_columns(write_csv("a,b,c\n1,2,3\n1,2,3,4\n", name="long.csv"))


def test_header_mismatches(people, write_csv) -> None:
    f = write_csv("1,2,3,4\n5,6,7,8\n", name="nohead.csv")
    with pytest.raises(
        UsageError, match=r"nohead\.csv line 1: 4 fields, expected the 3 header names given"
    ):
        read_csv_columns(f, header=["a", "b", "c"])
    with pytest.raises(
        UsageError, match=r"dup\.csv line 1 \(header\): repeated column names \['a'\]"
    ):
        read_csv_columns(write_csv("a,b,a\n1,2,3\n", name="dup.csv"))
    with pytest.raises(UsageError, match=r"blank\.csv line 2 \(header\): column 2 has no name"):
        read_csv_columns(write_csv("\na,,c\n1,2,3\n", name="blank.csv"))
    with pytest.raises(
        UsageError, match=r"people\.csv: no column 'regoin'; did you mean \['region'\]"
    ):
        read_csv_columns(write_csv(people), ["age", "regoin"])
    with pytest.raises(UsageError, match=r"no column 'zzz' \(columns: \['id', 'age'"):
        read_csv_columns(write_csv(people), ["zzz"])


def test_bad_encoding_names_the_line(write_csv, tmp_path: Path) -> None:
    f = write_csv("a,b\nx,y\nm\u00fcnchen,z\n", name="latin.csv", encoding="latin-1")
    with pytest.raises(UsageError, match=r"latin\.csv line 3: not valid utf-8-sig text \(byte 2"):
        read_csv_columns(f)
    assert set(read_csv_columns(f, ["a"], encoding="latin-1").values[0]) == {"x", "m\u00fcnchen"}
    xlsx = tmp_path / "book.xlsx"  # a spreadsheet (a zip file) passed by mistake
    xlsx.write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb5U0#\xf4\x00\x00")
    with pytest.raises(UsageError, match=r"book\.xlsx line 1: not valid utf-8-sig text"):
        read_csv_columns(xlsx)


def test_unseen_category_against_a_schema(people, write_csv) -> None:
    schema = Schema((Attribute("sex", ("F", "M")), Attribute("region", ("north", "south"))))
    with pytest.raises(
        UsageError,
        match=r"people\.csv line 6: column 'sex' has value '\?', not a category of the schema",
    ):
        load_csv(write_csv(people), schema)
    schema = Schema((Attribute("sex", ("?", "F", "M")), Attribute("region", ("north", "south"))))
    with pytest.raises(
        UsageError,
        match=r"people\.csv line 6: column 'region' has value 'east', not a category of the "
        r"schema \['north', 'south'\] \(1 unseen value\(s\): \['east'\]\)",
    ):
        load_csv(write_csv(people), schema)


def test_inference_refusals(people, write_csv) -> None:
    cols = read_csv_columns(write_csv(people))
    with pytest.raises(
        UsageError, match=r"column 'id' has 4 distinct values, more than max_categories = 3"
    ):
        infer_schema(cols, max_categories=3)
    with pytest.raises(UsageError, match=r"ordinal column\(s\) \['agee'\] are not among"):
        infer_schema(cols, ordinal=["agee"])


SCHEMA_OK = """
[[attribute]]
name = "sex"
categories = ["F", "M"]

[[attribute]]
name = "age"
kind = "ordinal"
categories = ["young", "old"]
"""


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (SCHEMA_OK.replace('categories = ["young", "old"]', ""),
         r"s\.toml: Object missing required field `categories` - at `\$\.attribute\[1\]` \(attribute 'age'\)"),
        (SCHEMA_OK.replace('"ordinal"', '"ordered"'),
         r"Invalid enum value 'ordered' - at `\$\.attribute\[1\]\.kind` \(attribute 'age'\)"),
        (SCHEMA_OK.replace('["F", "M"]', '["F", 2]'),
         r"Expected `str`, got `int` - at `\$\.attribute\[0\]\.categories\[1\]` \(attribute 'sex'\)"),
        (SCHEMA_OK.replace('name = "sex"', 'name = "sex"\ncolour = 1'),
         r"unknown field `colour` - at `\$\.attribute\[0\]`"),
        (SCHEMA_OK.replace('["F", "M"]', '["F", "F"]'),
         r"s\.toml: \$\.attribute\[0\] \('sex'\): Attribute 'sex': duplicate categories"),
        (SCHEMA_OK.replace('"age"', '"sex"'), r"s\.toml: Schema: duplicate attribute names"),
        (SCHEMA_OK.replace("[[attribute]]\nname = \"sex\"", "[[attribute]\nname = \"sex\""),
         r"s\.toml: not valid TOML: .*line 2"),
        ("attribute = []\n", r"s\.toml: no \[\[attribute\]\] tables"),
    ],
)  # fmt: skip
def test_schema_toml_errors_name_the_key(tmp_path: Path, text: str, match: str) -> None:
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(UsageError, match=match):
        load_schema(tmp_path / "s.toml")


def test_schema_file_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory, not a schema file"):
        load_schema(tmp_path)
    with pytest.raises(UsageError, match=r"missing\.toml: cannot read schema"):
        load_schema(tmp_path / "missing.toml")
    assert len(load_schema(_write_text(tmp_path / "ok.toml", SCHEMA_OK))) == 2


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- speed: 200,000 x 42, keep 8, under 1.5 s, in the memory of the kept columns -------------


@pytest.mark.slow
def test_wide_file_loads_fast_and_small(tmp_path: Path) -> None:
    import tracemalloc

    from benchmarks.data_loading import KEEP, generate

    f = generate(tmp_path / "wide.csv")
    best = min(_timed(lambda: read_csv_columns(f, KEEP)) for _ in range(3))
    assert best < 1.5
    tracemalloc.start()
    cols = read_csv_columns(f, KEEP)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert cols.n == 200_000
    # one chunk of kept strings plus the codes, not the file (73 MB of text, ~750 MB as lists)
    assert peak < 80 * 2**20


def _timed(f: object) -> float:
    t = time.perf_counter()
    f()  # type: ignore[operator]
    return time.perf_counter() - t
