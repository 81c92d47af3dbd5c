"""The garbage collector's pace in a process that builds large digests."""

from __future__ import annotations

import gc

# A 30-day digest makes millions of objects, nearly all freed at once by reference counting;
# at the interpreter's default thresholds (700, 10, 10) the collector still scans the whole
# heap about twice a build, a fifth of its CPU. At these it scans it about once in ten builds,
# and the few cycles a process makes (tasks, tracebacks) are still collected.
THRESHOLDS = (50_000, 20, 20)


def pace_collector() -> None:
    """Collect less often, and keep what exists by now (modules, classes, settings) out of
    every later collection."""
    gc.set_threshold(*THRESHOLDS)
    gc.freeze()
