"""The answerer of questions, built (and the question package imported) on the first question.

A digest from the cache, the command line's hot path, never loads :mod:`digest.ask`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from config.settings import AppConfig
from digest.mirror.store import Store, Sync
from digest.models import Lang

if TYPE_CHECKING:
    from digest.ask import AnswerWriter, Asker


def question_asker(
    config: AppConfig,
    store: Store,
    *,
    clock: Callable[[], datetime],
    sync: Sync | None = None,
    writer: Callable[[], AnswerWriter] | None = None,
    web_url: str = "https://github.com",
    default_lang: Lang | None = None,
) -> Callable[[], Asker]:
    """The one :class:`~digest.ask.Asker` over ``store``, made on the first call.

    ``writer`` makes the model's answerer (none: template answers only); ``default_lang``
    defaults to the configuration's.
    """

    @functools.cache
    def asker() -> Asker:
        from digest.ask import Asker, RepoInfo

        return Asker(
            store=store,
            clock=clock,
            topics=tuple(config.topic(name) for name in config.topics),
            repos=tuple(
                RepoInfo(name, config.display_name(name), conf.timezone, conf.day_start)
                for name, conf in config.repos.items()
            ),
            default_repo=config.default_repo,
            sync=sync,
            writer=writer() if writer is not None else None,
            web_url=web_url,
            default_lang=default_lang or config.default_lang,
        )

    return asker
