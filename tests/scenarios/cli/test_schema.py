"""`mpc-rr schema infer | check`: a schema inferred from a CSV file and checked against it;
one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpc_rr.data import parse_schema
from scenarios.cli import main


def test_cli_infer_then_check(
    people, write_csv, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = write_csv(people)
    assert main(["schema", "infer", str(f), "--columns", "age,sex,region", "--ordinal", "age"]) == 0
    out = capsys.readouterr()
    schema = parse_schema(out.out)
    assert schema.names == ("age", "sex", "region") and schema.attributes[0].ordinal
    assert "3 attributes, 4 records" in out.err
    s = tmp_path / "schema.toml"
    s.write_text(out.out)
    assert main(["schema", "check", str(f), "--schema", str(s)]) == 0
    text = capsys.readouterr().out
    assert "people: 4 records, 3 attributes, joint domain 27 cells" in text
    assert main(["schema", "check", str(f), "--schema", str(s), "--json"]) == 0
    assert '"records": 4' in capsys.readouterr().out


def test_cli_headerless_file_with_names(write_csv, capsys: pytest.CaptureFixture[str]) -> None:
    f = write_csv("|banner\n1, a\n2, b\n", name="raw.txt")
    argv = ["schema", "infer", str(f), "--names", "n,c", "--skip-lines", "1", "--columns", "c"]
    assert main(argv) == 0
    assert parse_schema(capsys.readouterr().out).attributes[0].categories == ("a", "b")


def test_cli_errors_are_one_line(people, write_csv, capsys: pytest.CaptureFixture[str]) -> None:
    f = write_csv(people)
    assert main(["schema", "infer", str(f), "--columns", "agee"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mpc-rr schema: error: ") and "no column 'agee'" in err
