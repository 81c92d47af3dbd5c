"""The site's route table: every page's place, and the links between any two of them."""

from __future__ import annotations

from datetime import date

from bot.site.routes import Route, Routes, href, root_of
from digest.models import Lang
from digest.render.html import page_path

R = Routes()
REPO = "vllm-project/vllm"
DAY = R.day(REPO, date(2026, 3, 10), Lang.ZH)


def test_day_pages_live_where_chat_links_them() -> None:
    assert DAY.path == page_path(REPO, "2026-03-10", Lang.ZH) == f"{REPO}/2026-03-10/zh/"
    assert DAY.file == f"{REPO}/2026-03-10/zh/index.html"
    assert R.feed(REPO, Lang.EN).file == f"{REPO}/feed.en.xml"


def test_links_between_pages_are_relative() -> None:
    """From a day: the site's root, the repository, the day before, the other language, the
    feed and a topic's section; from a feed: its pages."""
    assert root_of(DAY) == "../../../../" and root_of(R.root()) == ""
    assert href(DAY, R.repo(REPO)) == "../../"
    assert href(DAY, R.day(REPO, date(2026, 3, 9), Lang.ZH)) == "../../2026-03-09/zh/"
    assert href(DAY, R.day(REPO, date(2026, 3, 10), Lang.EN)) == "../en/"
    assert href(DAY, R.feed(REPO, Lang.ZH)) == "../../feed.zh.xml"
    topic = R.topic(REPO, "rocm", Lang.EN)
    assert href(topic, DAY, "topic-rocm") == "../../../2026-03-10/zh/#topic-rocm"
    assert href(R.month(REPO, 2026, 3, Lang.ZH), R.year(REPO, 2026, Lang.ZH)) == "../../zh/"
    feed = R.feed(REPO, Lang.ZH)
    assert href(feed, DAY) == "2026-03-10/zh/" and href(feed, feed) == "feed.zh.xml"
    assert href(feed, R.repo(REPO)) == "./"  # never "": that would be the feed itself
    assert href(R.root(), R.repo(REPO)) == f"{REPO}/"


def test_feeds_link_absolutely_when_the_site_url_is_known() -> None:
    public = Routes("https://reports.example/")
    feed = public.topic_feed(REPO, "rocm", Lang.EN)
    assert public.link(feed, DAY, "topic-rocm") == (
        f"https://reports.example/{REPO}/2026-03-10/zh/#topic-rocm"
    )
    assert public.link(feed, Route("")) == "https://reports.example/"
