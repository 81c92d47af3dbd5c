"""Grounding: what a model may cite, the check of its text, and its text as linked spans.

A model's text may name an item only as ``#N`` (or by its GitHub URL) and a person only as
``@login``, and only items and people of the window's data. Anything else makes the text
ungrounded: the writer asks once more, then falls back to the template. Other spellings of a
reference (``owner/repo#N``, ``PR#N``, full-width ``＃N``, ``issue N``, ``pull/N``, links without a
scheme) are checked too, so nothing outside the window can be named. Nor can anything outside
GitHub: every address (``digest.analysis.addresses``: a bare domain, ``hxxps://``, an e-mail
address), code spans included, must be the GitHub link of one of the window's items or people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from digest.analysis.addresses import spans_of
from digest.analysis.analyze import active_items
from digest.analysis.types import WindowData
from digest.github.names import LOGIN
from digest.models import Inline, Item, ItemRef, Text, UserRef
from digest.spans import tidy, user_ref

# ASCII word characters: Chinese text runs straight into references ("由@carol推进"), so a
# reference ends at the first character that cannot belong to it, not at a word boundary.
_W = "A-Za-z0-9_"
_URL_CHARS = "[^\\s<>()\\[\\]{}\"'`\u2e80-\u9fff\uff00-\uffef]"
_URL = re.compile(
    rf"(?:(?<![{_W}])https?://|(?<![{_W}.-])www\.|(?<![{_W}./-])github\.com/)"
    rf"{_URL_CHARS}*(?<![.,;:!?])",
    re.I,
)
_NUMBER = re.compile(rf"(?<![{_W}&/#＃])[#＃](\d{{1,9}})(?![{_W}])")
_GLUED_NUMBER = re.compile(rf"(?<=[{_W}/.-])[#＃](\d{{1,9}})(?![{_W}])")  # owner/repo#N, PR#N
_LOGIN = re.compile(rf"(?<![{_W}@＠./`-])[@＠]({LOGIN}(?:\[bot\])?)(?!\.[{_W}]|[{_W}-])")
# "issue 123" names an item; "Issue 42 个" (a count, with a Chinese measure word) does not.
_BARE_REF = re.compile(
    rf"(?<![A-Za-z])(?:(?:issue|PR|pull request)\s*|(?:issues|pull)/)(\d{{2,9}})"
    rf"(?![{_W}]|\s*[个条项件次])",
    re.I,
)
_PLATFORM_MENTION = re.compile(r"<[!@#][^>]*>")
_TOKEN = re.compile(f"{_URL.pattern}|{_NUMBER.pattern}|{_LOGIN.pattern}", re.I)
_CODE = re.compile(r"`([^`\n]+)`")
_EMPHASIS = re.compile(r"\*\*|__")


@dataclass(frozen=True, slots=True)
class Grounds:
    """The items and people of a window: all a model's text may cite."""

    items: dict[int, Item]
    logins: dict[str, str]  # lower-case login -> login as written
    repo_url: str

    @classmethod
    def of(cls, data: WindowData, items: Sequence[Item] | None = None) -> Grounds:
        """The grounds of a window's data: its active items (``items`` when the caller has
        them already), their authors and the commenters."""
        items = active_items(data) if items is None else items
        comments = [c for c in data.comments if data.window.contains(c.created_at)]
        logins: dict[str, str] = {}
        for login in [i.author for i in items] + [c.author for c in comments]:
            logins.setdefault(login.lower(), login)
        return cls(
            items={item.number: item for item in items},
            logins=logins,
            repo_url=data.repo_url.rstrip("/"),
        )

    def user(self, login: str) -> UserRef:
        """A link to one of the window's people."""
        return user_ref(self.repo_url, self.login(login) or login)

    def item_number(self, url: str) -> int | None:
        """The number of the window item that ``url`` points to, if any."""
        site = re.escape(re.sub(r"^https?://(?:www\.)?", "", self.repo_url, flags=re.I))
        match = re.fullmatch(
            rf"(?:https?://)?(?:www\.)?{site}/(?:issues|pull)/(\d+)(?:[/#?][^\s]*)?",
            url.rstrip(".,;:!?"),
            re.I,
        )
        if match and int(match.group(1)) in self.items:
            return int(match.group(1))
        return None

    def person(self, url: str) -> str | None:
        """The login of the window person whose GitHub profile ``url`` is, if any."""
        host = re.escape(urlsplit(self.repo_url).netloc or "github.com")
        match = re.fullmatch(
            rf"(?:https?://)?(?:www\.)?{host}/({LOGIN})/?", url.rstrip(".,;:!?"), re.I
        )
        return self.login(match.group(1)) if match else None

    def login(self, name: str) -> str | None:
        """The login as written in the data, if ``name`` is one of the window's people."""
        return self.logins.get(name.lower())

    def problems(self, texts: Iterable[str]) -> list[str]:
        """What in ``texts`` is not grounded in the window's data, each problem once."""
        found: dict[str, None] = {}
        for text in texts:
            links = [(m.start(), m.end()) for m in _URL.finditer(text)]
            for start, end in links:
                url = text[start:end]
                if self.item_number(url) is None and self.person(url) is None:
                    found.setdefault(f"the link {url} is not an item of the data", None)
            for start, end in spans_of(text):
                address = text[start:end]
                inside = any(s < end and start < e for s, e in links)
                if not inside and self.item_number(address) is None and not self.person(address):
                    found.setdefault(
                        f"the address {address} is not a GitHub link of the data", None
                    )
            numbers = _NUMBER.findall(text) + _GLUED_NUMBER.findall(text)
            for raw in numbers + _BARE_REF.findall(text):
                if int(raw) not in self.items:
                    found.setdefault(f"#{raw} is not an item of the data", None)
            for name in _LOGIN.findall(_CODE.sub(" ", _URL.sub(" ", text))):
                if self.login(name) is None:
                    found.setdefault(f"@{name} is not a person in the data", None)
            for mention in _PLATFORM_MENTION.findall(text):
                found.setdefault(f"{mention} is not allowed", None)
        return list(found)

    def cites(self, texts: Iterable[str]) -> set[int]:
        """The numbers of the window's items that ``texts`` link."""
        return {
            span.number for text in texts for span in self.spans(text) if isinstance(span, ItemRef)
        }

    def named(self, texts: Iterable[str]) -> set[str]:
        """The logins of the window's people that ``texts`` name, as written in the data."""
        return {
            span.login for text in texts for span in self.spans(text) if isinstance(span, UserRef)
        }

    def spans(self, text: str) -> tuple[Inline, ...]:
        """``text`` as spans: references become links, code stays code, the rest is text."""
        out: list[Inline] = []
        last = 0
        for match in _CODE.finditer(text):
            out.extend(self._refs(text[last : match.start()]))
            out.append(Text(match.group(1), "code"))
            last = match.end()
        out.extend(self._refs(text[last:]))
        return tidy(out)

    def _refs(self, text: str) -> list[Inline]:
        text = _EMPHASIS.sub("", text)
        out: list[Inline] = []
        last = 0
        for match in _TOKEN.finditer(text):
            ref = self._ref(match.group(0))
            if ref is None:
                continue
            out.append(Text(text[last : match.start()]))
            out.append(ref)
            last = match.end()
        out.append(Text(text[last:]))
        return out

    def _ref(self, token: str) -> Inline | None:
        if token[0] in "#＃":
            item = self.items.get(int(token[1:]))
            return ItemRef(item.number, item.url) if item else None
        if token[0] in "@＠":
            login = self.login(token[1:])
            return self.user(login) if login else None
        number = self.item_number(token)
        if number is not None:
            return ItemRef(number, self.items[number].url)
        login = self.person(token)
        return self.user(login) if login else None


def mask(text: str, grounds: Grounds) -> str:
    """Item text with references outside the window replaced, so a model cannot repeat them."""
    text = _PLATFORM_MENTION.sub("(mention)", text)
    text = _URL.sub(lambda m: m.group(0) if grounds.item_number(m.group(0)) else "(link)", text)
    for start, end in reversed(spans_of(text)):
        if not grounds.item_number(text[start:end]):
            text = f"{text[:start]}(link){text[end:]}"
    for number in (_NUMBER, _GLUED_NUMBER):
        text = number.sub(
            lambda m: m.group(0) if int(m.group(1)) in grounds.items else "(ref)", text
        )
    text = _BARE_REF.sub(
        lambda m: m.group(0) if int(m.group(1)) in grounds.items else "(ref)", text
    )
    return _LOGIN.sub(lambda m: m.group(0) if grounds.login(m.group(1)) else "(user)", text)
