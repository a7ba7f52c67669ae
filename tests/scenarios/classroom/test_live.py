"""The live class without a browser: the lesson's rounds with simulated students, the wire schema,
the estimate, the refusals -- one real server (hypercorn on loopback) per test."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import trio

from mpc_rr.core import UsageError
from scenarios.classroom.live import Lesson, estimate_counts, messages, wire_schema
from scenarios.classroom.serve import ServeOptions, serve
from scenarios.cli import main


async def _serve_once(lesson: Lesson, bots: int, step_timeout: float = 5) -> dict:
    opts = ServeOptions(host="127.0.0.1", port=0, bots=bots, auto_start=bots, once=True, step_timeout=step_timeout)
    with trio.fail_after(30):
        out = await serve(lesson, opts, out=io.StringIO())
    assert out is not None
    return out


async def test_full_mesh_bots_only_give_the_exact_count() -> None:
    out = await _serve_once(Lesson("full-mesh", options=("A", "B", "C"), seed=3), bots=6)
    assert out["ok"], out
    assert out["total"] == out["bot_votes"]
    assert sum(out["total"]) == 6 and out["count"] == 6


async def test_rr_survey_bots_estimate_brackets_the_truth() -> None:
    out = await _serve_once(Lesson("rr-survey", options=("Yes", "No"), p=0.8, seed=1), bots=40)
    assert out["ok"], out
    assert sum(out["total"]) == 40
    est, ci = np.array(out["estimate"]), np.array(out["ci"])
    assert est.sum() == pytest.approx(40)
    assert np.all(ci[:, 0] <= est) and np.all(est <= ci[:, 1])
    # the truth (bot_votes) inside the 95% interval for this seed
    truth = np.array(out["bot_votes"])
    assert np.all(ci[:, 0] <= truth) and np.all(truth <= ci[:, 1])


def test_estimate_inverts_the_expected_tallies() -> None:
    truth, p = np.array([30.0, 10.0]), 0.6
    expected = p * truth + (1 - p) * truth.sum() / 2
    est, ci = estimate_counts(expected, p)
    np.testing.assert_allclose(est, truth)
    assert np.all(ci[:, 1] - ci[:, 0] > 0)


@pytest.mark.parametrize("protocol", ["full-mesh", "secagg", "rr-survey"])
def test_wire_schema_is_read_off_the_library_messages(protocol: str) -> None:
    types = messages(protocol)
    schema = wire_schema(types)
    json.dumps(schema)  # served as /schema.json: bytes defaults are {"$bytes": hex}
    for cls in types:
        fields = [f for f, _ in schema["types"][cls.__name__]["fields"]]
        assert fields == list(cls.__struct_fields__)
        defaults = schema["types"][cls.__name__]["defaults"]
        assert {k: defaults[k] for k in ("v", "run", "step")} == {"v": 1, "run": "", "step": 0}
    assert schema["tag"] == "type"
    if protocol == "secagg":  # the signed messages: signatures, optional arrays, list of bytes
        kinds = dict(schema["types"]["ShareProofs"]["fields"])
        assert kinds["signatures"] == kinds["batches"] == "list<bytes>" and kinds["senders"] == "array"
        assert dict(schema["types"]["NeighborKeys"]["fields"])["commits"] == "array?"
        assert schema["types"]["AdvertiseKeys"]["defaults"]["signature"] == {"$bytes": ""}


def test_lesson_refuses_bad_options() -> None:
    with pytest.raises(UsageError, match="--options"):
        Lesson("full-mesh", options=("Yes",))
    with pytest.raises(UsageError, match="--protocol"):
        Lesson("pipeline")  # a protocol without a live lesson


def test_cli_refuses_once_without_a_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classroom", "serve", "--once", "--port", "0"]) == 2
    assert "--auto-start" in capsys.readouterr().err


def test_cli_once_json_with_bots(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    rc = main(["classroom", "serve", "--protocol", "full-mesh", "--bots", "4", "--once", "--json",
               "--port", "0", "--host", "127.0.0.1", "--options", "Tea,Coffee"])  # fmt: skip
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert rc == 0 and out["ok"] and out["total"] == out["bot_votes"]
    assert "Students join at http://127.0.0.1:" in captured.err


async def test_https_serves_the_pages_with_a_self_signed_certificate() -> None:
    import ssl
    import urllib.request

    lesson = Lesson("full-mesh")
    opts = ServeOptions(host="127.0.0.1", port=0, auto_start=99, once=True, https=True)
    out = io.StringIO()
    async with trio.open_nursery() as nursery:
        info = await nursery.start(lambda task_status: serve(lesson, opts, out=out, task_status=task_status))
        assert info["join"].startswith("https://127.0.0.1:")
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # self-signed, on purpose

        def get(url: str) -> bytes:
            with urllib.request.urlopen(url, context=ctx, timeout=10) as r:  # loopback only
                return bytes(r.read())

        page = await trio.to_thread.run_sync(get, info["join"])
        assert b"Your answer stays on this device" in page
        nursery.cancel_scope.cancel()
    assert "self-signed certificate (fingerprint" in out.getvalue()


async def test_secagg_bots_recover_a_dropout_within_the_bound(autojump_clock) -> None:
    """SecAgg+ with 6 simulated students, one crashing after sharing its keys: the aggregator
    removes its masks from the others' shares and the total is the other 5 answers."""
    out = await _serve_once(Lesson("secagg", options=("A", "B"), seed=2, drop_bot="masked"), bots=6, step_timeout=0.5)
    assert out["ok"], out
    assert out["count"] == 5 and out["total"] == out["bot_votes"] and sum(out["total"]) == 5


async def test_full_mesh_aborts_naming_the_bot_that_left(autojump_clock) -> None:
    lesson = Lesson("full-mesh", seed=2, drop_bot="publish")
    opts = ServeOptions(host="127.0.0.1", port=0, bots=4, auto_start=4, once=True, step_timeout=0.5)
    with trio.fail_after(30):
        out = await serve(lesson, opts, out=io.StringIO())
    assert out is not None and not out["ok"]
    assert out["culprits"] == [4] and "[4]" in out["error"]


def test_drop_bot_names_the_protocol_steps() -> None:
    with pytest.raises(UsageError, match="keys, shares, masked, consistency, unmask"):
        Lesson("secagg", drop_bot="publish")


def test_the_command_lists_the_lessons_protocols() -> None:
    from scenarios.classroom.live import LIVE_PROTOCOLS as lessons
    from scenarios.cli.commands.classroom_serve import LIVE_PROTOCOLS as choices

    assert choices == lessons
