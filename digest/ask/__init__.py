"""Questions about a repository ("what's new in ROCm?") answered with linked items."""

from digest.ask.question import Kind, Question, RepoInfo, parse_question
from digest.ask.retrieve import Found, Hit, find
from digest.ask.service import AnswerWriter, Asker
from digest.ask.template import template_answer

__all__ = [
    "AnswerWriter",
    "Asker",
    "Found",
    "Hit",
    "Kind",
    "Question",
    "RepoInfo",
    "find",
    "parse_question",
    "template_answer",
]
