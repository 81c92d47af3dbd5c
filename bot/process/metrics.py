"""Process metrics in the Prometheus text exposition format, read when scraped."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

Reader = Callable[[], float]
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


@dataclass(frozen=True, slots=True)
class _Metric:
    name: str
    kind: str  # counter | gauge
    help: str
    read: Reader


class Metrics:
    """Named counters and gauges, each read from its owner at scrape time."""

    def __init__(self, namespace: str = "vllm_report") -> None:
        self._namespace = namespace
        self._metrics: dict[str, _Metric] = {}

    def counter(self, name: str, help: str, read: Reader) -> None:
        """A monotonically increasing count; exposed as ``<namespace>_<name>_total``."""
        self._add(_Metric(f"{self._namespace}_{name}_total", "counter", help, read))

    def gauge(self, name: str, help: str, read: Reader) -> None:
        self._add(_Metric(f"{self._namespace}_{name}", "gauge", help, read))

    def _add(self, metric: _Metric) -> None:
        if not _NAME.fullmatch(metric.name):
            raise ValueError(f"{metric.name!r} is not a Prometheus metric name")
        if metric.name in self._metrics:
            raise ValueError(f"metric {metric.name} is registered twice")
        self._metrics[metric.name] = metric

    def render(self) -> str:
        """Every metric as ``# HELP``, ``# TYPE`` and one sample line."""
        lines: list[str] = []
        for metric in self._metrics.values():
            value = float(metric.read())
            help_text = metric.help.replace("\\", "\\\\").replace("\n", "\\n")
            lines.append(f"# HELP {metric.name} {help_text}")
            lines.append(f"# TYPE {metric.name} {metric.kind}")
            lines.append(f"{metric.name} {_number(value)}")
        return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return str(int(value)) if value.is_integer() else repr(value)


class ErrorCounter(logging.Handler):
    """Counts the error records logged anywhere in the process."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
