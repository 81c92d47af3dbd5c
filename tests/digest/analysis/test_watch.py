"""Worth watching: open items with a reason, most urgent first."""

from __future__ import annotations

from datetime import timedelta

from digest.analysis.watch import watch_reason, worth_watching
from tests.support.analysis_sample import START, key, make_item, sample_analysis


def test_reasons() -> None:
    """Regressions, crashes, RFCs, busy bugs and blockers are recognised; closed items are not."""
    assert watch_reason(make_item(1, "[Bug]: throughput regression on H100"), ()) == "regression"
    assert watch_reason(make_item(2, "[Bug]: crash at startup", labels=("bug",)), ()) == "crash"
    assert watch_reason(make_item(3, "[RFC]: new scheduler"), ()) == "rfc"
    assert watch_reason(make_item(4, "Slow", labels=("bug",), comments_total=20), ()) == "busy_bug"
    assert watch_reason(make_item(5, "Anything", labels=("release-blocker",)), ()) == "blocker"
    assert watch_reason(make_item(6, "Hot topic"), {key(6)}) == "heated"
    closed = make_item(7, "[Bug]: crash", labels=("bug",), closed=START + timedelta(hours=1))
    assert watch_reason(closed, ()) is None
    assert watch_reason(make_item(8, "[Bugfix] Fix crash in loader", pr=True), ()) is None


def test_order_and_variety() -> None:
    """Most urgent first, and one reason does not crowd out the others."""
    items = [make_item(n, f"[Bug]: throughput regression {n}") for n in range(1, 7)]
    items.append(make_item(50, "[RFC]: new scheduler"))
    watched = worth_watching(items)
    reasons = [w.reason for w in watched]
    assert reasons[0] == "regression"
    assert "rfc" in reasons
    assert len(watched) == 6


def test_sample_watch() -> None:
    """In the sample the open DeepSeek-V3.2 MTP bug against v0.15.0 is worth watching."""
    assert [(w.item.number, w.reason) for w in sample_analysis().watch] == [(33497, "release_bug")]
