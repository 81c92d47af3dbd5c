"""What every template section needs: the analysis, the language and the window's names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from digest.analysis.excerpts import excerpt_sentences, whole
from digest.analysis.facts import identifiers, measured
from digest.analysis.followups import fixers
from digest.analysis.people import Role, affiliation_of, is_maintainer, role_of
from digest.analysis.text import (
    clean_excerpt,
    sentences,
    shorten,
    strip_tags,
    text_lines,
    word_count,
)
from digest.analysis.types import Analysis
from digest.i18n import count_of, fill, phrase
from digest.i18n.glossary import Entry, entries, found
from digest.models import Comment, Inline, Item, ItemKey, ItemRef, ItemState, Lang, Text, UserRef
from digest.spans import Spans, item_ref, join, say, user_ref

_COURTESY = re.compile(r"^\W*(?:thanks|thank you|lgtm|\+1|cc\b|ping|bump)", re.I)
_NOT_ALNUM = re.compile(r"[\W_]+")


def _plain(text: str) -> str:
    return _NOT_ALNUM.sub("", text).lower()


@dataclass(frozen=True, slots=True)
class Context:
    """An analysis seen in one language, with the names a section may mention."""

    analysis: Analysis
    lang: Lang
    numbers: frozenset[int]
    logins: frozenset[str]
    known: Mapping[ItemKey, Item]  # the window's items by key
    fixed_by: Mapping[ItemKey, list[Item]]  # issue -> the window's PRs that fix it
    threads: Mapping[ItemKey, tuple[Comment, ...]]  # item -> its comments of the window
    glossary: tuple[Entry, ...] = ()

    def areas(self, text: str, limit: int = 3) -> list[str]:
        """The glossary terms ``text`` names, in the report's language (推测解码 / speculative
        decoding), at most ``limit``."""
        kept: list[Entry] = []
        for hit in found(text, self.glossary):
            if not any(hit.zh in k.zh or k.zh in hit.zh for k in kept):
                kept.append(hit)
        return [hit.zh if self.lang == Lang.ZH else hit.en for hit in kept[:limit]]

    def term_name(self, term: str) -> str:
        """A trend's term as the report names it: its glossary name in zh, else as written."""
        if self.lang != Lang.ZH:
            return term
        hits = found(term, self.glossary)
        return hits[0].zh if hits else term

    def facts(self, text: str) -> list[Inline]:
        """What ``text`` names and measures, as spans: glossary areas (plain), identifiers
        (code) and numbers (plain), joined like words; empty when it names nothing."""
        groups: list[tuple[Inline, ...]] = [(Text(area),) for area in self.areas(text)]
        groups += [(Text(name, "code"),) for name in identifiers(text, 2)]
        groups += [(Text(number),) for number in measured(text, 2)]
        return list(join(groups, self.lang)) if groups else []

    @property
    def repo_url(self) -> str:
        return self.analysis.data.repo_url

    def user(self, login: str) -> UserRef:
        return user_ref(self.repo_url, login)

    def role(self, login: str, item: Item) -> Role:
        """The role ``login`` plays on ``item`` (an author who is a maintainer is one)."""
        if login == item.author and is_maintainer(item.author_association):
            return Role.MAINTAINER
        return role_of(login, item, self.threads.get(item.key, ()))

    def person(self, login: str, item: Item) -> UserRef:
        """A link to ``login`` carrying their role on ``item`` and their organisation."""
        ref = self.user(login)
        org = affiliation_of(login, self.analysis.organisations, self.analysis.companies)
        return UserRef(ref.login, ref.url, self.role(login, item).value, org)

    def tag(self, ref: UserRef) -> str:
        """``维护者，AMD`` / ``maintainer, AMD``: what the report says of a person."""
        role = phrase(f"role.{ref.role or Role.COMMUNITY.value}", self.lang)
        if not ref.affiliation:
            return role
        return fill(phrase("people.tag", self.lang), {"role": role, "org": ref.affiliation})

    def named(self, login: str, item: Item) -> Spans:
        """``@login（维护者，AMD）`` / ``@login (maintainer, AMD)``."""
        ref = self.person(login, item)
        return say("people.after", self.lang, user=ref, tag=self.tag(ref))

    def author(self, item: Item) -> Spans:
        """``问题报告者 @login，AMD`` / ``reporter @login, AMD``: an item's author, in a list."""
        ref = self.person(item.author, item)
        role = phrase(f"role.{ref.role}", self.lang)
        if ref.affiliation:
            return say("people.before_org", self.lang, role=role, user=ref, org=ref.affiliation)
        return say("people.before", self.lang, role=role, user=ref)

    def item(self, item: Item, limit: int = 0) -> ItemRef:
        return item_ref(item, limit=limit)

    def count(self, n: int, noun: str) -> str:
        return count_of(n, noun, self.lang)

    def what(self, item: Item, limit: int = 180) -> str:
        """Whole sentences of the description's purpose or change part that do not repeat
        the title, within ``limit`` characters; ""."""
        title = _plain(strip_tags(item.title))
        found = excerpt_sentences(item.body_excerpt, item.is_pr, self.numbers, self.logins)
        return whole([s for s in found if _plain(s) not in title], limit)

    def fix_note(self, item: Item) -> Spans:
        """`` (fixed by #M, merged)`` / `` (fix proposed in #M, open)`` for an issue, `` (fixes
        #N)`` for a PR; only items of the window are named; empty when there is no link."""
        known = self.known
        if item.is_pr:
            fixed = [ItemKey(item.repo, n) for n in item.fixes]
            targets = [(self.item(known[k]),) for k in fixed if k in known]
            if not targets:
                return ()
            return say("fixes.pr", self.lang, items=join(targets, self.lang))
        prs = self.fixed_by.get(item.key, [])
        if not prs:
            return ()
        pr = prs[0]
        key = "fixes.by_merged" if pr.merged_at is not None else "fixes.by_open"
        if pr.merged_at is None and pr.state is not ItemState.OPEN:
            return ()
        return say(key, self.lang, by=self.item(pr))

    def sibling_note(self, item: Item, among: frozenset[ItemKey] | None = None) -> Spans:
        """``（与 #M 属同一改动的不同版本）``: the item's siblings, when it has any (only those
        in ``among`` when given, so that a section cites only its own items)."""
        keys = [
            k
            for k in self.analysis.siblings.get(item.key, ())
            if k in self.known and (among is None or k in among)
        ]
        if not keys:
            return ()
        refs = [(item_ref(self.known[k], title=False),) for k in keys]
        return say("siblings.note", self.lang, items=join(refs, self.lang))

    def gist(self, item: Item, limit: int = 180) -> str:
        """What the item is about: its first sentence, else its title without tags."""
        return self.what(item, limit) or strip_tags(item.title)

    def comment_sentences(self, comment: Comment) -> list[str]:
        """The sentences of a comment outside quoted logs, cleaned of unknown names."""
        lines = [line for line in text_lines(comment.body_excerpt) if not line.startswith(">")]
        text = clean_excerpt(" ".join(lines), self.numbers, self.logins)
        return [s for s in sentences(text) if word_count(s) >= 3]

    def quote(self, comment: Comment, limit: int = 180, skip: frozenset[str] = frozenset()) -> str:
        """A short quote of ``comment``: its first substantive sentence (two when short).

        Sentences in ``skip`` (already quoted elsewhere) are passed over.
        """
        found = [
            s for s in self.comment_sentences(comment) if not _COURTESY.match(s) and s not in skip
        ]
        if not found:
            return ""
        text = found[0]
        if len(text) < 60 and len(found) > 1:
            text = f"{text} {found[1]}"
        return shorten(text, limit)


def context(analysis: Analysis, lang: Lang) -> Context:
    """The context of ``analysis`` in ``lang``: the items and people the window knows."""
    items = analysis.items
    window = analysis.data.window
    logins = {item.author for item in items}
    said = [c for c in analysis.data.comments if window.contains(c.created_at)]
    logins.update(c.author for c in said)
    threads: dict[ItemKey, list[Comment]] = {}
    for comment in said:
        threads.setdefault(comment.item_key, []).append(comment)
    return Context(
        analysis=analysis,
        lang=lang,
        numbers=frozenset(item.number for item in items),
        logins=frozenset(logins),
        known={item.key: item for item in items},
        fixed_by=fixers(items),
        threads={key: tuple(thread) for key, thread in threads.items()},
        glossary=entries(analysis.glossary),
    )
