"""Running many coroutines with a bound on how many run at once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


async def run_pool(items: Sequence[T], worker: Callable[[T], Awaitable[None]], size: int) -> None:
    """Run ``worker`` over ``items`` with at most ``size`` running at once; the first error propagates."""
    queue: asyncio.Queue[T] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)

    async def loop() -> None:
        while True:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await worker(item)

    tasks = [asyncio.create_task(loop()) for _ in range(max(1, min(size, len(items))))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


def chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
