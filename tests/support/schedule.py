"""Looking back along a subscription's schedule."""

from __future__ import annotations

from datetime import datetime, timedelta

from digest.schedule.subscription import Subscription, runs_between


def last_run(subscription: Subscription, at: datetime) -> datetime:
    """The latest scheduled moment (UTC) at or before ``at`` (every cadence runs within 9 days)."""
    return runs_between(subscription, at - timedelta(days=9), at)[-1]
