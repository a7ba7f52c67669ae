"""``mpc-rr report --live``: the page of a running study, rebuilt from the store as runs arrive."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from scenarios.cli import main
from scenarios.results.live import LiveReport, make_server

STUDY = """
[scenario]
name = "live-sums"
seed = 2
repeats = 3
[protocol]
kind = "secure-sum"
parties = 40  # each run long enough (~0.3 s) for the poll to see the count rise on a quiet machine
cells = 3
transport = "harness"
[grid]
dropout = [0.0, 0.4]
"""


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        body: bytes = r.read()
        return body


def test_the_live_view_follows_a_running_scenario(tmp_path: Path) -> None:
    toml, db = tmp_path / "s.toml", tmp_path / "study.db"
    toml.write_text(STUDY)
    live = LiveReport(db, refresh=2)
    server = make_server(live, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        # before the study starts: the page says there is no store yet, and keeps serving
        assert b"no such results store" in _get(base + "/")
        run = subprocess.Popen([sys.executable, "-m", "scenarios.cli", "scenario", "run", str(toml),
                                "--store", str(db), "--jobs", "1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        seen: list[int] = []
        pages_while_running = 0
        deadline = time.monotonic() + 120
        while run.poll() is None and time.monotonic() < deadline:
            status = json.loads(_get(base + "/status.json"))
            if isinstance(status, list) and status and status[0]["running"]:
                seen.append(status[0]["done"])
                if 0 < status[0]["done"] < 6 and pages_while_running == 0:
                    page = _get(base + "/").decode()
                    assert f"{status[0]['done']} of 6 runs done" in page or "of 6 runs done" in page
                    assert '<meta http-equiv="refresh" content="2">' in page
                    pages_while_running += 1
            time.sleep(0.15)
        assert run.wait(timeout=60) == 0
        # the count grew while the study ran (seen at least twice, rising)
        rising = sorted(set(seen))
        assert len(rising) >= 2 and rising[-1] > rising[0], seen
        assert seen == sorted(seen)
        final = json.loads(_get(base + "/status.json"))[0]
        assert (final["done"], final["planned"], final["running"], final["eta_s"]) == (6, 6, False, 0.0)
        page = _get(base + "/").decode()
        assert "6 of 6 runs done" in page and "finished" in page and "<img" in page
        builds = live.builds
        _get(base + "/")
        assert live.builds == builds  # an unchanged store is not drawn again
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--json"], "--json does not apply"),
        (["--port", "70000"], "--port must be in 0..65535"),
        (["--refresh", "0"], "--refresh must be at least 1 second"),
    ],
)
def test_live_flags_are_checked_before_serving(tmp_path: Path, capsys, flags, message) -> None:  # type: ignore[no-untyped-def]
    assert main(["report", str(tmp_path / "x.db"), "--live", *flags]) == 2
    assert message in capsys.readouterr().err
