"""Typed settings: secrets and endpoints from the environment, the rest from YAML."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from digest.errors import BadWindow, ConfigError
from digest.github.names import valid_repo
from digest.models import Topic
from digest.windows import parse_day_start, zone


def _env(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(env_prefix=prefix, extra="ignore", populate_by_name=True)


class GitHubSettings(BaseSettings):
    model_config = _env("GITHUB_")
    token: SecretStr | None = None
    api_url: str = "https://api.github.com"
    web_url: str = "https://github.com"
    timeout: float = 20.0
    max_retries: int = 3
    backfill_days: int = 14


class SlackSettings(BaseSettings):
    model_config = _env("SLACK_")
    bot_token: SecretStr | None = None
    app_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    api_url: str = "https://slack.com/api/"
    mode: Literal["socket", "http"] = "socket"
    port: int = 3000


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
    timeout: float = 60.0
    max_retries: int = 1
    concurrency: int = 8
    section_tokens: int = 6000
    digest_tokens: int = 28000
    max_output_tokens: int = 1200

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


class RedisSettings(BaseSettings):
    model_config = _env("REDIS_")
    url: str | None = None


class Settings(BaseSettings):
    """Everything read from the environment, once, by the composition root."""

    model_config = SettingsConfigDict(env_prefix="VLLM_REPORT_", extra="ignore")
    github: GitHubSettings = Field(default_factory=GitHubSettings)
    slack: SlackSettings = Field(default_factory=SlackSettings)
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    db: str = str(Path.home() / ".cache" / "vllm-report" / "mirror.sqlite3")
    config: str | None = None
    log_json: bool = False
    http_port: int = 8080
    schedule_grace_hours: float = 6.0
    sync_interval_minutes: float = 10.0
    sync_fresh_seconds: float = 60.0


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

    check_timezone = field_validator("timezone")(_zone_name)
    check_day_start = field_validator("day_start")(_time_of_day)


class SubscriptionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    platform: Literal["slack", "discord"]
    channel: str
    repo: str | None = None
    time: str | None = None
    timezone: str | None = None
    lang: Literal["zh", "en"] = "en"
    topics: list[str] | None = None
    writer: Literal["template", "llm", "auto"] = "auto"

    check_timezone = field_validator("timezone")(_zone_name)
    check_time = field_validator("time")(_time_of_day)


class AppConfig(BaseModel):
    """The YAML configuration: repositories, topics and seeded subscriptions."""

    model_config = ConfigDict(extra="forbid")
    default_repo: str = "vllm-project/vllm"
    default_topics: list[str] = ["rocm"]
    repos: dict[str, RepoConfig] = {}
    topics: dict[str, TopicConfig] = {}
    subscriptions: list[SubscriptionConfig] = []

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

    def topics_for(self, repo: str) -> tuple[Topic, ...]:
        names = self.repo(repo).topics
        return tuple(self.topic(n) for n in (self.default_topics if names is None else names))


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


def settings_error(error: ValidationError) -> str:
    """An error of the environment settings on one line, naming each variable, never a value."""
    sections = (
        GitHubSettings,
        SlackSettings,
        DiscordSettings,
        LLMSettings,
        RedisSettings,
        Settings,
    )
    found = next((s for s in sections if s.__name__ == error.title), None)
    prefix = str(found.model_config.get("env_prefix", "")) if found is not None else None
    return one_line(error, env_prefix=prefix)
