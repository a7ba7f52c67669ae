"""Issue 21: the results store turns trouble with its file into clear errors, not "a bug"."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from mpc_rr.core import UsageError
from scenarios.cli import main
from scenarios.results import store_file
from scenarios.results.store import Store, StoreFull

STUDY = (
    '[scenario]\nname = "tiny"\nseed = 3\nrepeats = 6\nmetrics = ["exact"]\n\n'
    '[protocol]\nkind = "secure-sum"\nprotocol = "plainsum"\ntransport = "harness"\ncells = 4\n\n'
    "[grid]\nparties = [5]\n"
)


@pytest.fixture
def stored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A store holding the six runs of a tiny study."""
    study = tmp_path / "tiny.toml"
    study.write_text(STUDY)
    db = tmp_path / "r.db"
    assert main(["scenario", "run", str(study), "--store", str(db), "--quiet"]) == 0
    c = sqlite3.connect(db)  # everything in the main file: what a copied store looks like
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    capsys.readouterr()
    return db


def _exit_and_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return code, err


@pytest.mark.parametrize("every", [97, 997, 1999])
def test_flipped_bytes_are_exit_2_naming_the_file(stored: Path, capsys, every: int) -> None:
    """Before: exit 3, "internal error (a bug in mpc-rr)" with a traceback, on every command;
    sparse flips (every 997th byte) that leave the pages readable but a text field not
    UTF-8 were still exit 3 after the first fix."""
    data = bytearray(stored.read_bytes())
    page = 4096
    for at in range(page, len(data), every):  # every page but the header's
        data[at] ^= 0xFF
    stored.write_bytes(bytes(data))
    for argv in (["results", "list"], ["results", "show", "tiny"], ["report"]):
        extra = ["--out", str(stored.parent / "r.html")] if argv == ["report"] else []
        store_arg = [str(stored)] if argv == ["report"] else ["--store", str(stored)]
        code, err = _exit_and_error([*argv, *store_arg, *extra], capsys)
        assert code == 2, (argv, err)
        assert str(stored) in err and "damaged" in err, err


@pytest.mark.parametrize(("how", "says"), [("truncated", "truncated to"), ("zeroed", "all zero")])
def test_a_truncated_or_zeroed_file_says_so(stored: Path, capsys, how: str, says: str) -> None:
    """Before: "not an mpc-rr results store", which is misleading for a damaged store."""
    data = stored.read_bytes()
    stored.write_bytes(data[: len(data) // 2] if how == "truncated" else bytes(len(data)))
    code, err = _exit_and_error(["results", "list", "--store", str(stored)], capsys)
    assert code == 2 and str(stored) in err and says in err, err


def test_a_read_only_store_is_readable(stored: Path, monkeypatch, capsys) -> None:
    """Before: `results list`, `show` and `report` failed on a read-only filesystem (WAL mode
    writes side files).  Root ignores permissions, so the read-only disk is simulated."""
    monkeypatch.setattr(store_file.os, "access", lambda path, mode: False)
    before = sorted(p.name for p in stored.parent.iterdir())
    assert main(["results", "list", "--store", str(stored)]) == 0
    assert "tiny" in capsys.readouterr().out
    assert main(["report", str(stored), "--out", str(stored.parent / "r.html")]) == 0
    after = sorted(p.name for p in stored.parent.iterdir() if p.name != "r.html")
    assert after == before  # no -wal / -shm side files: nothing written
    with Store(stored, create=False, read_only=True) as s, pytest.raises(UsageError, match="read-only"):
        s.end(1)


def test_a_full_disk_is_exit_1_with_the_runs_stored_and_the_rerun_resumes(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """Before: exit 3 (no run lost -- that part was right)."""
    study = tmp_path / "tiny.toml"
    study.write_text(STUDY)
    db = tmp_path / "r.db"
    real = store_file.connect

    def small_disk(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
        c = real(path, read_only=read_only)
        c.execute("PRAGMA max_page_count = 10")  # SQLITE_FULL once the file has 10 pages
        return c

    monkeypatch.setattr("scenarios.results.store.connect", small_disk)
    code, err = _exit_and_error(["scenario", "run", str(study), "--store", str(db), "--quiet"], capsys)
    assert code == 1, err
    assert "the disk is full" in err and "run the same command again" in err, err
    stored = int(err.split(" runs are stored")[0].rsplit(" ", 1)[-1])
    assert 0 < stored < 6
    monkeypatch.setattr("scenarios.results.store.connect", real)
    assert main(["scenario", "run", str(study), "--store", str(db), "--json"]) == 0
    out = capsys.readouterr().out
    assert f'"stored_before": {stored}' in out and f'"executed": {6 - stored}' in out
    with Store(db, create=False) as s:
        assert s.count() == 6


def _create(path: str, start: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue) -> None:
    start.wait()
    try:
        Store(path).close()
        out.put("ok")
    except Exception as exc:
        out.put(f"{type(exc).__name__}: {exc}")


def test_writers_creating_one_fresh_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Before: in 3 of 6 trials one writer exited 2, "not an mpc-rr results store (tables:
    scenario_texts)": it saw the schema half-created."""
    ctx = multiprocessing.get_context("fork")
    outcomes = []
    for trial in range(6):
        path, start, out = str(tmp_path / f"s{trial}.db"), ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_create, args=(path, start, out)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        outcomes += [out.get(timeout=5) for _ in procs]
        with Store(path, create=False) as s:
            assert s.count() == 0
    assert outcomes == ["ok"] * 24, outcomes


def test_full_disk_error_is_store_full(tmp_path: Path) -> None:
    s = Store(tmp_path / "x.db")
    s.db.execute("PRAGMA max_page_count = 8")
    with pytest.raises(StoreFull, match="the disk is full"):
        for k in range(100):
            s.fail(session=None, key=f"k{k}", scenario="s", point={}, repeat=0, error="e",
                   traceback="x" * 4000)  # fmt: skip
    s.close()
