"""The allow-list: the repositories chat may follow, as ``owner/name`` or ``owner/*``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from digest.github.names import valid_repo


def valid_pattern(pattern: str) -> bool:
    """Whether ``pattern`` is ``owner/name`` or an owner's every repository, ``owner/*``."""
    if pattern.endswith("/*"):
        return valid_repo(pattern[:-2] + "/x")
    return valid_repo(pattern)


@dataclass(frozen=True, slots=True)
class AllowList:
    """The repositories that may be followed: ``owner/name`` or ``owner/*`` patterns, any case;
    empty, every public repository."""

    patterns: tuple[str, ...] = ()

    @classmethod
    def of(cls, patterns: Iterable[str]) -> AllowList:
        """The list of ``patterns``, each once; a malformed one is a ``ValueError``."""
        found: dict[str, str] = {}
        for raw in patterns:
            pattern = raw.strip()
            if not pattern:
                continue
            if not valid_pattern(pattern):
                raise ValueError(f"{pattern!r} is neither owner/name nor owner/*")
            found.setdefault(pattern.lower(), pattern)
        return cls(tuple(found.values()))

    @property
    def restricted(self) -> bool:
        """Whether only some repositories may be followed."""
        return bool(self.patterns)

    def allows(self, repo: str) -> bool:
        """Whether ``repo`` may be followed."""
        return not self.patterns or self.lists(repo)

    def lists(self, repo: str) -> bool:
        """Whether ``repo`` is on the list itself (which lets a private repository in)."""
        name = repo.lower()
        owner = name.split("/", 1)[0]
        for pattern in self.patterns:
            low = pattern.lower()
            if low == name or (low.endswith("/*") and low[:-2] == owner):
                return True
        return False

    def shown(self) -> str:
        """The patterns, comma-separated, as a refusal names them."""
        return ", ".join(self.patterns)
