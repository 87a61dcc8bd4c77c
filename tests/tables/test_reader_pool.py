"""The event loop's own database connections (tables.digital._ReaderPool): kept, shared in turn,
a broken one replaced, never more than the pool's size."""

from __future__ import annotations

import asyncio

import pytest

from tables import digital


class FakeConnection:
    closed = False


async def _pool(size: int):
    opened: list[FakeConnection] = []

    async def open_one():
        opened.append(FakeConnection())
        return opened[-1]

    return digital._ReaderPool(asyncio.get_running_loop(), size, open_one), opened


async def test_a_released_connection_goes_to_the_first_waiter_not_to_a_newcomer():
    pool, opened = await _pool(1)
    first = await pool.acquire(1)
    waiting = asyncio.ensure_future(pool.acquire(1))
    await asyncio.sleep(0)
    pool.release(first)
    newcomer = asyncio.ensure_future(pool.acquire(0.2))
    assert await waiting is first
    with pytest.raises(asyncio.TimeoutError):  # none free, and no room to open another
        await newcomer
    assert len(opened) == 1 and pool.waiters == type(pool.waiters)()
    pool.release(first)
    assert pool.idle == [first] and await pool.acquire(1) is first  # kept between uses


async def test_a_broken_connection_makes_room_for_a_new_one():
    pool, opened = await _pool(1)
    first = await pool.acquire(1)
    waiting = asyncio.ensure_future(pool.acquire(1))
    await asyncio.sleep(0)
    pool.release(first, broken=True)
    second = await waiting
    assert second is not first and opened == [first, second] and pool.held == {second}


async def test_a_connection_that_cannot_be_opened_is_said_so():
    async def refuse():
        raise OSError("connection refused")

    pool = digital._ReaderPool(asyncio.get_running_loop(), 2, refuse)
    with pytest.raises(digital._ConnectFailed):
        await pool.acquire(1)
    assert pool.opening == 0 and pool.held == set()
