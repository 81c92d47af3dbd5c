"""What every front end calls: commands in, digests and answers out."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from bot.commands.grammar import AskCommand, DigestCommand, UsageError
from bot.commands.subjects import one_repo_questions
from config.settings import AppConfig
from digest.builder import DigestRequest
from digest.errors import ConfigError, RepoRefused
from digest.github.allow_list import AllowList, valid_pattern
from digest.github.names import valid_repo
from digest.models import Answer, Digest, Lang, Topic, Window
from digest.scope import Scope, is_owner_entry
from digest.windows import parse_window

if TYPE_CHECKING:
    from bot.commands.following import Following
    from digest.ask import Asker

BuildFn = Callable[[DigestRequest], Awaitable[Digest]]


def config_fingerprint(config: AppConfig) -> str:
    """A short hash of the configuration, so cached digests follow configuration changes."""
    text = json.dumps(
        config.model_dump(mode="json", exclude={"subscriptions", "limits", "scopes"}),
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def user_topics(config: AppConfig, names: Iterable[str]) -> tuple[Topic, ...]:
    """The topics a user named; one that is not configured is a ``UsageError``."""
    try:
        return tuple(config.topic(name) for name in names)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc


def digest_request(
    config: AppConfig,
    window: Window,
    *,
    repo: str,
    lang: Lang,
    writer: str,
    topics: Iterable[str] | None,
    fingerprint: str,
) -> DigestRequest:
    """The request for ``repo`` over ``window``: the named topics, else the repository's own."""
    return DigestRequest(
        repo=repo,
        window=window,
        lang=lang,
        writer=writer,
        topics=user_topics(config, topics) if topics is not None else config.topics_for(repo),
        display_name=config.display_name(repo),
        config_fingerprint=fingerprint,
        organisations=config.organisation_map(),
        glossary=config.glossary_for(repo),
    )


def scope_request(
    config: AppConfig,
    window: Window,
    scope: Scope,
    *,
    lang: Lang,
    writer: str,
    topics: Iterable[str] | None,
    fingerprint: str,
) -> DigestRequest:
    """The request for ``scope`` over ``window``: the named topics, else the scope's own."""
    glossary: dict[str, str] = {}
    for each in scope.repos:
        glossary.update(config.glossary_for(each))
    return DigestRequest(
        repo=scope.repos[0],
        window=window,
        lang=lang,
        writer=writer,
        topics=user_topics(config, topics) if topics is not None else config.scope_topics(scope),
        display_name=config.scope_name(scope),
        config_fingerprint=fingerprint,
        organisations=config.organisation_map(),
        glossary=tuple(glossary.items()),
        scope=scope,
    )


class ReportCore:
    """Turns parsed commands into digest requests and runs them through ``get_digest``.

    Questions go to the answerer ``asker`` gives (the composition root makes it on the first
    question, so that a digest never loads the question package); without one they are a
    ``ConfigError``. A repository off ``allow`` is refused (``RepoRefused``) by every command;
    ``following``, when given, admits the repositories chat names (see :meth:`admit`).
    """

    def __init__(
        self,
        *,
        config: AppConfig,
        get_digest: BuildFn,
        clock: Callable[[], datetime],
        default_writer: str = "template",
        default_lang: Lang | None = None,
        asker: Callable[[], Asker] | None = None,
        site_url: str | None = None,
        allow: AllowList | None = None,
        following: Following | None = None,
    ) -> None:
        self.config = config
        self.allow = allow or AllowList()
        self.following = following
        self._get_digest = get_digest
        self._clock = clock
        self.clock = clock
        self.site_url = site_url
        self.default_writer = default_writer
        self.default_lang = default_lang = default_lang or config.default_lang
        self._fingerprint = config_fingerprint(config)
        self._asker = asker

    def request(
        self,
        window_spec: str,
        *,
        repo: str | None = None,
        lang: Lang | None = None,
        topics: tuple[str, ...] | None = None,
        writer: str | None = None,
        timezone: str | None = None,
        day_start: str | None = None,
        repos: tuple[str, ...] = (),
        scope: str | None = None,
    ) -> DigestRequest:
        """The digest request for a window spec with the configured defaults filled in: of
        ``repo``, of several ``repos`` (one report over them) or of the configured ``scope``."""
        subject = self.scope_of(repos, scope)
        if subject is not None:
            return self._scope_request(
                window_spec, subject, lang, topics, writer, timezone, day_start
            )
        name = (repos[0] if repos else None) or repo or self.config.default_repo
        if not valid_repo(name):
            raise UsageError(f"{name!r} is not a repository (use owner/name)")
        self.check_allowed(name)
        repo_conf = self.config.repo(name)
        window = parse_window(
            window_spec,
            now=self._clock(),
            timezone=timezone or repo_conf.timezone,
            day_start=day_start or repo_conf.day_start,
        )
        return digest_request(
            self.config,
            window,
            repo=name,
            lang=lang or self.default_lang,
            writer=writer or self.default_writer,
            topics=topics,
            fingerprint=self._fingerprint,
        )

    def scope_of(self, repos: tuple[str, ...], name: str | None) -> Scope | None:
        """The scope ``name`` (configured) or ``repos`` (several, or an ``owner/*``) stand
        for; None for one repository. An unknown name, a bad or refused repository is a
        ``UsageError``."""
        if name is not None and repos:
            raise UsageError("name a scope or repositories, not both")
        if name is not None:
            try:
                return self.config.scope(name)
            except ConfigError as exc:
                raise UsageError(str(exc)) from exc
        if len(repos) < 2 and not any(is_owner_entry(r) for r in repos):
            return None
        for each in repos:
            if not (valid_repo(each) or (is_owner_entry(each) and valid_pattern(each))):
                raise UsageError(f"{each!r} is not a repository (use owner/name or owner/*)")
        try:
            return Scope(tuple(repos))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc

    def _scope_request(
        self,
        window_spec: str,
        scope: Scope,
        lang: Lang | None,
        topics: tuple[str, ...] | None,
        writer: str | None,
        timezone: str | None,
        day_start: str | None,
    ) -> DigestRequest:
        for each in scope.repos:
            self.check_allowed(each)
        first = self.config.repo(scope.repos[0])
        window = parse_window(
            window_spec,
            now=self._clock(),
            timezone=timezone or scope.timezone or first.timezone,
            day_start=day_start or scope.day_start or first.day_start,
        )
        return scope_request(
            self.config,
            window,
            scope,
            lang=lang or self.default_lang,
            writer=writer or self.default_writer,
            topics=topics,
            fingerprint=self._fingerprint,
        )

    def check_allowed(self, repo: str) -> None:
        """Refuse ``repo`` (``RepoRefused``, no request) when it is off the allow-list."""
        if not self.allow.allows(repo):
            raise RepoRefused(repo, "not_allowed", allowed=self.allow.shown())

    async def admit(self, repo: str) -> None:
        """Refuse a repository chat names when it is off the allow-list, missing on GitHub, or
        private and not listed (one request, kept)."""
        self.check_allowed(repo)
        if self.following is not None:
            await self.following.admit(repo)

    def request_for(self, command: DigestCommand) -> DigestRequest:
        """The digest request a ``DigestCommand`` stands for."""
        opts = command.options
        return self.request(
            command.window,
            repo=opts.repo,
            lang=opts.lang,
            topics=command.topics,
            writer=command.writer,
            repos=opts.repos,
            scope=opts.scope,
        )

    async def digest(self, command: DigestCommand) -> Digest:
        """The digest a ``DigestCommand`` asks for."""
        return await self._get_digest(self.request_for(command))

    async def build(self, request: DigestRequest) -> Digest:
        return await self._get_digest(request)

    async def ask(self, command: AskCommand) -> Answer:
        """The linked answer to a question; any question text gets an answer, never an error."""
        opts = command.options
        if opts.repos or opts.scope:
            raise UsageError(one_repo_questions(opts))
        if self._asker is None:
            raise ConfigError("questions need the mirror, and no store is configured")
        if opts.repo is not None and not valid_repo(opts.repo):
            raise UsageError(f"{opts.repo!r} is not a repository (use owner/name)")
        if opts.repo is not None:
            self.check_allowed(opts.repo)
        return await self._asker().ask(command.question, repo=opts.repo, lang=opts.lang)
