"""The classroom's mermaid output renders with the real mermaid-cli (``mmdc``), not only our
grammar check: a sequence diagram as ``.mmd``, and ``--states`` as Markdown with one block per
diagram (concatenated in one ``.mmd`` file, mermaid-cli 11.17 could not parse them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from scenarios.cli import main

ROOT = Path(__file__).resolve().parents[3]


def _mmdc() -> tuple[str | None, str | None, str]:
    """(mmdc, chromium, why not) -- ``make test`` installs mmdc under .venv/npm."""
    found = os.environ.get("MPC_RR_MMDC") or shutil.which("mmdc")
    local = ROOT / ".venv/npm/node_modules/.bin/mmdc"
    if found is None and local.exists():
        found = str(local)
    browser = next((b for b in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if b), None)
    if found is None:
        return None, browser, "mermaid-cli not installed (make test installs it with npm: npm missing or offline?)"
    if browser is None:
        return found, None, "no Chromium for mermaid-cli to render with"
    return found, browser, ""


MMDC, BROWSER, WHY = _mmdc()


@pytest.mark.skipif(MMDC is None or BROWSER is None, reason=WHY)
def test_mermaid_cli_renders_the_sequence_and_every_state_diagram(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "puppeteer.json"
    conf.write_text(json.dumps({"executablePath": BROWSER, "args": ["--no-sandbox", "--disable-gpu"]}))
    both = tmp_path / "lesson.md"
    assert main(["classroom", "secagg", "--parties", "4", "--format", "mermaid", "--states", "--out", str(both)]) == 0
    capsys.readouterr()
    assert both.read_text().count("```mermaid") == 3  # the sequence, SecAggClient, SecAggServer
    # one Chromium start (seconds) renders all three; the sequence block is `--format mermaid`'s .mmd
    r = subprocess.run([str(MMDC), "-p", str(conf), "-i", str(both), "-o", str(tmp_path / "out.md")],
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    svgs = sorted(tmp_path.glob("out-*.svg"))
    assert len(svgs) == 3 and all("<svg" in f.read_text() for f in svgs)
    assert "sequence" in svgs[0].read_text() or "actor" in svgs[0].read_text()


def test_several_mermaid_diagrams_are_not_written_to_one_mmd_file(tmp_path: Path) -> None:
    argv = ["classroom", "full-mesh", "--format", "mermaid", "--states", "--out", str(tmp_path / "x.mmd")]
    assert main(argv) == 2 and not (tmp_path / "x.mmd").exists()
    assert main(["classroom", "full-mesh", "--format", "text", "--json"]) == 2  # not JSON silently
