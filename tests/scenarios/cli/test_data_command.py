"""``mpc-rr data list|info|path``: the shipped data sets as a user sees them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mpc_rr.data import shipped
from scenarios.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_list_shows_every_shipped_data_set_with_its_records_size_and_licence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(["data", "list"], capsys)
    assert status == 0
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert set(lines) >= {f.name for f in shipped()}
    assert "32,561" in lines["adult"] and "3.8 MiB" in lines["adult"] and "CC BY 4.0" in lines["adult"]
    assert "unverified" in lines["alarm"] and "bnlearn/alarm.bif" in lines["alarm"]
    assert "10,000" in lines["child_10000"]


def test_list_json_is_the_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(["data", "list", "--json"], capsys)
    assert status == 0 and json.loads(out) == [f.to_json() for f in shipped()]


def test_info_gives_provenance_licence_citation_checksum_and_the_path_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(["data", "info", "adult"], capsys)
    assert status == 0
    for text in ("32,561", "CC BY 4.0", "https://doi.org/10.24432/C5XW20", "UCI Machine Learning Repository",
                 "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d", "checked against sha256"):  # fmt: skip
        assert text in out, text
    status, out, _ = _run(["data", "info", "alarm.bif", "--json"], capsys)
    doc = json.loads(out)
    assert status == 0 and doc["name"] == "alarm" and doc["attributes"] == 37 and doc["records"] is None
    assert doc["licence"] == "unverified" and "MIT" in doc["licence_note"] and "pgmpy" in doc["source"]
    assert hashlib.sha256(Path(doc["path"]).read_bytes()).hexdigest() == doc["sha256"]


def test_path_prints_a_file_the_other_commands_read(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(["data", "path", "survey_10000"], capsys)
    path = out.strip()
    assert status == 0 and path.endswith("survey_10000.csv")
    status, out, _ = _run(["data", "path", "survey_10000.csv", "--json"], capsys)
    assert status == 0 and json.loads(out) == {"name": "survey_10000", "file": "survey_10000.csv",
                                               "path": path, "override": False}  # fmt: skip
    status, out, _ = _run(["schema", "infer", path, "--ordinal", "A", "--json"], capsys)
    assert status == 0 and [a["name"] for a in json.loads(out)["attributes"]] == ["A", "S", "E", "O", "R", "T"]


@pytest.mark.parametrize("verb", ["info", "path"])
def test_an_unknown_name_exits_2_naming_the_choices(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(["data", verb, "adult.csv"], capsys)
    assert status == 2
    assert "no shipped data set 'adult.csv'; the choices: adult, adult-test, survey, alarm" in err
    assert "Traceback" not in err


def test_a_file_missing_from_the_override_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MPC_RR_DATA", str(tmp_path))
    status, _, err = _run(["data", "info", "adult"], capsys)
    assert status == 2
    assert f"MPC_RR_DATA={tmp_path} has no adult.data: put the file there, or unset MPC_RR_DATA" in err
    status, out, _ = _run(["data", "list"], capsys)
    assert status == 0 and f"MPC_RR_DATA={tmp_path}: the commands read the files there" in out
