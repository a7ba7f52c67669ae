"""The roster fingerprint the class compares: the server's (Python) and every page's (JavaScript,
run here under Node) are the same bytes, and any change of key or id changes it."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from scenarios.classroom.fingerprint import roster_fingerprint
from scenarios.classroom.live import Lesson, make_round

SIGNING_JS = Path(__file__).resolve().parents[3] / "scenarios/classroom/static/signing.js"
NODE = shutil.which("node")


def _roster(ids: list[int]) -> dict[str, str]:
    return {str(i): secrets.token_bytes(32).hex() for i in ids}


def test_any_substituted_key_or_relabelled_id_changes_the_fingerprint() -> None:
    r = _roster([0, 1, 2, 3])
    fp = roster_fingerprint(r)
    assert len(fp) == 19 and fp.count(" ") == 3 and all(len(g) == 4 for g in fp.split())
    assert roster_fingerprint(dict(reversed(list(r.items())))) == fp  # order of the mapping: none
    swapped = {**r, "2": secrets.token_bytes(32).hex()}
    assert roster_fingerprint(swapped) != fp
    relabelled = {**r, "1": r["2"], "2": r["1"]}
    assert roster_fingerprint(relabelled) != fp
    assert roster_fingerprint({**r, "4": secrets.token_bytes(32).hex()}) != fp  # an extra party
    with pytest.raises(UsageError, match="party 1 needs a 32-byte key"):
        roster_fingerprint({**r, "1": "ab"})


@pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's JavaScript")
def test_the_pages_javascript_computes_the_same_fingerprint() -> None:
    rosters = [_roster(ids) for ids in ([0, 1, 2, 3], [0, 2, 10, 11, 100], list(range(41)))]
    script = (
        f"require({json.dumps(str(SIGNING_JS))});"
        "const rs = JSON.parse(process.argv[1]);"
        "Promise.all(rs.map((r) => globalThis.signing.fingerprint(r))).then((f) => console.log(JSON.stringify(f)));"
    )
    out = subprocess.run([NODE, "-e", script, json.dumps(rosters)], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == [roster_fingerprint(r) for r in rosters]


def test_every_round_announces_the_fingerprint_of_its_roster() -> None:
    build = make_round(Lesson("full-mesh", options=("A", "B"), seed=1), np.random.default_rng(1))
    keys = {1: secrets.token_bytes(32), 2: secrets.token_bytes(32)}
    public = build(2, 2, "class-1", keys).public
    assert public["roster"]["1"] == keys[1].hex() and public["roster"]["2"] == keys[2].hex()
    assert public["fingerprint"] == roster_fingerprint(public["roster"])
