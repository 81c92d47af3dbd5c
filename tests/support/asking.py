"""A command runner that answers questions over a mirror and builds no digest."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from bot.commands.runner import ReportCore
from bot.compose.questions import question_asker
from config.settings import load_config
from digest.ask import AnswerWriter
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestRequest
from digest.errors import ConfigError
from digest.models import Digest
from tests.digest.conftest import SAMPLE_NOW, fill, sample_rows


async def no_digest(request: DigestRequest) -> Digest:
    raise ConfigError("no digests in these tests")


def asking_core(
    store: SQLiteStore, clock: Callable[[], datetime], writer: AnswerWriter | None = None
) -> ReportCore:
    """A core that answers questions over ``store`` (by ``writer`` when given), and builds no
    digest."""
    config = load_config()
    asker = question_asker(
        config, store, clock=clock, writer=(lambda: writer) if writer is not None else None
    )
    return ReportCore(config=config, get_digest=no_digest, clock=clock, asker=asker)


@asynccontextmanager
async def sample_core() -> AsyncIterator[ReportCore]:
    """A core answering over the sample's mirror, its clock just after the sample."""
    store = SQLiteStore(":memory:")
    await fill(store, *sample_rows())
    yield asking_core(store, lambda: SAMPLE_NOW)
    await store.close()
