"""Analysis of a window: pure functions."""

from digest.analysis.analyze import active_items, analyze
from digest.analysis.counts import count, lists
from digest.analysis.topics import group_of, match_topic, match_topics

__all__ = ["active_items", "analyze", "count", "group_of", "lists", "match_topic", "match_topics"]
