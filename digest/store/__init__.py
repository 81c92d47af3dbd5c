"""Storage of the mirror and of shared state."""

from digest.mirror.store import Store, SyncState

__all__ = ["Store", "SyncState"]
