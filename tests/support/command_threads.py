"""The command threads of a front end's tests: a replica's journal, and another replica's
recovery of what it left open."""

from __future__ import annotations

from collections.abc import Mapping

from bot.commands.runner import ReportCore
from digest.schedule.command_threads import CommandThreads, ThreadPost, ThreadRecovery
from digest.schedule.ledger import StateLedger
from tests.support.clock import Clock


def journal(ledger: StateLedger, clock: Clock, owner: str) -> CommandThreads:
    """Replica ``owner``'s journal of the threads its commands start."""
    return CommandThreads(ledger, clock=clock, owner=owner)


def recovery(
    ledger: StateLedger, clock: Clock, core: ReportCore, owner: str, posts: Mapping[str, ThreadPost]
) -> ThreadRecovery:
    """Replica ``owner``'s recovery of open threads, through ``posts``, rebuilt by ``core``."""
    return ThreadRecovery(
        journal(ledger, clock, owner),
        posts=posts,
        build=core.build,
        note=lambda thread, parts: f"cut short after {parts}",
    )
