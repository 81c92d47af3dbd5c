"""The command runner: parsed commands to digest requests, questions to the asker it was given."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.commands.grammar import AskCommand, DigestCommand, Options, UsageError, parse
from bot.commands.runner import ReportCore, config_fingerprint
from bot.compose.questions import question_asker
from config.settings import AppConfig, load_config
from digest.ask import Asker
from digest.backends.sqlite.mirror import SQLiteStore
from digest.builder import DigestRequest
from digest.errors import ConfigError
from digest.models import Answer, Digest
from tests.digest.conftest import SAMPLE_NOW, SAMPLE_ROCM_WEEK, fill, sample_rows
from tests.support.asking import no_digest, sample_core
from tests.support.serve import sample_digest


@pytest.fixture
async def core() -> AsyncIterator[ReportCore]:
    async with sample_core() as made:
        yield made


async def test_core_answers_a_parsed_question(core: ReportCore) -> None:
    """``ask what's new in ROCm?`` parsed by the shared grammar gets the linked ROCm answer."""
    command = parse("ask what's new in ROCm?")
    assert isinstance(command, AskCommand)
    answer = await core.ask(command)
    assert isinstance(answer, Answer)
    assert set(answer.cites) == SAMPLE_ROCM_WEEK and answer.repo == "vllm-project/vllm"


async def test_core_uses_the_language_option(core: ReportCore) -> None:
    """``lang:zh`` answers in Chinese even for an English question."""
    answer = await core.ask(AskCommand("what's new in ROCm?", Options(lang="zh")))
    assert answer.lang == "zh"


async def test_core_rejects_a_malformed_repository(core: ReportCore) -> None:
    """A repository option that is not owner/name is a usage error, not a crash."""
    with pytest.raises(UsageError):
        await core.ask(AskCommand("what's new?", Options(repo="not a repo")))


async def test_core_without_a_mirror_says_so() -> None:
    """Without a store the core explains that questions need the mirror."""
    bare = ReportCore(config=load_config(), get_digest=no_digest, clock=lambda: SAMPLE_NOW)
    with pytest.raises(ConfigError, match="mirror"):
        await bare.ask(AskCommand("what's new in ROCm?"))


async def test_core_answers_any_text(core: ReportCore) -> None:
    """Random question texts always come back as answers."""
    rng = random.Random(3)
    alphabet = "aZ09 ?!@<>[]*_`#\x00最近本周\u202e😀"
    for _ in range(40):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80)))
        answer = await core.ask(AskCommand(text))
        assert answer.blocks


def test_a_request_has_the_configured_defaults() -> None:
    """A bare window asks for the default repository, in the default language, by the template
    writer, about that repository's topics, in its time zone and under its display name."""
    config = load_config()
    core = ReportCore(config=config, get_digest=no_digest, clock=lambda: SAMPLE_NOW)
    request = core.request("2026-01-31")
    assert (request.repo, request.lang, request.writer) == (config.default_repo, "en", "template")
    assert request.topics == config.topics_for(config.default_repo)
    assert request.display_name == "vLLM" and request.window.timezone == "Asia/Shanghai"
    assert request.config_fingerprint == config_fingerprint(config)


@pytest.mark.parametrize(
    "options",
    [{"repo": "not a repo"}, {"topics": ("no-such-topic",)}],
)
def test_a_bad_repository_or_topic_is_the_callers_mistake(options: dict[str, Any]) -> None:
    """A repository that is not owner/name, or a topic not configured, is a usage error."""
    core = ReportCore(config=load_config(), get_digest=no_digest, clock=lambda: SAMPLE_NOW)
    with pytest.raises(UsageError):
        core.request("today", **options)


def test_cached_digests_follow_the_configuration_not_the_subscriptions() -> None:
    """The fingerprint in every request changes with a topic's keywords, not with the
    configured subscriptions."""
    config = load_config()
    data = config.model_dump()
    data["topics"]["rocm"]["keywords"] = [*data["topics"]["rocm"]["keywords"], "MI355X"]
    retuned = AppConfig.model_validate(data)
    subscribed = AppConfig.model_validate(
        {
            **config.model_dump(),
            "subscriptions": [{"platform": "slack", "channel": "C1", "time": "11:21"}],
        }
    )
    assert config_fingerprint(retuned) != config_fingerprint(config)
    assert config_fingerprint(subscribed) == config_fingerprint(config)


async def test_a_digest_never_makes_the_asker() -> None:
    """Digests go to ``get_digest`` without making the answerer of questions; the first
    question makes it."""
    config = load_config()
    digest = await sample_digest()
    built: list[DigestRequest] = []
    made: list[int] = []

    async def get_digest(request: DigestRequest) -> Digest:
        built.append(request)
        return digest

    store = SQLiteStore(":memory:")
    await fill(store, *sample_rows())
    answerer = question_asker(config, store, clock=lambda: SAMPLE_NOW)

    def asker() -> Asker:
        made.append(1)
        return answerer()

    core = ReportCore(config=config, get_digest=get_digest, clock=lambda: SAMPLE_NOW, asker=asker)
    try:
        assert await core.digest(DigestCommand("2026-01-31")) is digest
        assert len(built) == 1 and made == []
        answer = await core.ask(AskCommand("what's new in ROCm?"))
        assert made == [1] and set(answer.cites) == SAMPLE_ROCM_WEEK
    finally:
        await store.close()


def _scoped_core() -> ReportCore:
    config = AppConfig.model_validate(
        {
            **load_config().model_dump(),
            "scopes": {
                "serving": {
                    "repos": ["vllm-project/vllm", "sgl-project/sglang"],
                    "display_name": "Serving",
                    "exclude": {"labels": ["dependencies"], "authors": ["*[bot]"]},
                }
            },
        }
    )
    return ReportCore(config=config, get_digest=no_digest, clock=lambda: SAMPLE_NOW)


def test_chat_names_several_repositories_or_a_scope() -> None:
    """``repo:a/b,c/d`` and ``scope:serving`` are requests over their repositories, cut by the
    first repository's day, with the scope's filters; one repository keeps its plain key."""
    core = _scoped_core()
    several = parse("2026-01-30 repo:vllm-project/vllm,sgl-project/sglang")
    assert isinstance(several, DigestCommand)
    request = core.request_for(several)
    assert request.repos == ("vllm-project/vllm", "sgl-project/sglang")
    assert request.window.timezone == "Asia/Shanghai"  # vLLM's day, its 11:21 cut-off
    assert request.window.start.isoformat() == "2026-01-30T03:21:00+00:00"
    assert request.display_name == "vLLM + sglang"
    scoped = parse("2026-01-30 scope:Serving")
    assert isinstance(scoped, DigestCommand)
    request = core.request_for(scoped)
    assert request.scope is not None and request.scope.name == "serving"
    assert request.scope.filters.exclude_authors == ("*[bot]",)
    assert request.display_name == "Serving"
    one = parse("2026-01-30 repo:vllm-project/vllm")
    assert isinstance(one, DigestCommand) and core.request_for(one).scope is None


def test_an_unknown_scope_names_the_configured_ones() -> None:
    command = parse("today scope:training")
    assert isinstance(command, DigestCommand)
    with pytest.raises(
        UsageError, match=r"unknown scope 'training' \(configured scopes: serving\)"
    ):
        _scoped_core().request_for(command)


async def test_a_question_over_several_repositories_is_refused(core: ReportCore) -> None:
    command = AskCommand("what's new?", Options(repo="a/b", repos=("a/b", "c/d")))
    with pytest.raises(UsageError, match="a question covers one repository"):
        await core.ask(command)
