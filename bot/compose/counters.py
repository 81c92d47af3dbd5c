"""The counters and gauges of ``/metrics``: which owner each one reads when scraped."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.process.metrics import ErrorCounter, Metrics
from bot.process.refresh import MirrorSync
from digest.builder import DigestBuilder
from digest.schedule.command_threads import CommandThreads
from digest.schedule.scheduler import Scheduler
from digest.state.limiter import Limiter

_SCHEDULER_COUNTERS = (
    ("daily_digests_built", "digests_built", "Digest builds requested by the daily scheduler."),
    ("posts_made", "posts_made", "Daily posts made."),
    (
        "posts_incomplete",
        "posts_incomplete",
        "Daily posts whose thread broke off after a part was out; resumed on a later pass.",
    ),
    (
        "posts_resumed",
        "posts_resumed",
        "Daily posts whose interrupted thread was completed from its next part.",
    ),
    ("post_errors", "post_errors", "Daily posts that failed and were released for a retry."),
    ("build_errors", "build_errors", "Daily digest builds that failed."),
    ("claims_lost", "claims_lost", "Daily posts given up because another replica took over."),
)


_THREAD_COUNTERS = (
    ("command_threads_opened", "threads_opened", "Digest threads commands started in chat."),
    ("command_threads_completed", "threads_completed", "Command threads posted in full."),
    (
        "command_threads_resumed",
        "threads_resumed",
        "Command threads a replica left short and this one completed.",
    ),
    (
        "command_threads_cut_short",
        "threads_cut_short",
        "Command threads too old to complete: the requester was told instead.",
    ),
)


def _reader(counters: Mapping[str, int], key: str) -> Callable[[], float]:
    """A metric callback reading ``counters[key]`` when scraped."""
    return lambda: float(counters[key])


def register_metrics(
    m: Metrics,
    builder: DigestBuilder,
    sched: Scheduler,
    threads: CommandThreads,
    sync: MirrorSync | None,
    errors: ErrorCounter | None,
    front_ends: tuple[str, ...],
    limiter: Limiter | None = None,
) -> None:
    """Register every counter and gauge of ``/metrics`` on ``m``, each reading its owner."""
    m.counter(
        "digests_built",
        "Digests built (cache misses), on demand and daily.",
        lambda: float(builder.builds),
    )
    for name, key, text in _SCHEDULER_COUNTERS:
        m.counter(name, text, _reader(sched.counters, key))
    for name, key, text in _THREAD_COUNTERS:
        m.counter(name, text, _reader(threads.counters, key))
    m.gauge(
        "subscriptions",
        "Subscriptions seen by the scheduler's last pass.",
        lambda: sched.subscription_count,
    )
    m.gauge(
        "scheduler_last_tick_timestamp_seconds",
        "When the scheduler last ran a pass.",
        lambda: sched.last_tick.timestamp() if sched.last_tick else 0.0,
    )
    m.counter(
        "sync_requests",
        "Background mirror syncs started.",
        lambda: sync.counters["sync_requests"] if sync else 0.0,
    )
    m.counter(
        "sync_errors",
        "Background mirror syncs that failed.",
        lambda: sync.counters["sync_errors"] if sync else 0.0,
    )
    m.counter(
        "sync_lapsed",
        "Background syncs skipped: the repository stopped answering (not followed any more).",
        lambda: sync.counters["sync_lapsed"] if sync else 0.0,
    )
    m.counter(
        "mirrors_pruned",
        "Mirrors of repositories nobody follows or asked for lately, dropped.",
        lambda: sync.counters["mirrors_pruned"] if sync else 0.0,
    )
    m.counter(
        "errors",
        "Error records logged by the process.",
        lambda: errors.count if errors else 0.0,
    )
    m.gauge(
        "builds_running",
        "Digests being built now (at most VLLM_REPORT_MAX_BUILDS).",
        lambda: float(builder.slots.running),
    )
    m.counter(
        "limit_refusals",
        "Digests, questions and clicks a rate limit refused.",
        lambda: float(limiter.refused) if limiter else 0.0,
    )
    m.counter(
        "posts_corrected",
        "Daily posts that went out behind and were corrected in their thread.",
        lambda: float(sched.corrections.counters["posts_corrected"]) if sched.corrections else 0.0,
    )
    m.gauge(
        "front_ends",
        "Chat front ends configured in this process.",
        lambda: float(len(front_ends)),
    )
