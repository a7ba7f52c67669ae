"""The classroom lesson of any registered sum protocol (one without a lesson of its own).

The class takes a poll: each data party votes for one of ``options`` answers
(a one-hot vector, :func:`mpc_rr.secure_sum.party_input`) and the protocol
sums the votes.  What it knows of the protocol comes from its :class:`~mpc_rr.secure_sum.SumProtocol` alone --
the roles it builds, its steps and messages, its options -- so a protocol
registered today is taught today: every message is listed with the fields
decoded from its bytes, each of the protocol's steps opens a round, and the
result is checked against the plain count.  A protocol with a richer lesson
(notes on what each round achieved: the full mesh, SecAgg+) is registered
for it instead (:func:`scenarios.classroom.register_lesson`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import COORDINATOR, Role, WireArray
from mpc_rr.secure_sum import SecureSumPlan, SeededEntropy, party_input, sum_protocol
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, drop_roles, vec
from scenarios.classroom.poll import labels as poll_labels

__all__ = ["sum_lesson"]


def _field(value: Any) -> str:
    if isinstance(value, WireArray):
        a = value.to_numpy()
        return vec(a) if a.ndim == 1 else f"{a.shape} array"
    if isinstance(value, bytes):
        return f"{len(value)} B {value[:8].hex()}..." if len(value) > 8 else value.hex()
    if isinstance(value, list | tuple):
        return f"{len(value)} items" if len(value) > 8 else str(list(value))
    return str(value)


def sum_lesson(
    n: int, *, seed: int, protocol: str, options: int | Sequence[str] = 4, drops: dict[int, str] | None = None
) -> Lesson:
    """``n`` one-hot votes over ``options`` answers summed by sum protocol ``protocol``."""
    spec = sum_protocol(protocol)
    drops = drops or {}
    labels = poll_labels(options)  # the labels given, or A, B, ... for a count
    options = len(labels)
    x = np.stack([party_input(i, seed, options) for i in range(1, n + 1)])
    plan = SecureSumPlan(
        protocol, x, run=f"classroom-{protocol}-{seed}", options=spec.one_hot_options({}, (options,)),
        entropy=lambda pid: SeededEntropy(seed, f"classroom/party-{pid}"),
    )  # fmt: skip
    roles: dict[int, Role] = drop_roles(plan.build(), drops, dict(spec.step_messages()))
    # a step's own message (the first, where the step's message differs by role)
    step_of = {(t[0] if isinstance(t, tuple) else t).__name__: s for s, t in spec.step_messages().items()}
    rounds: dict[str, tuple[str, str]] = {}
    current = spec.steps[0]
    for t in spec.message_types():  # a message not sent at a step belongs to the round before it
        current = step_of.get(t.__name__, current)
        k = spec.steps.index(current) + 1
        rounds[t.__name__] = (current, f"Round {k} - {current}")
    setup = [
        f"{n} parties P1..P{n} each vote for one of the options {', '.join(labels)} (one-hot x_i); "
        f"the {protocol} sum counts the votes. {spec.summary}.",
        "Private inputs (printed only because this is a classroom):",
        *(f"  P{i}: votes {labels[int(np.argmax(row))]}  x_{i} = {vec(row)}" for i, row in enumerate(x, 1)),
        f"Public parameters: {plan.public_params()}",
    ]

    def describe(s: Sent) -> list[tuple[str, str]]:
        fields = msgspec.structs.asdict(s.msg)
        return [(k, _field(v)) for k, v in fields.items() if k not in ("run", "step", "v")]

    def notes(key: str, ctx: Context) -> list[Note]:
        return []

    def check(ctx: Context) -> tuple[list[str], bool]:
        watch = COORDINATOR if spec.coordinator else min(set(range(1, n + 1)) - set(drops) or {1})
        role = ctx.roles[watch]
        if role.error is not None or not role.done:
            return [f"no result: {role.error or 'did not finish'}"], False
        res = spec.result_of(role)
        inc = list(res.included) or [i for i in range(1, n + 1) if i not in drops]
        plain = x[np.asarray(inc) - 1].sum(axis=0)
        same = bool(np.array_equal(res.total, plain))
        return [
            f"inputs included: P{', P'.join(map(str, inc))}",
            f"plain count of the included votes (computed directly): {vec(plain)}",
            f"{'P0' if watch == COORDINATOR else f'P{watch}'}'s result: {vec(res.total)} "
            f"{'== plain count: OK' if same else '!= plain count: WRONG'}",
        ], same

    participants = {i: f"P{i}" for i in range(1, n + 1)}
    if spec.coordinator:
        participants = {COORDINATOR: "P0", **participants}
    return Lesson(
        protocol=protocol, title=f"{protocol} secure sum, {n} parties, {options} options", seed=seed,
        roles=roles, participants=participants, setup=setup, rounds=rounds, describe=describe,
        notes=notes, check=check,
        diagrams=list(dict.fromkeys(type(getattr(r, "inner", r)) for r in roles.values())),
        drops=drops, extra={"inputs": x.tolist(), "params": plan.public_params()},
    )  # fmt: skip
