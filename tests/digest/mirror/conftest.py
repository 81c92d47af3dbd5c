"""The rigs and datasets of the sync tests: a fake GitHub over real HTTP, a SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.sync_rig import RigFactory, rigs
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate


@pytest.fixture
async def rig_factory() -> AsyncIterator[RigFactory]:
    """Builds rigs (several per test if needed) and closes them all afterwards."""
    async with rigs() as build:
        yield build


@pytest.fixture(scope="module")
def one_day() -> Dataset:
    """One synthetic vLLM day ending at DEFAULT_NOW."""
    return generate(days=1, now=DEFAULT_NOW, seed=1)


@pytest.fixture(scope="module")
def twenty_days() -> Dataset:
    """Twenty synthetic vLLM days: older than the 14-day backfill cap."""
    return generate(days=20, now=DEFAULT_NOW, seed=2)


@pytest.fixture(scope="module")
def reviewed_day() -> Dataset:
    """One synthetic vLLM day where half the human discussion on PRs is inline review."""
    return generate(days=1, now=DEFAULT_NOW, seed=1, review_share=0.5)
