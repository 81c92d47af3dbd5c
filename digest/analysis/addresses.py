"""Addresses in text: what a platform could link, or a reader visit, outside the digest's links.

One rule for the whole product: the LLM checks reject a model's text that holds an address
which is not a GitHub link of the window's items and people, and every renderer shows an
address found in text from GitHub as inert code, never as a link. An address is

- a URL with any scheme (``https://``, ``hxxps://``, ``s3://``) or a scheme that needs no
  slashes (``mailto:``, ``javascript:``, ``data:``…);
- an e-mail address (``dev@example.com``, ``dev[at]example[.]com``);
- a host with a port or a path (``evil.example/fix.sh``, ``bit.ly/x``, ``10.0.0.1:8000``)
  whose top label is a country code or a common generic top-level domain;
- a host beginning ``www.``, an IPv4 address, or a bare host whose top label is one that
  links are made of and code hardly ever is (``example.com``, ``vllm.ai``).

What Slack, Discord and GitHub link is a subset of this: GitHub and Discord link schemes,
``www.`` and (GitHub) e-mail addresses; Slack, unless told ``verbatim``, any host with a known
top-level domain. Names that only look like hosts stay text: modules and attributes
(``vllm.entrypoints.openai``, ``torch.compile``, ``logger.info``, ``self.net``), files and paths
(``config.json``, ``setup.py``, ``vllm/attention/backends/rocm.py``) and versions
(``v0.15.0``, ``3.12``), because their top label is not one of the domains counted bare, and
a path's file name is not a host. Defanged spellings (``[.]``, ``(.)``, ``[:]``, ``[at]``) are
addresses too: they are written to be visited.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Characters an address may hold: no space, no quote or bracket, no CJK or full-width text
# (Chinese runs straight into an address: "见evil.example/x推进").
_CHARS = "[^\\s<>()\\[\\]{}\"'`\u2e80-\u9fff\uff00-\uffef]"
_TRAILING = ".,;:!?*_~"  # sentence punctuation and emphasis after an address are not part of it
_DOT = r"(?:\.|\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\))"
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = rf"{_LABEL}(?:{_DOT}{_LABEL})+"
_SCHEMES_WITHOUT_SLASHES = "mailto|xmpp|tel|sms|callto|sip|magnet|javascript|vbscript|data"

_PATTERN = re.compile(
    rf"""
    (?P<url>(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{{1,30}}(?::|\[:\])//{_CHARS}+)
  | (?P<scheme>(?<![a-z0-9+.-])(?:{_SCHEMES_WITHOUT_SLASHES}):{_CHARS}+)
  | (?P<email>(?<![a-z0-9._%+-])[a-z0-9._%+-]+(?:@|\[at\]|\(at\))(?P<mailhost>{_HOST}))
  | (?P<host>(?<![a-z0-9@./\\:-])(?P<name>{_HOST})(?![a-z0-9_-])
        (?P<port>:\d{{1,5}})?(?P<path>/{_CHARS}*)?)
    """,
    re.I | re.X,
)
_SPLIT_DOT = re.compile(_DOT, re.I)

# Top labels counted even without a path: where links go, and never an attribute of code.
_BARE = frozenset(
    (
        "com",
        "org",
        "net",
        "edu",
        "gov",
        "mil",
        "biz",
        "io",
        "ai",
        "co",
        "me",
        "dev",
        "xyz",
        "top",
        "site",
        "online",
        "shop",
        "club",
        "icu",
        "buzz",
        "vip",
        "wiki",
        "blog",
        "news",
        "tech",
        "tv",
        "fm",
        "ly",
        "gl",
        "gd",
        "tk",
        "ga",
        "cf",
        "gq",
        "cn",
        "ru",
        "uk",
        "de",
        "fr",
        "jp",
        "kr",
        "eu",
        "us",
        "br",
        "ca",
        "au",
        "nl",
        "ch",
        "se",
        "es",
        "ir",
        "su",
        "tw",
        "hk",
        "sg",
        "vn",
        "ua",
        "kz",
        "example",
        "invalid",
        "localhost",
        "onion",
    )
)
# Top labels counted with a path or a port: besides every two-letter country code, the
# generic domains of links (``.sh`` and ``.py`` are country codes, but a file name is no host).
_WITH_PATH = _BARE | frozenset(
    (
        "app",
        "page",
        "link",
        "live",
        "info",
        "run",
        "name",
        "pro",
        "cloud",
        "store",
        "work",
        "zone",
        "one",
        "win",
        "host",
        "click",
        "space",
        "website",
        "email",
        "support",
        "help",
        "tools",
        "software",
        "systems",
        "network",
        "studio",
        "digital",
        "agency",
        "today",
    )
)
# First labels that make a dotted name code, whatever its top label (``self.net``).
_CODE_OWNERS = frozenset({"self", "cls", "this", "super", "ctx", "args", "kwargs"})


def _labels(host: str) -> list[str]:
    return [label.lower() for label in _SPLIT_DOT.split(host)]


def _ipv4(labels: list[str]) -> bool:
    return len(labels) == 4 and all(label.isdigit() and int(label) <= 255 for label in labels)


def _is_host_address(host: str, *, located: bool) -> bool:
    """Whether the host ``host`` is an address; ``located``: a port or a path follows it."""
    labels = _labels(host)
    if labels[0] == "www" or _ipv4(labels):
        return True
    if labels[0] in _CODE_OWNERS:
        return False
    top = labels[-1]
    if not top.isalpha():
        return False
    if located:
        return len(top) == 2 or top in _WITH_PATH
    return top in _BARE


def _trimmed(text: str, start: int, end: int) -> int:
    """The end of the address ``text[start:end]`` without the punctuation or emphasis marks
    that follow it in a sentence ("see example.com." ends at ``com``)."""
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    return end


@lru_cache(maxsize=4096)
def spans_of(text: str) -> tuple[tuple[int, int], ...]:
    """Where the addresses of ``text`` are, as ``(start, end)`` pairs in order."""
    found: list[tuple[int, int]] = []
    for match in _PATTERN.finditer(text):
        if match["host"] is not None:
            located = bool(match["port"] or (match["path"] and len(match["path"]) > 1))
            if not _is_host_address(match["name"], located=located):
                continue
            if not located:  # "example.com/" is the bare host
                end = match.start() + len(match["name"])
                found.append((match.start(), end))
                continue
        elif match["email"] is not None and not _labels(match["mailhost"])[-1].isalpha():
            continue
        end = _trimmed(text, match.start(), match.end())
        if end > match.start():
            found.append((match.start(), end))
    return tuple(found)


def addresses(text: str) -> list[str]:
    """The addresses in ``text``, in order."""
    return [text[start:end] for start, end in spans_of(text)]


def pieces(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into its runs: ``(run, True)`` for an address, ``(run, False)`` between."""
    out: list[tuple[str, bool]] = []
    last = 0
    for start, end in spans_of(text):
        if start > last:
            out.append((text[last:start], False))
        out.append((text[start:end], True))
        last = end
    if last < len(text):
        out.append((text[last:], False))
    return out
