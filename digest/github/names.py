"""GitHub's names: a login and an ``owner/name`` repository."""

from __future__ import annotations

import re

LOGIN = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
"""A login as a pattern to embed: a letter or digit, then up to 38 letters, digits or hyphens."""

REPO = re.compile(rf"^{LOGIN}/[A-Za-z0-9._-]{{1,100}}$")
"""A whole ``owner/name`` repository name."""


def valid_repo(name: str) -> bool:
    """Whether ``name`` looks like ``owner/name``."""
    return bool(REPO.match(name))
