"""/metrics is written by prometheus_client from the process' own counters."""

from __future__ import annotations

from prometheus_client import generate_latest

from bot.process.metrics import Metrics


def test_metrics_are_collected_through_a_prometheus_client_registry() -> None:
    """Counters and gauges read at scrape time reach prometheus_client's registry, same names."""
    counts = {"posts": 2.0}
    metrics = Metrics()
    metrics.counter("posts_made", "Daily posts made.", lambda: counts["posts"])
    metrics.gauge("front_ends", "Chat front ends configured.", lambda: 1.0)
    counts["posts"] = 3.0
    assert metrics.registry.get_sample_value("vllm_report_posts_made_total") == 3.0
    assert metrics.registry.get_sample_value("vllm_report_front_ends") == 1.0
    assert metrics.render() == generate_latest(metrics.registry).decode()
