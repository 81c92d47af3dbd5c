"""The composition root: builds every client from the settings and wires the core together.

:func:`build_runtime` builds what every command needs (:mod:`bot.compose.runtime`, over the
storage of :mod:`bot.compose.storage` and the model of :mod:`bot.compose.llm`); on a runtime,
:func:`bot.compose.services.build_services` builds what ``serve`` runs, which a command of the
command line never loads. The one clock of a process is :func:`utcnow`. Storage is chosen in
:mod:`bot.compose.storage` and only there: Redis when ``REDIS_URL`` is set, else SQLite files.
"""

from bot.compose.runtime import USER_AGENT, Runtime, build_runtime, load_settings, utcnow
from bot.compose.storage import Storage, build_storage, db_path

__all__ = [
    "USER_AGENT",
    "Runtime",
    "Storage",
    "build_runtime",
    "build_storage",
    "db_path",
    "load_settings",
    "utcnow",
]
