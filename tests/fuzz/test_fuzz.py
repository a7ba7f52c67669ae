"""The fuzz targets (tests/fuzz): the committed corpus replayed in the default tier (every seed
and every input that once reproduced a finding: the regression tests), each target fuzzed for
a short budget under ``-m slow`` (``FUZZ_TEST_SECONDS``, default 10 s, after about as long
again instrumenting the library)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz._targets import targets

NAMES = list(targets())
pytestmark = pytest.mark.xdist_group("fuzz-corpus")  # one worker replays the corpus, once
ROOT = Path(__file__).parents[2]


def test_every_decoder_and_every_role_of_every_registered_protocol_has_a_target() -> None:
    from mpc_rr.core._registry import protocol_names
    from tests.fuzz._runs import runs

    for name in protocol_names():
        assert f"codec-{name}" in NAMES, f"no codec target for {name}"
        kinds = {type(r).__name__ for r in runs()[name].build().values()}
        assert {f"role-{name}-{k}" for k in kinds} <= set(NAMES), f"a role of {name} has no target"
    assert {"frames", "roster", "store-rows", "scenario-toml", "schema-toml", "csv"} <= set(NAMES)


@pytest.fixture(scope="module")
def replayed() -> dict[str, dict[str, Any]]:
    """Every target's committed corpus replayed once, in a process of its own (one for all):
    the runs there are reproducible (the simulated PKI's keys from a fixed secret), which would
    change the keys of every other test's parties in this process."""
    proc = subprocess.run([sys.executable, "-m", "tests.fuzz.run", "--replay"], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            out[entry["target"]] = entry
    assert out, f"the replay printed nothing:\n{proc.stderr[-4000:]}"
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_corpus_raises_only_typed_errors(name: str, replayed: dict[str, dict[str, Any]]) -> None:
    entry = replayed.get(name)
    assert entry is not None, f"{name} was not replayed"
    assert entry["inputs"], f"tests/fuzz/corpus/{name} is empty (python -m tests.fuzz.run --seed {name})"
    assert entry["error"] is None, f"{name}: {entry['error']}"  # a finding, with its traceback


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_short_fuzzing_run_finds_nothing(name: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="the fuzz extra (pip install -e '.[fuzz]')")
    seconds = int(os.environ.get("FUZZ_TEST_SECONDS", "10"))
    env = {**os.environ, "FUZZ_WORK": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.run", name, f"-max_total_time={seconds}", "-print_final_stats=1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=seconds + 300,
    )  # fmt: skip
    crashes = sorted(p.name for p in tmp_path.glob("crash-*"))
    assert proc.returncode == 0 and not crashes, f"{name}: {crashes}\n{proc.stderr[-4000:]}"
    runs = re.search(r"stat::number_of_executed_units: (\d+)", proc.stderr)
    assert runs and int(runs.group(1)) > 100, f"{name}: the fuzzer ran no inputs\n{proc.stderr[-2000:]}"
