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
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from digest.analysis.addresses import spans_of
from digest.analysis.analyze import active_items
from digest.analysis.types import WindowData
from digest.github.names import LOGIN
from digest.models import Inline, Item, ItemKey, ItemRef, Text, UserRef
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
# ``owner/name#N``: an item of a scope of several repositories
_QUALIFIED = re.compile(rf"(?<![{_W}./-])({LOGIN}/[A-Za-z0-9._-]+)[#＃](\d{{1,9}})(?![{_W}])")
_SCOPED_TOKEN = re.compile(
    f"{_URL.pattern}|{_QUALIFIED.pattern}|{_NUMBER.pattern}|{_LOGIN.pattern}", re.I
)
_CODE = re.compile(r"`([^`\n]+)`")
_EMPHASIS = re.compile(r"\*\*|__")


@dataclass(frozen=True, slots=True)
class Grounds:
    """The items and people of a window: all a model's text may cite.

    Items are keyed by repository and number. A model names an item by number (``#N``, a
    numbered field): that is the one item of the grounds with that number. In a scope of
    several repositories (``several``) it may write ``owner/name#N`` as well, and a number
    that two repositories share must be written so.
    """

    items: dict[ItemKey, Item]
    logins: dict[str, str]  # lower-case login -> login as written
    repo_url: str
    several: bool = False
    numbers: dict[int, tuple[Item, ...]] = field(default_factory=dict)  # filled by ``make``

    @classmethod
    def make(
        cls, items: Iterable[Item], logins: dict[str, str], repo_url: str, several: bool = False
    ) -> Grounds:
        """The grounds of ``items`` and ``logins``, indexed by number."""
        keyed = {item.key: item for item in items}
        numbers: dict[int, list[Item]] = {}
        for item in keyed.values():
            numbers.setdefault(item.number, []).append(item)
        return cls(
            items=keyed,
            logins=logins,
            repo_url=repo_url.rstrip("/"),
            several=several,
            numbers={n: tuple(found) for n, found in numbers.items()},
        )

    @classmethod
    def of(cls, data: WindowData, items: Sequence[Item] | None = None) -> Grounds:
        """The grounds of a window's data: its active items (``items`` when the caller has
        them already), their authors and the commenters."""
        items = active_items(data) if items is None else items
        comments = [c for c in data.comments if data.window.contains(c.created_at)]
        logins: dict[str, str] = {}
        for login in [i.author for i in items] + [c.author for c in comments]:
            logins.setdefault(login.lower(), login)
        return cls.make(items, logins, data.repo_url, data.several)

    def item(self, number: int, repo: str = "") -> Item | None:
        """The item ``number`` names (of ``repo`` when given): None when no item of the
        grounds has it, or when several repositories do and ``repo`` does not say which."""
        found = self.numbers.get(number, ())
        if repo:
            found = tuple(i for i in found if i.repo.lower() == repo.lower())
        return found[0] if len(found) == 1 else None

    def key(self, number: int, repo: str = "") -> ItemKey | None:
        """The key of :meth:`item`, if any."""
        found = self.item(number, repo)
        return None if found is None else found.key

    def user(self, login: str) -> UserRef:
        """A link to one of the window's people."""
        return user_ref(self.repo_url, self.login(login) or login)

    def item_key(self, url: str) -> ItemKey | None:
        """The key of the window item that ``url`` points to, if any."""
        host = re.escape(urlsplit(self.repo_url).netloc or "github.com")
        match = re.fullmatch(
            rf"(?:https?://)?(?:www\.)?{host}/({LOGIN}/[A-Za-z0-9._-]+)/(?:issues|pull)/(\d+)"
            r"(?:[/#?][^\s]*)?",
            url.rstrip(".,;:!?"),
            re.I,
        )
        if match is None:
            return None
        found = self.item(int(match.group(2)), match.group(1))
        return None if found is None else found.key

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
                if self.item_key(url) is None and self.person(url) is None:
                    found.setdefault(f"the link {url} is not an item of the data", None)
            for start, end in spans_of(text):
                address = text[start:end]
                inside = any(s < end and start < e for s, e in links)
                if not inside and self.item_key(address) is None and not self.person(address):
                    found.setdefault(
                        f"the address {address} is not a GitHub link of the data", None
                    )
            qualified = [(m.start(), m.end()) for m in _QUALIFIED.finditer(text)]
            if self.several:
                for m in _QUALIFIED.finditer(text):
                    if self.item(int(m.group(2)), m.group(1)) is None:
                        found.setdefault(f"{m.group(0)} is not an item of the data", None)
            glued = [
                m.group(1)
                for m in _GLUED_NUMBER.finditer(text)
                if not (self.several and any(s <= m.start() < e for s, e in qualified))
            ]
            for raw in _NUMBER.findall(text) + glued + _BARE_REF.findall(text):
                if self.item(int(raw)) is None:
                    found.setdefault(self._unknown(int(raw)), None)
            for name in _LOGIN.findall(_CODE.sub(" ", _URL.sub(" ", text))):
                if self.login(name) is None:
                    found.setdefault(f"@{name} is not a person in the data", None)
            for mention in _PLATFORM_MENTION.findall(text):
                found.setdefault(f"{mention} is not allowed", None)
        return list(found)

    def _unknown(self, number: int) -> str:
        if len(self.numbers.get(number, ())) > 1:
            return f"#{number} is in several repositories: write owner/name#{number}"
        return f"#{number} is not an item of the data"

    def cites(self, texts: Iterable[str]) -> set[ItemKey]:
        """The keys of the window's items that ``texts`` link."""
        return {
            key
            for text in texts
            for span in self.spans(text)
            if isinstance(span, ItemRef) and (key := self._key_of(span)) is not None
        }

    def _key_of(self, ref: ItemRef) -> ItemKey | None:
        return self.item_key(ref.url)

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
        for match in (_SCOPED_TOKEN if self.several else _TOKEN).finditer(text):
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
            item = self.item(int(token[1:]))
            return ItemRef(item.number, item.url) if item else None
        scoped = _QUALIFIED.fullmatch(token) if self.several else None
        if scoped is not None:
            item = self.item(int(scoped.group(2)), scoped.group(1))
            return ItemRef(item.number, item.url) if item else None
        if token[0] in "@＠":
            login = self.login(token[1:])
            return self.user(login) if login else None
        key = self.item_key(token)
        if key is not None:
            return ItemRef(key.number, self.items[key].url)
        login = self.person(token)
        return self.user(login) if login else None


def given_key(keys: Iterable[ItemKey], number: int) -> ItemKey | None:
    """The one key of ``keys`` with ``number``, if exactly one has it."""
    found = [key for key in keys if key.number == number]
    return found[0] if len(found) == 1 else None


def mask(text: str, grounds: Grounds) -> str:
    """Item text with references outside the window replaced, so a model cannot repeat them."""
    text = _PLATFORM_MENTION.sub("(mention)", text)
    text = _URL.sub(lambda m: m.group(0) if grounds.item_key(m.group(0)) else "(link)", text)
    for start, end in reversed(spans_of(text)):
        if not grounds.item_key(text[start:end]):
            text = f"{text[:start]}(link){text[end:]}"
    for number in (_NUMBER, _GLUED_NUMBER):
        text = number.sub(lambda m: m.group(0) if grounds.item(int(m.group(1))) else "(ref)", text)
    text = _BARE_REF.sub(lambda m: m.group(0) if grounds.item(int(m.group(1))) else "(ref)", text)
    return _LOGIN.sub(lambda m: m.group(0) if grounds.login(m.group(1)) else "(user)", text)
