"""The words of answers to questions: headings, groups, counts, hints. key: (zh, en).

As in the report catalog, the variant for one thing lives under ``<key>.one``.
"""

from __future__ import annotations

from collections.abc import Mapping

ANSWERS: Mapping[str, tuple[str, str]] = {
    # the frame of a rendered answer
    "answer.title": ("回答", "Answer"),
    "answer.question": ("提问", "Question"),
    "answer.searched": ("检索时间窗", "Searched"),
    "answer.credit": (
        "由 {model} 撰写，所有链接均已核对",
        "Written by {model}; every link checked against the data",
    ),
    "answer.note": ("注", "Note"),
    # the groups an answer lists its items in
    "answer.group.merged": ("已合并", "Merged"),
    "answer.group.review": ("审核中", "In review"),
    "answer.group.new": ("新 Issue", "New issues"),
    "answer.group.closed": ("已关闭", "Closed"),
    "answer.group.discussion": ("讨论中", "Discussions"),
    "answer.count.merged": ("已合并 PR {n} 个", "{n} merged PRs"),
    "answer.count.merged.one": ("已合并 PR {n} 个", "{n} merged PR"),
    "answer.count.review": ("审核中 PR {n} 个", "{n} PRs in review"),
    "answer.count.review.one": ("审核中 PR {n} 个", "{n} PR in review"),
    "answer.count.new": ("新 Issue {n} 个", "{n} new issues"),
    "answer.count.new.one": ("新 Issue {n} 个", "{n} new issue"),
    "answer.count.closed": ("已关闭 {n} 项", "{n} closed"),
    "answer.count.discussion": ("讨论中 {n} 项", "{n} discussions"),
    "answer.count.discussion.one": ("讨论中 {n} 项", "{n} discussion"),
    "answer.count.sep": ("，", ", "),
    # what was asked about
    "answer.kind.new": ("新", "new"),
    "answer.kind.open": ("未关闭的", "open"),
    "answer.kind.closed": ("已关闭的", "closed"),
    "answer.kind.merged": ("已合并的", "merged"),
    "answer.kind.hot": ("有讨论的", "discussed"),
    "answer.noun.pr": ("PR", "PRs"),
    "answer.noun.issue": ("Issue", "issues"),
    "answer.noun.item": ("条目", "items"),
    "answer.kinds.only": ("（仅{kinds}）", " (only {kinds})"),
    "answer.term_sep": ("、", ", "),
    "answer.subject.topic_terms": ("{topic}中提到 {terms} 的条目", "{topic} mentioning {terms}"),
    "answer.subject.terms": ("与 {terms} 相关的动态", "{terms}"),
    "answer.subject.all": ("全部动态", "All activity"),
    # one item
    "answer.note.unmerged": ("未合并即关闭", "closed without merging"),
    "answer.note.closed": ("已关闭", "already closed"),
    "answer.note.draft": ("草稿", "draft"),
    "answer.note.comments": ("{n} 条评论", "{n} comments"),
    "answer.note.comments.one": ("{n} 条评论", "{n} comment"),
    "answer.notes": ("（{notes}）", " ({notes})"),
    "answer.note_sep": ("，", ", "),
    # the summary line
    "answer.summary.lead": ("{name} {when}的{gap}", ""),
    "answer.summary.tail": ("：共 {n} 项——{counts}。", " in {name} {when}: {n} items — {counts}."),
    "answer.summary.tail.one": (
        "：共 {n} 项——{counts}。",
        " in {name} {when}: {n} item — {counts}.",
    ),
    "answer.partial": (
        "没有条目同时提到所有关键词，以下条目提到了其中大部分。",
        "No item mentions every word searched; these mention most of them.",
    ),
    # more than fits
    "answer.more": ("……另有 {n} 项", "…and {n} more"),
    "answer.more.list": ("：", ": "),
    "answer.more.stop": ("。", ". "),
    "answer.more.sep": ("、", ", "),
    "answer.full_list": ("完整列表：", "Full list: "),
    "answer.full_stop": ("。", "."),
    "answer.narrow": (
        "。可以加上时间或类型缩小范围，例如“本周”“已合并”",
        ". Narrow the question with a time or a kind, e.g. “this week” or “merged”",
    ),
    # nothing found
    "answer.where": ("{name} {when}（{window}）", "{name} {when} ({window})"),
    "answer.nothing.quiet": (
        "{where}没有任何动态：镜像中没有在此期间创建、关闭、合并或评论的条目。",
        "No activity in {where}: no item was created, closed, merged or commented on in that "
        "window.",
    ),
    "answer.nothing.lead": ("{where}没有找到", "Nothing found for "),
    "answer.nothing.searched": (
        "（检索了 {n} 项的标题、标签和描述）。",
        " in {where}; searched the titles, labels and descriptions of {n} items.",
    ),
    "answer.nothing.searched.one": (
        "（检索了 {n} 项的标题、标签和描述）。",
        " in {where}; searched the titles, labels and descriptions of {n} item.",
    ),
    "answer.topics.none": ("没有配置主题。", "No topics are configured."),
    "answer.topics.lead": ("已配置的主题：", "Configured topics: "),
    "answer.topics.sep": ("；", "; "),
    "answer.topics.detail": ("（{title}）", " ({title})"),
    "answer.topics.detail_also": ("（{title}，也可以说 {also}）", " ({title}; also {also})"),
    "answer.topics.example_lead": ("。例如：", ". For example: "),
    "answer.topics.example": ("{name} 最近有什么进展？", "what's new in {name}?"),
}
