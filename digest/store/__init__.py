"""Storage of the mirror and of shared state."""

from digest.store.base import Store, SyncState

__all__ = ["Store", "SyncState"]
