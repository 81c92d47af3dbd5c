"""Text that no platform can turn into a link: every address in it shown as code.

Text from GitHub (a comment's excerpt, a title, whatever a writer picks) may hold an address
outside GitHub: ``evil.example/fix.sh``, ``hxxps://…``, ``dev@example.com``. Every renderer
(Markdown, HTML, Slack, Discord) passes its text spans through :func:`unlinked` first, so such
an address reads as it was written but as a code span, which none of them links: GitHub and
Discord link no code, Slack none with ``verbatim``, a browser none without ``<a>``. Only
``ItemRef`` and ``UserRef`` spans, made by the writers, become links.
"""

from __future__ import annotations

from collections.abc import Iterable

from digest.analysis.addresses import pieces
from digest.models import Inline, Text


def unlinked(spans: Iterable[Inline]) -> tuple[Inline, ...]:
    """``spans`` with each address inside a plain, bold or italic text span cut out of it as a
    code span; other spans (links, code, pointers) as they are. A comment's original words
    (``original``) stay whole: the site shows them in ``<details>``, which links nothing; chat
    turns them into an italic tail first (:func:`digest.render.chat.trailing`)."""
    out: list[Inline] = []
    for span in spans:
        if not isinstance(span, Text) or span.style in ("code", "original"):
            out.append(span)
            continue
        for run, address in pieces(span.text):
            out.append(Text(run, "code") if address else Text(run, span.style))
    return tuple(out)
