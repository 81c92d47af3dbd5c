"""The words of a Slack digest's frame (title, counts, provenance), from the shared catalog."""

from __future__ import annotations

from digest import i18n
from digest.models import Digest
from digest.windows import title_date


def report_title(digest: Digest) -> str:
    """``vLLM Development Report - 2026-03-10`` / ``vLLM 开发动态报告 - 2026-03-10``."""
    name = digest.display_name or digest.repo.split("/", 1)[-1]
    return i18n.report_title(name, title_date(digest.window), digest.lang)


def counts_line(digest: Digest) -> str:
    """The five counts in one line."""
    return i18n.counts_line(digest.counts, digest.lang)


def labels(lang: str) -> dict[str, str]:
    """The provenance words in ``lang``."""
    return {
        "window": i18n.t("report.window", lang),
        "synced": i18n.t("footer.synced", lang),
        "never": i18n.t("footer.never_synced", lang),
        "written": i18n.t("footer.writers", lang),
        "notes": i18n.t("footer.notes", lang),
    }
