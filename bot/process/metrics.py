"""Process metrics for ``/metrics``, read from their owners when scraped (prometheus_client,
imported on the first scrape: a command line that builds the runtime never loads it)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry
    from prometheus_client.core import Metric

Reader = Callable[[], float]
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


@dataclass(frozen=True, slots=True)
class _Metric:
    name: str  # without the ``_total`` of a counter
    kind: str  # counter | gauge
    help: str
    read: Reader


class Metrics:
    """Named counters and gauges, each read from its owner at scrape time.

    A custom collector on its own registry: the values live where they are counted (the
    scheduler, the sync...), and prometheus_client writes the exposition.
    """

    def __init__(self, namespace: str = "vllm_report") -> None:
        self._namespace = namespace
        self._metrics: dict[str, _Metric] = {}
        self._registry: CollectorRegistry | None = None

    @property
    def registry(self) -> CollectorRegistry:
        """The registry these metrics are collected from (made on first use)."""
        if self._registry is None:
            self._registry = _registry(self)
        return self._registry

    def counter(self, name: str, help: str, read: Reader) -> None:
        """A monotonically increasing count; exposed as ``<namespace>_<name>_total``."""
        self._add(_Metric(f"{self._namespace}_{name}", "counter", help, read))

    def gauge(self, name: str, help: str, read: Reader) -> None:
        self._add(_Metric(f"{self._namespace}_{name}", "gauge", help, read))

    def _add(self, metric: _Metric) -> None:
        if not _NAME.fullmatch(metric.name):
            raise ValueError(f"{metric.name!r} is not a Prometheus metric name")
        if metric.name in self._metrics:
            raise ValueError(f"metric {metric.name} is registered twice")
        self._metrics[metric.name] = metric

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        for metric in self._metrics.values():
            value = float(metric.read())
            if metric.kind == "counter":
                yield CounterMetricFamily(metric.name, metric.help, value=value)
            else:
                yield GaugeMetricFamily(metric.name, metric.help, value=value)

    def render(self) -> str:
        """Every metric in the Prometheus text format: ``# HELP``, ``# TYPE``, one sample."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry).decode()


def _registry(metrics: Metrics) -> CollectorRegistry:
    """A registry of its own holding ``metrics``, as a prometheus_client collector."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.registry import Collector

    class _Collector(Collector):
        def collect(self) -> Iterator[Metric]:
            return metrics.collect()

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    return registry


class ErrorCounter(logging.Handler):
    """Counts the error records logged anywhere in the process."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
