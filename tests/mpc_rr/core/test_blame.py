"""Who a clean abort blames: proven ``culprits`` and ``suspects`` groups (one of them cheated),
the relay written :data:`RELAY` in Python and ``"relay"`` in JSON, kept across processes."""

from __future__ import annotations

import json
import pickle

import numpy as np

from mpc_rr.core import ProtocolAbort
from mpc_rr.core._errors import RELAY, blame_json
from mpc_rr.secure_sum.plainsum import PlainSumClient, PlainSumHub


def test_suspects_survive_pickling_and_render_the_relay_as_one_json_string() -> None:
    err = ProtocolAbort("a key 'from' 3 without its signature", (), ((RELAY, 3),))
    back = pickle.loads(pickle.dumps(err))  # a worker process hands its roles' errors back
    assert (str(back), back.culprits, back.suspects) == (str(err), (), ((RELAY, 3),))
    assert json.dumps([blame_json(g) for g in back.suspects]) == '[["relay", 3]]'
    assert RELAY < 0  # never a party id


def test_abort_sorts_and_deduplicates_suspect_groups_and_keeps_culprits_apart() -> None:
    role = PlainSumHub(2, 1)
    role.abort("two reasons", [2], [(3, RELAY), (RELAY, 3), (1, RELAY)])
    assert role.error is not None
    assert role.error.culprits == (2,) and role.error.suspects == ((RELAY, 1), (RELAY, 3))


def test_a_timeout_blames_the_silent_parties_unless_the_role_says_otherwise() -> None:
    plain = PlainSumClient(1, np.zeros(1, np.int64))
    for _ in range(plain.patience):  # it waits for the hub's total
        plain.on_timeout()
    assert plain.error is not None and plain.error.culprits == (0,) and plain.error.suspects == ()

    class OverRelay(PlainSumClient):
        def blame_silent(self, missing: list[int]) -> tuple[list[int], list[tuple[int, ...]]]:
            return [], [(v, RELAY) for v in missing]

    relayed = OverRelay(1, np.zeros(1, np.int64))
    for _ in range(relayed.patience):
        relayed.on_timeout()
    assert relayed.error is not None and relayed.error.culprits == ()
    assert relayed.error.suspects == ((RELAY, 0),)
