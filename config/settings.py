"""Typed settings: secrets and endpoints from the environment, the rest from YAML."""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from digest.errors import BadWindow, ConfigError
from digest.github.allow_list import valid_pattern
from digest.github.names import valid_repo
from digest.github.reserve import DEFAULT_SHARE
from digest.models import Lang, Organisation, Topic
from digest.scope import DEFAULT_OWNER_CAP, Filters, Scope, is_owner_entry
from digest.state.limiter import Rate
from digest.windows import parse_day_start, zone

log = logging.getLogger(__name__)


def _env(prefix: str) -> SettingsConfigDict:
    # An empty value (``SLACK_APP_TOKEN=`` in an env file) is unset, not an empty token.
    return SettingsConfigDict(
        env_prefix=prefix, extra="ignore", populate_by_name=True, env_ignore_empty=True
    )


Port = Annotated[int, Field(ge=0, le=65535)]  # 0: any free port
Positive = Annotated[float, Field(gt=0)]


class GitHubSettings(BaseSettings):
    model_config = _env("GITHUB_")
    token: SecretStr | None = None
    api_url: str = "https://api.github.com"
    web_url: str = "https://github.com"
    timeout: Positive = 20.0
    max_retries: int = Field(default=3, ge=0, le=20)
    backfill_days: int = Field(default=14, ge=1, le=366)
    # the share of the hourly limit that commands, questions and clicks leave to the daily posts
    reserve_share: float = Field(default=DEFAULT_SHARE, ge=0, lt=1)


class SlackSettings(BaseSettings):
    model_config = _env("SLACK_")
    bot_token: SecretStr | None = None
    app_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    api_url: str = "https://slack.com/api/"
    mode: Literal["socket", "http"] = "socket"
    port: Port = 3000
    host: str = "127.0.0.1"  # HTTP mode: where Slack's requests arrive (0.0.0.0 in a container)
    max_body_bytes: int = Field(default=256 * 1024, ge=1024, le=16 * 1024 * 1024)


class DiscordSettings(BaseSettings):
    model_config = _env("DISCORD_")
    token: SecretStr | None = None
    api_url: str = "https://discord.com/api/v10"
    gateway_url: str | None = None


class LLMSettings(BaseSettings):
    model_config = _env("LLM_")
    base_url: str | None = None
    model: str | None = None
    api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY")
    )
    timeout: Positive = 60.0
    max_retries: int = Field(default=1, ge=0, le=20)
    concurrency: int = Field(default=8, ge=1, le=256)
    section_tokens: int = Field(default=6000, ge=1)
    digest_tokens: int = Field(default=28000, ge=1)
    max_output_tokens: int = Field(default=1200, ge=1)
    max_calls: int = Field(default=16, ge=1, le=1024)  # model requests at once, per process


def _rate(value: str) -> str:
    Rate.parse(value)  # raises ValueError, which names the variable
    return value


class LimitSettings(BaseSettings):
    """Rate limits of chat work, each ``COUNT/PERIOD`` (``10/10m``, ``30/h``) or ``off``: per
    member (``_per_user``) and per channel, for digests, questions and button clicks."""

    model_config = _env("VLLM_REPORT_LIMIT_")
    digests_per_user: str = "10/10m"
    digests_per_channel: str = "30/10m"
    questions_per_user: str = "20/10m"
    questions_per_channel: str = "60/10m"
    buttons_per_user: str = "30/10m"
    buttons_per_channel: str = "60/10m"

    check_rates = field_validator(
        "digests_per_user",
        "digests_per_channel",
        "questions_per_user",
        "questions_per_channel",
        "buttons_per_user",
        "buttons_per_channel",
    )(_rate)

    def rules(self, file: LimitsConfig | None = None) -> dict[tuple[str, str], Rate]:
        """The limiter's rules: (kind, scope) to rate, the ``off`` ones left out. A rate the
        environment does not set comes from the configuration file's ``limits:`` when it has
        one, else its default."""
        found: dict[tuple[str, str], Rate] = {}
        kinds = (("digest", "digests"), ("question", "questions"), ("button", "buttons"))
        for kind, field in kinds:
            for scope in ("user", "channel"):
                name = f"{field}_per_{scope}"
                text = getattr(self, name)
                if name not in self.model_fields_set and file is not None:
                    text = getattr(file, name) or text
                rate = Rate.parse(text)
                if rate is not None:
                    found[(kind, scope)] = rate
        return found


_LIMIT_FIELDS = (
    "digests_per_user",
    "digests_per_channel",
    "questions_per_user",
    "questions_per_channel",
    "buttons_per_user",
    "buttons_per_channel",
)


class LimitsConfig(BaseModel):
    """The configuration file's ``limits:``, each as ``VLLM_REPORT_LIMIT_*`` (which wins)."""

    model_config = ConfigDict(extra="forbid")
    digests_per_user: str | None = None
    digests_per_channel: str | None = None
    questions_per_user: str | None = None
    questions_per_channel: str | None = None
    buttons_per_user: str | None = None
    buttons_per_channel: str | None = None

    @field_validator(*_LIMIT_FIELDS)
    @classmethod
    def _rate(cls, value: str | None) -> str | None:
        return None if value is None else _rate(value)


class RedisSettings(BaseSettings):
    model_config = _env("REDIS_")
    url: SecretStr | None = None  # may hold the password: never logged
    # the digest cache on a Redis of its own that may evict (allkeys-lru); else on ``url``
    cache_url: SecretStr | None = None
    password: SecretStr | None = None  # for both, when their URLs carry none


class Settings(BaseSettings):
    """Everything read from the environment, once, by the composition root."""

    model_config = _env("VLLM_REPORT_")
    github: GitHubSettings = Field(default_factory=GitHubSettings)
    slack: SlackSettings = Field(default_factory=SlackSettings)
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    db: str = str(Path.home() / ".cache" / "vllm-report" / "mirror.sqlite3")
    config: str | None = None
    log_json: bool = False
    http_port: Port = 8080
    http_host: str = "127.0.0.1"  # /healthz and /metrics (0.0.0.0 in a container)
    http_head_timeout_seconds: Positive = 10.0  # a request's line and headers
    http_body_timeout_seconds: Positive = 10.0  # a request's body, once its headers are in
    http_max_connections: int = Field(default=64, ge=1, le=65535)  # per HTTP server
    health_grace_seconds: float = Field(default=60.0, ge=0)
    schedule_grace_hours: float = Field(default=6.0, ge=0)
    sync_interval_minutes: Positive = 10.0
    sync_fresh_seconds: float = Field(default=60.0, ge=0)
    # digests a process keeps in memory, compressed, least recently used evicted (0: none)
    digest_cache_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    max_builds: int = Field(default=4, ge=1, le=256)  # digests built at once, per process
    site_url: str | None = None  # the report website's public URL (feeds, links from chat)
    site_dir: str | None = None  # where `site build` and `serve` write the report website
    # What may be followed: the allow-list (owner/name or owner/*, comma-separated; overrides
    # the configuration file's ``allowed_repos``), caps on subscriptions, lapses and pruning.
    allowed_repos: str | None = None
    max_subscriptions_per_channel: int = Field(default=10, ge=1)
    max_subscriptions_per_workspace: int = Field(default=50, ge=1)
    max_subscriptions: int = Field(default=1000, ge=1)
    lapse_after_syncs: int = Field(default=3, ge=1)  # NotFound syncs in a row before it lapses
    prune_after_days: int = Field(default=30, ge=0)  # unfollowed, unasked mirrors (0: never)


class TopicConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title_en: str
    title_zh: str
    labels: list[str] = []
    tags: list[str] = []
    keywords: list[str] = []
    authors: list[str] = []
    synonyms: list[str] = []
    ignore: list[str] = []
    organisation: str = ""  # the organisation behind the topic, a key of ``organisations``

    def to_topic(self, name: str) -> Topic:
        return Topic(
            name=name,
            title_en=self.title_en,
            title_zh=self.title_zh,
            labels=tuple(self.labels),
            tags=tuple(self.tags),
            keywords=tuple(self.keywords),
            authors=tuple(self.authors),
            synonyms=tuple(self.synonyms),
            ignore=tuple(self.ignore),
            organisation=self.organisation,
        )


class OrganisationConfig(BaseModel):
    """Who works for an organisation, as logins and profiles' ``company`` tell (no e-mail
    addresses)."""

    model_config = ConfigDict(extra="forbid")
    suffixes: list[str] = []  # e.g. "-amd"
    prefixes: list[str] = []  # e.g. "amd-"
    logins: list[str] = []
    companies: list[str] = []  # more names a profile's company field gives it

    def to_organisation(self, name: str) -> Organisation:
        return Organisation(
            name=name,
            suffixes=tuple(self.suffixes),
            prefixes=tuple(self.prefixes),
            logins=tuple(self.logins),
            companies=tuple(self.companies),
        )


def _checked(check: Callable[[str], object]) -> Callable[[str | None], str | None]:
    """A field validator that runs ``check`` and turns its ``BadWindow`` into a ``ValueError``."""

    def validate(value: str | None) -> str | None:
        try:
            if value is not None:
                check(value)
        except BadWindow as exc:
            raise ValueError(str(exc)) from exc
        return value

    return validate


_zone_name = _checked(zone)  # an IANA timezone name
_time_of_day = _checked(parse_day_start)  # an HH:MM time of day


class RepoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    display_name: str | None = None
    timezone: str = "UTC"
    day_start: str = "00:00"
    topics: list[str] | None = None
    glossary: dict[str, str] = {}  # this repository's own glossary entries (term -> Chinese)

    check_timezone = field_validator("timezone")(_zone_name)
    check_day_start = field_validator("day_start")(_time_of_day)


class ExcludeConfig(BaseModel):
    """What a scope leaves out: labels, authors (globs such as ``*[bot]``), every bot's item
    and comment, titles (regular expressions such as ``^Bump ``)."""

    model_config = ConfigDict(extra="forbid")
    labels: list[str] = []
    authors: list[str] = []
    bots: bool = False
    titles: list[str] = []


class IncludeConfig(BaseModel):
    """What a scope keeps only: items carrying one of ``labels``."""

    model_config = ConfigDict(extra="forbid")
    labels: list[str] = []


class ScopeConfig(BaseModel):
    """One entry of ``scopes``: a report over several repositories, with its filters."""

    model_config = ConfigDict(extra="forbid")
    repos: list[str] = Field(min_length=1)
    display_name: str | None = None
    timezone: str | None = None  # default: the first repository's
    day_start: str | None = None
    topics: list[str] | None = None  # default: every topic of its repositories
    include: IncludeConfig = Field(default_factory=IncludeConfig)
    exclude: ExcludeConfig = Field(default_factory=ExcludeConfig)
    # the repositories an ``owner/*`` entry brings in at most, the most recently pushed first
    owner_cap: int = Field(default=DEFAULT_OWNER_CAP, ge=1, le=100)

    check_timezone = field_validator("timezone")(_zone_name)
    check_day_start = field_validator("day_start")(_time_of_day)

    @field_validator("repos")
    @classmethod
    def _repo_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not (valid_repo(name) or (is_owner_entry(name) and valid_pattern(name))):
                raise ValueError(f"{name!r} is neither owner/name nor owner/*")
        lowered = [name.lower() for name in value]
        if len(set(lowered)) != len(lowered):
            raise ValueError("a repository is listed twice")
        return value

    def filters(self) -> Filters:
        ex = self.exclude
        try:
            return Filters(
                include_labels=tuple(self.include.labels),
                exclude_labels=tuple(ex.labels),
                exclude_authors=tuple(ex.authors),
                exclude_bots=ex.bots,
                exclude_titles=tuple(ex.titles),
            )
        except ValueError as exc:  # checked at load (``AppConfig``), so never raised later
            raise ConfigError(str(exc)) from exc


class SubscriptionConfig(BaseModel):
    """One entry of the configuration file's ``subscriptions``, seeded once into the store."""

    model_config = ConfigDict(extra="forbid")
    platform: Literal["slack", "discord"]
    channel: str
    repo: str | None = None
    time: str | None = None
    timezone: str | None = None
    lang: Lang = Lang.EN
    topics: list[str] | None = None
    writer: Literal["template", "llm", "auto"] = "auto"
    schedule: Literal["daily", "weekdays", "weekly"] = "daily"
    day: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] = "mon"  # of a weekly post

    check_timezone = field_validator("timezone")(_zone_name)
    check_time = field_validator("time")(_time_of_day)


class AppConfig(BaseModel):
    """The YAML configuration: repositories, topics and seeded subscriptions."""

    model_config = ConfigDict(extra="forbid")
    default_repo: str = "vllm-project/vllm"
    default_lang: Lang = Lang.EN  # when no option, channel, workspace or locale says
    default_topics: list[str] = ["rocm"]
    repos: dict[str, RepoConfig] = {}
    # the repositories chat may follow (owner/name or owner/*); empty: every public one
    allowed_repos: list[str] = []
    topics: dict[str, TopicConfig] = {}
    organisations: dict[str, OrganisationConfig] = {}
    # extra glossary entries (an English term -> its Chinese name), over digest's own
    glossary: dict[str, str] = {}
    subscriptions: list[SubscriptionConfig] = []
    # named reports over several repositories (``--scope NAME``, ``scope:NAME``)
    scopes: dict[str, ScopeConfig] = {}
    limits: LimitsConfig = Field(default_factory=LimitsConfig)  # rate limits of chat work

    @field_validator("allowed_repos")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        bad = [p for p in value if not valid_pattern(p)]
        if bad:
            raise ValueError(f"{bad[0]!r} is neither owner/name nor owner/*")
        return value

    @field_validator("scopes")
    @classmethod
    def _scope_names(cls, value: dict[str, ScopeConfig]) -> dict[str, ScopeConfig]:
        for name, conf in value.items():
            if not _SCOPE_NAME.match(name):
                raise ValueError(f"{name!r} is not a scope name (letters, digits, - and _)")
            try:
                conf.filters()
            except ConfigError as exc:
                raise ValueError(f"{name}: exclude.titles: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _scope_topics(self) -> AppConfig:
        for name, conf in self.scopes.items():
            unknown = [t for t in conf.topics or () if t.strip().lower() not in self.topics]
            if unknown:
                known = ", ".join(sorted(self.topics)) or "none"
                raise ValueError(
                    f"scope {name!r} names unknown topic {unknown[0]!r} "
                    f"(configured topics: {known})"
                )
        return self

    @field_validator("default_repo")
    @classmethod
    def _repo_name(cls, value: str) -> str:
        if not valid_repo(value):
            raise ValueError(f"{value!r} is not an owner/name repository")
        return value

    def repo(self, name: str) -> RepoConfig:
        """The settings of ``name``; unknown repositories get the defaults."""
        for key, conf in self.repos.items():
            if key.lower() == name.lower():
                return conf
        return RepoConfig()

    def display_name(self, name: str) -> str:
        return self.repo(name).display_name or name.split("/", 1)[1]

    def topic(self, name: str) -> Topic:
        key = name.strip().lower()
        if key not in self.topics:
            known = ", ".join(sorted(self.topics)) or "none"
            raise ConfigError(f"unknown topic {name!r} (configured topics: {known})")
        return self.topics[key].to_topic(key)

    def organisation_map(self) -> tuple[Organisation, ...]:
        """The configured organisations, in file order."""
        return tuple(conf.to_organisation(name) for name, conf in self.organisations.items())

    def glossary_for(self, repo: str) -> tuple[tuple[str, str], ...]:
        """The glossary entries the configuration adds for ``repo``: global, then its own."""
        return tuple({**self.glossary, **self.repo(repo).glossary}.items())

    def topics_for(self, repo: str) -> tuple[Topic, ...]:
        names = self.repo(repo).topics
        return tuple(self.topic(n) for n in (self.default_topics if names is None else names))

    def scope(self, name: str) -> Scope:
        """The configured scope ``name`` (any case); an unknown name is a ``ConfigError``."""
        key = name.strip().lower()
        found = next((n for n in self.scopes if n.lower() == key), None)
        if found is None:
            known = ", ".join(sorted(self.scopes)) or "none"
            raise ConfigError(f"unknown scope {name!r} (configured scopes: {known})")
        conf = self.scopes[found]
        return Scope(
            repos=tuple(conf.repos),
            name=found,
            timezone=conf.timezone,
            day_start=conf.day_start,
            topics=None if conf.topics is None else tuple(conf.topics),
            filters=conf.filters(),
            owner_cap=conf.owner_cap,
        )

    def scope_topics(self, scope: Scope) -> tuple[Topic, ...]:
        """The focus topics of ``scope``: its own, else every topic of its repositories."""
        if scope.topics is not None:
            return tuple(self.topic(n) for n in scope.topics)
        found = {t.name: t for repo in scope.repos for t in self.topics_for(repo)}
        return tuple(found.values())

    def scope_name(self, scope: Scope) -> str:
        """How a report names ``scope``: its display name, its name, or its repositories'."""
        conf = self.scopes.get(scope.name)
        if conf is not None and conf.display_name:
            return conf.display_name
        if scope.name:
            return scope.name
        return " + ".join(self.display_name(repo) for repo in scope.repos)


_SCOPE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(path: str | Path | None = None) -> AppConfig:
    """The default configuration, overridden by the YAML file at ``path`` when given."""
    raw = yaml.safe_load(resources.files("config").joinpath("defaults.yaml").read_text("utf-8"))
    if path is not None:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
        try:
            override = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
        if not isinstance(override, dict):
            raise ConfigError(f"config file {path} must hold a mapping")
        raw = _merge(raw, override)
    try:
        return AppConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {one_line(exc)}") from exc


def one_line(error: ValidationError, *, env_prefix: str | None = None) -> str:
    """A validation error on one line: ``repos.o/r.timezone: unknown timezone 'Mars'``.

    With ``env_prefix`` each field also names its variable: ``mode (SLACK_MODE): ...``.
    """
    parts = []
    for entry in error.errors():
        where = ".".join(str(part) for part in entry["loc"])
        if where and env_prefix is not None:
            where += f" ({env_prefix}{where.replace('.', '_').upper()})"
        message = str(entry["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


_SECTIONS: tuple[type[BaseSettings], ...] = (
    GitHubSettings,
    SlackSettings,
    DiscordSettings,
    LLMSettings,
    LimitSettings,
    RedisSettings,
    Settings,
)


def settings_error(error: ValidationError) -> str:
    """An error of the environment settings on one line, naming each variable, never a value."""
    found = next((s for s in _SECTIONS if s.__name__ == error.title), None)
    prefix = str(found.model_config.get("env_prefix", "")) if found is not None else None
    return one_line(error, env_prefix=prefix)


def known_variables() -> frozenset[str]:
    """Every environment variable the settings read (aliases included)."""
    names: set[str] = set()
    for section in _SECTIONS:
        prefix = str(section.model_config.get("env_prefix", ""))
        for field, info in section.model_fields.items():
            if isinstance(info.default_factory, type):
                continue  # a nested section: its own variables count
            alias = info.validation_alias
            if isinstance(alias, AliasChoices):
                names.update(str(choice).upper() for choice in alias.choices)
            else:
                names.add(f"{prefix}{field}".upper())
    return frozenset(names)


_PREFIXES = tuple(str(s.model_config.get("env_prefix", "")) for s in _SECTIONS)


def unknown_variables(environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """Variables with one of our prefixes that no setting reads, each with the closest known one.

    ``GITHUB_*`` variables that are not near-misses of ours are left alone: GitHub Actions sets
    dozens (``GITHUB_SHA``, ``GITHUB_REF``...).
    """
    known = sorted(known_variables())
    found = []
    for name in sorted(environ):
        upper = name.upper()
        if upper in known or not upper.startswith(_PREFIXES):
            continue
        github = upper.startswith("GITHUB_")
        close = difflib.get_close_matches(upper, known, n=1, cutoff=0.85 if github else 0.6)
        if close or not github:
            found.append((name, close[0] if close else None))
    return found


def warn_unknown_variables(environ: Mapping[str, str]) -> None:
    """Log one warning per unknown variable with our prefixes, naming the closest known one."""
    for name, closest in unknown_variables(environ):
        log.warning("settings.unknown_variable", extra={"variable": name, "did_you_mean": closest})
