"""Testing a sum protocol: the one conformance kit every registered :class:`SumProtocol` passes.

As :mod:`transports.testing` does for transports (and :mod:`trio.testing`'s
``check_two_way_stream`` for streams), this module is public: whoever writes
a sum protocol registers it and runs the kit on it.  It does not import
pytest.  Each ``check_*`` function takes the protocol and a runner (a
:class:`~mpc_rr.core.Runner`: ``runner(plan) -> RunResult``; default the
synchronous :class:`~mpc_rr.core.HarnessRunner`) and raises
``AssertionError`` naming what the protocol got wrong:

* :func:`check_plaintext_sum` -- every party that learns the total learns the
  plaintext sum of the inputs;
* :func:`check_dropouts` -- a party that drops out at each step, within the
  protocol's bound (one party) and beyond it (all but two): the run either
  completes with the sum of the parties it says it included (none who left
  before their input did), or party 0 aborts naming a party that left and
  no other -- never a wrong total, never a silent failure;
* :func:`check_codec` -- every message of a run survives the strict codec's
  round trip, and a truncated frame, trailing bytes and an unknown type are
  refused (:class:`~mpc_rr.core.DecodeError`);
* :func:`check_observer` -- an observer holding only the protocol's message
  types decodes every payload of a run's transcript
  (:func:`~mpc_rr.core.observe`);
* :func:`check_distributed_noise` -- for a protocol that carries distributed noise
  (:class:`~mpc_rr.secure_sum._protocol.DistributedNoise`): with the most dropouts it
  states, the decoded noisy sum is the exact sum plus the noise the included parties drew;
  inputs at the top of the noisy range sum without wrapping; and the noise of the fewest
  honest survivors its bounds leave reaches the calibrated variance.

Checks that need a layer above the sums (the pipeline's and RRBA's inner
sum, one process per party) are registered by those layers with
:func:`register_check`; :func:`checks` lists them all, so a test
parametrized over ``checks() x protocols x runners`` picks up a new check
without an edit.  Sizes are small (``n`` 4-6 parties, 3 cells): the kit
tests behaviour, not speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    Codec,
    DecodeError,
    DropPlan,
    HarnessRunner,
    Message,
    RunResult,
    Transcript,
)
from mpc_rr.core._views import observe
from mpc_rr.secure_sum._common import SumResult
from mpc_rr.secure_sum._entropy import SeededEntropy
from mpc_rr.secure_sum._family import sum_protocol
from mpc_rr.secure_sum._noise import offset_noisy_input
from mpc_rr.secure_sum._noisy_sum import plan_noisy_sum
from mpc_rr.secure_sum._plan import SecureSumPlan
from mpc_rr.secure_sum._protocol import DistributedNoise, SumProtocol

__all__ = [
    "Check",
    "KitRunner",
    "check_codec",
    "check_distributed_noise",
    "check_dropouts",
    "check_observer",
    "check_plaintext_sum",
    "checks",
    "kit_inputs",
    "register_check",
]

KitRunner = Callable[[Any], RunResult]
"""``runner(roles or plan) -> RunResult`` (every :class:`~mpc_rr.core.Runner` is one)."""


@dataclass(frozen=True)
class Check:
    """One check of the kit: ``run(protocol, runner)`` raises ``AssertionError`` on a failure.

    ``any_runner``: the check means something on every runner (else the harness alone:
    dropouts and codecs do not depend on the transport); ``slow``: the suite's ``-m slow``
    tier; ``applies(protocol)``: whether the protocol can take it (e.g. the inner-sum checks
    need a protocol whose party 0 learns the total).
    """

    name: str
    run: Callable[[SumProtocol, KitRunner], None]
    any_runner: bool = True
    slow: bool = False
    applies: Callable[[SumProtocol], bool] = lambda protocol: True


_CHECKS: dict[str, Check] = {}


def register_check(
    name: str,
    run: Callable[[SumProtocol, KitRunner], None],
    *,
    any_runner: bool = True,
    slow: bool = False,
    applies: Callable[[SumProtocol], bool] | None = None,
) -> Check:
    """Add a check to the kit (a layer above adds its own: the pipeline's inner sum, ...)."""
    check = Check(name, run, any_runner, slow, applies if applies is not None else (lambda protocol: True))
    _CHECKS[name] = check
    return check


def checks() -> tuple[Check, ...]:
    """Every registered check, in registration order."""
    return tuple(_CHECKS.values())


def kit_inputs(n: int, cells: int, seed: int) -> np.ndarray:
    """One-hot inputs of ``n`` parties over ``cells`` cells (uint8), drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    x = np.zeros((n, cells), np.uint8)
    x[np.arange(n), rng.integers(0, cells, n)] = 1
    return x


def _protocol(protocol: SumProtocol | str) -> SumProtocol:
    return sum_protocol(protocol) if isinstance(protocol, str) else protocol


def _plan(protocol: SumProtocol, x: np.ndarray, seed: int, run: str) -> SecureSumPlan:
    return SecureSumPlan(protocol, x, run=run, entropy=SeededEntropy(seed).spawn)


def _totals(protocol: SumProtocol, res: RunResult) -> dict[int, SumResult]:
    """The results of the parties that finished (every role of a sum ends with a SumResult)."""
    out: dict[int, SumResult] = {}
    for pid, role in res.roles.items():
        if pid == COORDINATOR and not protocol.coordinator:
            continue  # a transport's relay (TCP's idle hub), not a party of the protocol
        if role.error is None and role.done and getattr(role, "crashed", False) is False:
            result = role.result
            assert isinstance(result, SumResult), (
                f"{protocol.name}: party {pid} finished with a {type(result).__name__}, not a SumResult"
            )
            out[pid] = result
    return out


def check_plaintext_sum(
    protocol: SumProtocol | str, runner: KitRunner | None = None, *, n: int = 5, cells: int = 3, seed: int = 0
) -> None:
    """Every party's total equals the plaintext sum; party 0's includes every data party."""
    proto = _protocol(protocol)
    x = kit_inputs(n, cells, seed)
    res = (runner or HarnessRunner())(_plan(proto, x, seed, f"kit-{proto.name}-{seed}"))
    assert not res.errors, f"{proto.name}: a run without faults aborted: {res.errors}"
    totals = _totals(proto, res)
    first = proto.first_party()
    assert set(totals) == set(range(first, n + 1)), (
        f"{proto.name}: parties {sorted(set(range(first, n + 1)) - set(totals))} ended without a result"
    )
    want = x.sum(axis=0, dtype=np.int64)
    for pid, r in totals.items():
        got = np.asarray(r.total, dtype=np.int64)
        assert np.array_equal(got, want), f"{proto.name}: party {pid}'s total {got.tolist()} != {want.tolist()}"
    if proto.total_at_coordinator:
        assert tuple(totals[COORDINATOR].included) == tuple(range(1, n + 1)), (
            f"{proto.name}: party 0 included {totals[COORDINATOR].included}, not every data party"
        )


def _dropout_claim(proto: SumProtocol, x: np.ndarray, res: RunResult, dropped: set[int], step: str) -> None:
    """Complete with the sum of the included parties, or abort naming one who left."""
    where = f"{proto.name}: parties {sorted(dropped)} dropping at {step!r}"
    if res.errors:
        # who knows who left: party 0 when it takes part (a data party may only see it go quiet)
        judges = {COORDINATOR: res.errors[COORDINATOR]} if COORDINATOR in res.errors else res.errors
        named = {int(c) for e in judges.values() for c in e.culprits}
        named |= {int(c) for e in judges.values() for g in e.suspects for c in g if c >= 0}
        assert named & dropped, f"{where}: the run aborted without naming any of them ({dict(judges)})"
        assert not named - dropped, f"{where}: the abort blamed parties that stayed: {sorted(named - dropped)}"
        return
    totals = _totals(proto, res)
    assert totals, f"{where}: no party finished and none aborted"
    for pid, r in totals.items():
        if not r.included:  # a data party is not told whom the total includes
            continue
        included = [int(i) for i in r.included]
        want = x[np.asarray(included) - 1].sum(axis=0, dtype=np.int64)
        got = np.asarray(r.total, dtype=np.int64)
        assert np.array_equal(got, want), (
            f"{where}: party {pid}'s total {got.tolist()} is not the sum {want.tolist()} of the "
            f"parties it included {included}"
        )
        steps = proto.steps
        if steps.index(step) <= steps.index(proto.input_step):
            assert not set(included) & dropped, (
                f"{where}: party {pid} included {sorted(set(included) & dropped)}, who left before "
                f"their input did"
            )


def check_dropouts(
    protocol: SumProtocol | str, runner: KitRunner | None = None, *, n: int = 6, cells: int = 3, seed: int = 1,
    beyond: bool = False,
) -> None:  # fmt: skip
    """At each step one data party drops (within any bound); with ``beyond``, all but two."""
    proto = _protocol(protocol)
    x = kit_inputs(n, cells, seed)
    points = proto.step_messages()
    assert tuple(points) == tuple(proto.steps), (
        f"{proto.name}: step_messages names {tuple(points)}, its steps are {proto.steps}"
    )
    for step, point in points.items():
        for dropped in [set(range(3, n + 1)) if beyond else {n}]:
            plan = DropPlan(_plan(proto, x, seed, f"kit-drop-{step}"), dict.fromkeys(dropped, point))
            res = (runner or HarnessRunner())(plan)
            _dropout_claim(proto, x, res, dropped, step)


def _transcript_of(proto: SumProtocol, seed: int) -> Transcript:
    res = HarnessRunner(transcript=True)(_plan(proto, kit_inputs(4, 3, seed), seed, f"kit-wire-{seed}"))
    assert res.transcript is not None
    return res.transcript


def check_codec(protocol: SumProtocol | str, runner: KitRunner | None = None, *, seed: int = 2) -> None:
    """Round trip of every message of a run; truncated, over-long and unknown frames refused."""
    proto = _protocol(protocol)
    types = proto.message_types()
    assert types and len(set(types)) == len(types), f"{proto.name}: message_types() must list each type once"
    codec = Codec(types)
    seen: set[type[Message]] = set()
    for event in _transcript_of(proto, seed).events:
        payload = bytes(event.data)
        msg = codec.decode(payload, sender=event.src)
        seen.add(type(msg))
        assert codec.encode(msg) == payload, f"{proto.name}: {type(msg).__name__} does not re-encode to its bytes"
        for bad, what in ((payload[:-1], "truncated"), (payload + b"\0", "with a trailing byte")):
            try:
                codec.decode(bad, sender=event.src)
            except DecodeError:
                pass
            else:
                raise AssertionError(f"{proto.name}: a {what} {type(msg).__name__} frame was accepted")
    steps = {t for p in proto.step_messages().values() for t in (p if isinstance(p, tuple) else (p,))}
    assert steps <= seen, f"{proto.name}: a run sent no {sorted(t.__name__ for t in steps - seen)}"
    alien = Codec((_Alien,)).encode(_Alien(run=""))
    try:
        codec.decode(alien, sender=1)
    except DecodeError:
        pass
    else:
        raise AssertionError(f"{proto.name}: a frame of an unknown message type was accepted")


class _Alien(Message, frozen=True):
    """A message type no protocol has (the codec must refuse it)."""


def check_observer(protocol: SumProtocol | str, runner: KitRunner | None = None, *, seed: int = 3) -> None:
    """An observer with the protocol's message types decodes every payload of a run."""
    proto = _protocol(protocol)
    transcript = _transcript_of(proto, seed)
    view = observe(transcript, proto.message_types())
    events = len(transcript.events)
    assert view.plaintext and view.undecodable == 0, (
        f"{proto.name}: the observer could not decode {view.undecodable} of {events} payloads"
    )
    assert len(view) == events, f"{proto.name}: the observer decoded {len(view)} of {events} payloads"


def _noisy_run(
    proto: SumProtocol, inputs: np.ndarray, top: int, options: Any, seed: int, run: str,
    dropped: set[int], runner: KitRunner | None,
) -> RunResult:  # fmt: skip
    n, cells = inputs.shape
    plan: Any = SecureSumPlan(proto, inputs, run=run, entropy=SeededEntropy(seed).spawn, options=options,
                              shape=(n, cells, top))  # fmt: skip
    if dropped:
        point = proto.step_messages()[proto.input_step]
        plan = DropPlan(plan, dict.fromkeys(dropped, point))
    return (runner or HarnessRunner())(plan)


def check_distributed_noise(
    protocol: SumProtocol | str, runner: KitRunner | None = None, *, n: int = 6, cells: int = 3,
    seed: int = 4, samples: int = 4000,
) -> None:  # fmt: skip
    """Distributed noise (module docstring): exact noisy sums with the most dropouts the
    protocol states, no wrap at the top of the noisy range, and the honest survivors' noise
    alone at the calibrated variance (``samples`` draws of it, at least 0.9 v: the sample
    variance's sd is ``sqrt(2 / samples)`` of it)."""
    from mpc_rr.core import UsageError
    from mpc_rr.privacy import Sensitivity

    proto = _protocol(protocol)
    assert isinstance(proto, DistributedNoise), f"{proto.name} does not carry distributed noise"
    for size in (n, 50):  # the colluders the noise allows for are those the protocol hides against
        opts = proto.options_for(None, size)
        stated, trusted = proto.noise_bounds(opts, size)[1], proto.trust_of(opts, size).colluders
        assert stated >= trusted, (
            f"{proto.name}: the noise allows for {stated} colluders among {size}, its trust() for {trusted}"
        )
    unit = Sensitivity(l1=2, l2=2**0.5, linf=1, relation="replace-one")  # one one-hot block
    plan = plan_noisy_sum(proto, n, cells=cells, epsilon=1.0, delta=1e-6, sensitivity=unit)
    dropouts, colluders = proto.noise_bounds(plan.options, n)
    honest = n - int(dropouts) - int(colluders)
    assert plan.noise.honest_min == honest >= 1, (
        f"{proto.name}: the noise is calibrated for {plan.noise.honest_min} honest survivors, but "
        f"{n} parties less {dropouts} dropouts and {colluders} colluders leave {honest}"
    )
    try:
        pub = plan.public(run=f"kit-noise-{proto.name}")
    except UsageError as exc:
        raise AssertionError(f"{proto.name}: {exc}") from None
    modulus = proto.noisy_modulus(pub)
    assert modulus is None or modulus > n * plan.input_max, (
        f"{proto.name}: modulus {modulus} cannot hold {n} noisy inputs up to {plan.input_max}"
    )
    # the noisy sum is the exact sum plus the noise the included parties drew
    x = kit_inputs(n, cells, seed)
    rngs = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,))) for i in range(n)]
    noisy = np.stack([plan.noisy_input(x[i], rngs[i]) for i in range(n)])
    drawn = noisy - x.astype(np.int64) - plan.offset
    dropped = set(range(n - int(dropouts) + 1, n + 1))
    res = _noisy_run(proto, noisy, plan.input_max, plan.options, seed, f"kit-noise-{proto.name}", dropped, runner)
    where = f"{proto.name}: a noisy run with {len(dropped)} dropouts (its stated bound)"
    assert not res.errors, f"{where} aborted: {res.errors}"
    totals = _totals(proto, res)
    counted = [r for r in totals.values() if r.included]
    assert counted, f"{where}: no party reported whom the total includes"
    for pid, r in totals.items():
        included = np.asarray([int(i) for i in (r.included or counted[0].included)])
        assert len(included) >= n - int(dropouts), f"{where}: party {pid}'s total includes only {len(included)}"
        got = plan.decode(np.asarray(r.total, dtype=np.int64), len(included))
        want = x[included - 1].sum(axis=0, dtype=np.int64) + drawn[included - 1].sum(axis=0)
        assert np.array_equal(got, want), (
            f"{where}: party {pid} decoded {got.tolist()}, not the exact sum plus the drawn noise "
            f"{want.tolist()}"
        )
    # no wrap: every input at the top of the noisy range
    top = np.full((n, cells), plan.input_max, np.int64)
    res = _noisy_run(proto, top, plan.input_max, plan.options, seed, f"kit-noise-top-{proto.name}", set(), runner)
    assert not res.errors, f"{proto.name}: a run of inputs at {plan.input_max} aborted: {res.errors}"
    for pid, r in _totals(proto, res).items():
        got = np.asarray(r.total, dtype=np.int64)
        assert np.all(got == n * plan.input_max), (
            f"{proto.name}: {n} inputs of {plan.input_max} summed to {got.tolist()} at party {pid} (wrapped)"
        )
    # the fewest honest survivors' noise alone reaches the calibrated variance
    rng = np.random.default_rng(seed)
    zero = np.zeros(samples, np.int64)
    alone = sum(offset_noisy_input(zero, plan.noise, plan.offset, rng) - plan.offset for _ in range(honest))
    var = float(np.var(alone))
    assert var >= 0.9 * plan.noise.central_variance, (
        f"{proto.name}: {honest} honest survivors' noise has variance {var:.4g}, below the "
        f"calibrated {plan.noise.central_variance:.4g}"
    )


register_check("plaintext-sum", check_plaintext_sum)
register_check("dropouts-within-bound", check_dropouts, any_runner=False)
register_check(
    "dropouts-beyond-bound", lambda protocol, runner: check_dropouts(protocol, runner, beyond=True), any_runner=False
)
register_check("codec", check_codec, any_runner=False)
register_check("observer", check_observer, any_runner=False)
register_check("distributed-noise", check_distributed_noise, any_runner=False,
               applies=lambda protocol: isinstance(protocol, DistributedNoise))  # fmt: skip
