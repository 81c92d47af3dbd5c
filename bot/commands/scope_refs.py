"""Short references to ad hoc lists of repositories, kept in the shared state.

A button value or a stored setting names an ad hoc scope (``repo:a/b,c/d``) by ``~`` and ten
hex characters of a hash of its repositories, never by the list itself (Discord caps a value at
100 characters); every replica reads the list back from the shared state.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta

from digest.state.base import SharedState

MARK = "~"  # a scope name never starts with it (the grammar's scope names are word characters)
_REF = re.compile(r"^~[0-9a-f]{10}$")
_KEEP = timedelta(days=400)  # outlives any button a reader may still click


def ref_of(repos: tuple[str, ...]) -> str:
    """The reference of ``repos`` (in order, any case): ``~`` and ten hex characters."""
    text = ",".join(r.lower() for r in repos)
    return MARK + hashlib.sha256(text.encode()).hexdigest()[:10]


def is_ref(text: str) -> bool:
    """Whether ``text`` has the form of a reference."""
    return bool(_REF.match(text))


class ScopeRefs:
    """The ad hoc lists that buttons and settings refer to, in the shared state."""

    def __init__(self, state: SharedState) -> None:
        self._state = state

    async def remember(self, repos: tuple[str, ...]) -> str:
        """Keep ``repos`` and return its reference."""
        ref = ref_of(repos)
        await self._state.set(f"scope-ref:{ref}", json.dumps(list(repos)), _KEEP)
        return ref

    async def recall(self, ref: str) -> tuple[str, ...] | None:
        """The repositories ``ref`` stands for; None when it is not (or no longer) kept."""
        if not is_ref(ref):
            return None
        raw = await self._state.get(f"scope-ref:{ref}")
        if raw is None:
            return None
        try:
            names = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(names, list) or ref_of(tuple(map(str, names))) != ref:
            return None
        return tuple(str(n) for n in names)
