"""A trend term matched on its own: the slow reference the one-pass scan must agree with."""

from __future__ import annotations

from digest.analysis.trends import Term


def found_in(term: Term, text: str) -> bool:
    """Whether ``text`` holds one of ``term``'s needles (if it has any) and matches its pattern."""
    lowered = text.lower()
    if term.needles and not any(n in lowered for n in term.needles):
        return False
    return term.pattern.search(text) is not None
