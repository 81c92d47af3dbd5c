"""/metrics is written by prometheus_client from the process' own counters."""

from __future__ import annotations

import subprocess
import sys

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


def test_prometheus_client_is_loaded_on_the_first_scrape_only() -> None:
    """The runtime's metrics cost a command line nothing: prometheus_client loads when read."""
    code = (
        "import sys\n"
        "from bot.process.metrics import Metrics\n"
        "metrics = Metrics()\n"
        "metrics.gauge('up', 'Up.', lambda: 1.0)\n"
        "before = 'prometheus_client' in sys.modules\n"
        "text = metrics.render()\n"
        "print(before, 'prometheus_client' in sys.modules, 'vllm_report_up 1.0' in text)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True", "True"]
