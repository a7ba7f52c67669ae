"""The data sets shipped in the package: the manifest against the files, the cache, the override,
and (where the original files are at hand) the shipped bytes against the originals."""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import json
import os
from pathlib import Path

import numpy as np
import pytest

import mpc_rr.data._shipped as _shipped
from mpc_rr.core import UsageError
from mpc_rr.data import (
    NETWORKS,
    data_dir,
    data_file,
    load_adult,
    load_adult_test,
    load_network,
    read_csv_columns,
    shipped,
    shipped_file,
)
from mpc_rr.data._shipped import shipped_bytes

FILES = importlib.resources.files("mpc_rr.data") / "files"


def _packaged() -> set[str]:
    """Every file in the package's data folder, relative to it."""
    root = Path(str(FILES))
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_the_manifest_lists_every_shipped_file_with_its_checksum_and_size() -> None:
    entries = shipped()
    assert _packaged() == {"manifest.json", *(f.shipped for f in entries)}
    for f in entries:
        raw = gzip.decompress(FILES.joinpath(f.shipped).read_bytes())
        assert len(raw) == f.size, f.name
        assert hashlib.sha256(raw).hexdigest() == f.sha256, f.name
        assert f.licence and f.citation and f.source, f.name


def test_every_network_the_code_names_is_shipped() -> None:
    assert {f.name for f in shipped() if f.kind == "network"} == set(NETWORKS)
    for name in ("survey", "alarm", "child"):  # RRBA's deployment reads <name>_10000.csv
        assert shipped_file(f"{name}_10000").records == 10_000


def test_the_records_and_attributes_the_manifest_states_are_those_read() -> None:
    counts = {"adult": load_adult().n, "adult-test": load_adult_test().n}
    for f in shipped():
        if f.kind == "network":
            assert len(load_network(f.name).schema) == f.attributes, f.name
            assert f.records is None
        elif f.name in counts:
            assert counts[f.name] == f.records and f.attributes == 15
        else:
            cols = read_csv_columns(data_file(f.file))
            assert (cols.n, len(cols.names)) == (f.records, f.attributes), f.name


def test_a_name_or_a_file_name_finds_a_data_set_and_anything_else_names_the_choices() -> None:
    assert shipped_file("adult.data") is shipped_file("adult")
    assert shipped_file("bnlearn/alarm.bif") is shipped_file("alarm.bif") is shipped_file("alarm")
    with pytest.raises(UsageError, match=r"no shipped data set 'adult\.csv'; the choices: adult, adult-test, survey"):
        shipped_file("adult.csv")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder for this test (as a fresh process would see it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MPC_RR_DATA", raising=False)
    monkeypatch.setattr(_shipped, "_CHECKED", {})
    return tmp_path / "cache"


def test_a_shipped_file_is_decompressed_once_into_the_cache_and_checked(cache: Path) -> None:
    path = data_file("survey_10000.csv")
    assert path.is_relative_to(cache) and path.name == "survey_10000.csv"
    assert path.read_bytes() == shipped_bytes("survey_10000")
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temporary left
    path.write_bytes(b"A,S\nold,M\n")  # damaged after this process checked it: not read again
    assert data_file("survey_10000.csv") == path and path.read_bytes() == b"A,S\nold,M\n"
    _shipped._CHECKED.clear()  # the next process checks it, finds it damaged, writes it again
    assert data_file("survey_10000.csv").read_bytes() == shipped_bytes("survey_10000")


def test_the_data_folder_holds_every_file_under_its_usual_name(cache: Path) -> None:
    folder = data_dir()
    assert folder.is_relative_to(cache)
    for f in shipped():
        assert hashlib.sha256((folder / f.file).read_bytes()).hexdigest() == f.sha256


def test_an_unwritable_cache_falls_back_to_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setattr(_shipped, "_CHECKED", {})
    assert data_file("asia").is_relative_to(tmp_path / "tmp" / "mpc-rr")


def test_bytes_that_do_not_match_the_manifest_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    files, digest = _shipped._manifest()
    wrong = [f if f.name != "asia" else type(f)(**{**f.to_json(), "sha256": "0" * 64}) for f in files]
    monkeypatch.setattr(_shipped, "_manifest", lambda: (tuple(wrong), digest))
    with pytest.raises(RuntimeError, match=r"the shipped bnlearn/asia\.bif does not match its SHA-256"):
        shipped_bytes("asia")


def test_the_override_folder_is_read_in_place_of_the_shipped_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bnlearn").mkdir()
    (tmp_path / "bnlearn" / "survey.bif").write_bytes(shipped_bytes("survey"))
    monkeypatch.setenv("MPC_RR_DATA", str(tmp_path))
    assert data_file("survey") == tmp_path / "bnlearn" / "survey.bif"
    assert data_dir() == tmp_path
    assert load_network("survey").schema.names == ("A", "S", "E", "O", "R", "T")
    with pytest.raises(UsageError, match=r"MPC_RR_DATA=.* has no adult\.data: put the file there, or unset MPC_RR_DATA"):
        load_adult()


# -- the shipped bytes against the original files (only where they are at hand) ----------------
SOURCE = os.environ.get("MPC_RR_SOURCE_DATA")
"""A folder of the original files (``adult.data``, ``bnlearn/``, ...) to compare with."""


@pytest.mark.skipif(
    not (SOURCE and Path(SOURCE).is_dir()),
    reason="set MPC_RR_SOURCE_DATA to a folder of the original data files to compare the shipped ones with",
)
def test_the_shipped_bytes_decode_to_exactly_the_records_of_the_original_files() -> None:
    assert SOURCE is not None
    src = Path(SOURCE)
    sums = {}
    if (src / "SHA256SUMS").is_file():
        sums = dict(line.split()[::-1] for line in (src / "SHA256SUMS").read_text().splitlines() if line)
    for f in shipped():
        original = (src / f.file).read_bytes()
        assert hashlib.sha256(original).hexdigest() == f.sha256 == sums.get(f.file, f.sha256), f.name
        assert shipped_bytes(f.name) == original, f.name
    ours, theirs = load_adult(), load_adult(src / "adult.data")
    assert ours.n == theirs.n == 32_561 and np.array_equal(ours.codes, theirs.codes)
    ours, theirs = load_adult_test(), load_adult_test(src / "adult.test")
    assert ours.n == theirs.n == 16_281 and np.array_equal(ours.codes, theirs.codes)
    for name in ("survey", "alarm", "child"):
        ours_csv = read_csv_columns(data_file(f"{name}_10000.csv"))
        theirs_csv = read_csv_columns(src / f"{name}_10000.csv")
        assert ours_csv.n == theirs_csv.n == 10_000
        assert ours_csv.values == theirs_csv.values and np.array_equal(ours_csv.codes, theirs_csv.codes)
        assert load_network(name).schema == load_network(src / "bnlearn" / f"{name}.bif").schema


def test_the_manifest_is_valid_json_with_one_entry_per_name() -> None:
    doc = json.loads(FILES.joinpath("manifest.json").read_text())
    names = [e["name"] for e in doc["files"]]
    assert len(set(names)) == len(names) and doc["compression"] == "gzip"
