"""The TCP hub against hostile parties and crashes (issue 9)."""

from __future__ import annotations

import functools

import pytest
import trio
import trio.testing

from tests.deploy import roster_for
from transports.errors import EndpointClosed
from transports.tcp import connect_client, open_hub

MiB = 1 << 20


def deadline(seconds: float):
    """Fail a test that hangs instead of blocking the suite (a hub bug can look like a hang)."""

    def wrap(fn):
        @functools.wraps(fn)
        async def inner(*args, **kwargs):
            with trio.fail_after(seconds):
                return await fn(*args, **kwargs)

        return inner

    return wrap


async def _until(pred, what: str, timeout: float = 10) -> None:
    with trio.fail_after(timeout):
        while not pred():
            await trio.sleep(0.01)


# -- B: errors raised in the body of `async with open_hub` ------------------------------


@deadline(60)
async def test_an_error_in_the_hub_body_propagates_with_its_cause(tmp_path) -> None:
    roster = roster_for(3, tmp_path)
    with pytest.raises(ValueError, match="raised in the body") as info:
        async with open_hub(roster, port=0) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            c = await connect_client(r, 1)  # with a live connection, whose handler is cancelled
            try:
                raise KeyError("inner")
            except KeyError as exc:
                raise ValueError("raised in the body") from exc
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(EndpointClosed):  # the hub did close
        await c.receive()
    await c.aclose()


@deadline(60)
async def test_an_error_after_closing_the_hub_in_the_body_still_propagates(tmp_path) -> None:
    roster = roster_for(3, tmp_path)
    with pytest.raises(RuntimeError, match="after aclose"):
        async with open_hub(roster, port=0) as hub:
            await hub.aclose()
            raise RuntimeError("after aclose")


@deadline(60)
async def test_outer_cancellation_of_the_hub_body_is_clean(tmp_path) -> None:
    roster = roster_for(3, tmp_path)
    with trio.move_on_after(0.2) as scope:
        async with open_hub(roster, port=0):
            await trio.sleep_forever()
    assert scope.cancelled_caught
