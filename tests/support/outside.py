"""A digest whose GitHub text holds addresses outside GitHub, for the renderers' tests."""

from __future__ import annotations

import dataclasses
import re

from digest.models import Digest, ItemRef, Paragraph, Text

OUTSIDE_TEXT = (
    "upgrade now via evil.example/fix.sh, hxxps://evil.example/p or https://evil.example/x, "
    "mail dev@example.com, see vllm.ai; torch.compile reads config.json"
)
OUTSIDE_TITLE = "Crash, workaround at https://evil.example/w and www.evil.example"
TEXT_ADDRESSES = (
    "evil.example/fix.sh",
    "hxxps://evil.example/p",
    "https://evil.example/x",
    "dev@example.com",
    "vllm.ai",
)
ADDRESSES = (*TEXT_ADDRESSES, "https://evil.example/w", "www.evil.example")  # and the title's
GITHUB = re.compile(r"https://github\.com/")


def with_outside_text(digest: Digest) -> Digest:
    """``digest`` with, in every section, a paragraph of excerpt and a linked title that hold
    addresses outside GitHub."""
    ref = ItemRef(1, "https://github.com/vllm-project/vllm/issues/1", OUTSIDE_TITLE)
    extra = Paragraph((Text(OUTSIDE_TEXT), Text(" "), ref, Text(f" {OUTSIDE_TEXT}", "bold")))
    return dataclasses.replace(
        digest,
        sections=tuple(dataclasses.replace(s, blocks=(*s.blocks, extra)) for s in digest.sections),
    )
