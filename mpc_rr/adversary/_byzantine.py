"""The cheating roles a simulated Byzantine party 0 may play (``mpc-rr simulate``).

Random rewrites of messages (:mod:`mpc_rr.simulation`) rarely tell a coherent lie; these do.
Each is a plant (:data:`~mpc_rr.adversary._broken.Plant`) that replaces party 0 of an honest
run by one of the active cheaters of :mod:`mpc_rr.adversary.active`:

* ``equivocate`` -- the SecAgg+ aggregator tells half of party 1's neighbours that it dropped
  and the others that it survived (the consistency round stops it);
* ``isolate`` -- it tells everyone but party 1's neighbours that those dropped;
* ``key-swap`` -- the full mesh's bulletin board lists a key of its own as party 1's (with
  party 1's signature on its real key: the parties' signature check stops it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Role, Send, WireArray
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum.full_mesh import BulletinBoard, MeshKeys

__all__ = ["BOARD_CHEATERS", "SECAGG_CHEATERS", "KeySwappingBoard"]

Plant = Callable[[dict[int, Role], np.ndarray, Any], dict[int, Role]]
"""``plant(roles, inputs, public) -> roles`` (as :data:`~mpc_rr.adversary._broken.Plant`; not
imported from there: that module imports the pipeline)."""


def _server(strategy: str) -> Plant:
    def plant(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
        """Party 0 replaced (its configuration kept: a planted variant may have changed it)."""
        from mpc_rr.adversary.active import CheatingServer

        old: Any = roles[COORDINATOR]
        out = dict(roles)
        out[COORDINATOR] = CheatingServer(old.cfg, None, identity=old._identity, strategy=strategy, target=1)
        return out

    return plant


SECAGG_CHEATERS: Mapping[str, Plant] = {"equivocate": _server("equivocate"), "isolate": _server("isolate")}
"""SecAgg+'s cheating aggregators (module docstring)."""


class KeySwappingBoard(BulletinBoard):
    """A bulletin board that shows every party but party 1 a key of its own as party 1's."""

    def _send_keys(self) -> list[Send]:
        out = super()._send_keys()
        _, fake = crypto.keypair(SeededEntropy(0, "key-swap"))
        rewritten = []
        for s in out:
            m: MeshKeys = s.msg  # type: ignore[assignment]
            if s.dst != 1:
                rows = m.pks.to_numpy().copy()
                rows[0] = np.frombuffer(fake, np.uint8)
                m = MeshKeys(pks=WireArray.from_numpy(rows), run=m.run, step=m.step, signatures=m.signatures)
            rewritten.append(Send(s.dst, m))
        return rewritten


def _swap_keys(roles: dict[int, Role], x: np.ndarray, public: Any) -> dict[int, Role]:
    old = roles[COORDINATOR]
    assert isinstance(old, BulletinBoard)
    out = dict(roles)
    out[COORDINATOR] = KeySwappingBoard(old.n, old.cells, modulus=old.modulus, run=old.run, roster=old._roster)
    return out


BOARD_CHEATERS: Mapping[str, Plant] = {"key-swap": _swap_keys}
"""The full mesh's cheating bulletin board (module docstring)."""
