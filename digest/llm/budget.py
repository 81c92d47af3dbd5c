"""Offline token estimates and the token budget of one digest.

The estimate needs no tokenizer download and errs on the high side for the tokenizers of common
open and hosted models: about 3 ASCII characters a token (English prose averages closer to 4,
JSON and code closer to 3), 1.5 tokens for each CJK character (most modern tokenizers spend 0.7-1.5)
and 2.5 for any other non-ASCII character (accents, emoji, symbols), plus a few tokens of framing
per chat message.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MESSAGE_OVERHEAD = 4  # role and separators of one chat message
REPLY_OVERHEAD = 3  # the primed assistant turn
RETRY_SHARE = 0.15  # share of the digest budget kept for grounding retries


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CJK = re.compile(
    "[\u2e80-\u9fff"  # radicals, punctuation, kana, CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\uff00-\uffef"  # full-width forms
    "\U00020000-\U0003ffff]"  # ideograph extensions
)


def estimate_tokens(text: str) -> int:
    """A conservative estimate of the tokens ``text`` takes, without any tokenizer."""
    non_ascii = len(_NON_ASCII.findall(text))
    cjk = len(_CJK.findall(text))
    return math.ceil((len(text) - non_ascii) / 3 + cjk * 1.5 + (non_ascii - cjk) * 2.5)


def estimate_messages(messages: Iterable[Mapping[str, str]]) -> int:
    """The estimated prompt tokens of a list of chat messages."""
    total = REPLY_OVERHEAD
    for message in messages:
        total += MESSAGE_OVERHEAD + estimate_tokens(message.get("content", ""))
    return total


def plan(
    weights: Mapping[str, float],
    *,
    section_tokens: int,
    digest_tokens: int,
    max_output_tokens: int,
) -> dict[str, int]:
    """The prompt-token limit of each section's first request.

    A request (prompt and answer) never exceeds ``section_tokens``; all first requests together,
    answers included, stay within ``digest_tokens`` less a share kept for retries. The digest
    budget is shared in proportion to ``weights``.
    """
    if not weights:
        return {}
    spendable = int(digest_tokens * (1 - RETRY_SHARE)) - len(weights) * max_output_tokens
    cap = section_tokens - max_output_tokens
    total_weight = sum(weights.values())
    return {
        name: max(0, min(cap, int(spendable * weight / total_weight)))
        for name, weight in weights.items()
    }


@dataclass(slots=True)
class Ledger:
    """The tokens a digest has spent or reserved, against its budget."""

    limit: int
    spent: int = 0
    reserved: int = 0

    def reserve(self, tokens: int) -> bool:
        """Reserve ``tokens`` for a request, if the budget allows it."""
        if self.spent + self.reserved + tokens > self.limit:
            return False
        self.reserved += tokens
        return True

    def settle(self, reserved: int, used: int) -> None:
        """Replace a reservation by what the request actually used."""
        self.reserved -= reserved
        self.spent += used
