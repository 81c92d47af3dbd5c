"""People: the role each person plays in a thread and the organisation their login tells.

Roles come from GitHub's ``author_association`` (OWNER, MEMBER and COLLABORATOR are the
repository's maintainers), from authorship (an issue's author reports it, a PR's author wrote
it) and from inline review comments (reviewers); everyone else is a community member.
Affiliation comes from the configured organisation map (login suffixes, prefixes, listed
logins) and the ``company`` of the person's GitHub profile, never from e-mail addresses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from digest.analysis.types import HotDiscussion, TopicMatch
from digest.models import Comment, Item, Organisation

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


class Role(StrEnum):
    """What a person is in one thread."""

    MAINTAINER = "maintainer"
    REPORTER = "reporter"  # the author of an issue
    AUTHOR = "author"  # the author of a pull request
    REVIEWER = "reviewer"  # wrote inline review comments on the pull request
    COMMUNITY = "community"


def is_maintainer(association: str) -> bool:
    return association.upper() in MAINTAINER_ASSOCIATIONS


def role_of(login: str, item: Item, comments: Iterable[Comment] = ()) -> Role:
    """The role of ``login`` on ``item``, given the item's ``comments``.

    The author of the item is its reporter (issue) or author (PR); anyone else whose
    ``author_association`` on the item or one of its comments makes them a maintainer is one;
    then reviewers of a PR; then the community.
    """
    if login == item.author:
        return Role.AUTHOR if item.is_pr else Role.REPORTER
    own = [c for c in comments if c.author == login and c.item_number == item.number]
    if any(is_maintainer(c.author_association) for c in own):
        return Role.MAINTAINER
    if item.is_pr and any(c.is_review for c in own):
        return Role.REVIEWER
    return Role.COMMUNITY


def affiliation_of(
    login: str, organisations: Sequence[Organisation], companies: Mapping[str, str] = {}
) -> str:
    """The first organisation of ``organisations`` that ``login`` belongs to by login, else
    the first its profile's company (``companies``: login -> company) names; ""."""
    by_login = next((org.name for org in organisations if org.has(login)), "")
    company = companies.get(login, "")
    if by_login or not company:
        return by_login
    return next((org.name for org in organisations if org.employs(company)), "")


def named_people(hot: Iterable[HotDiscussion], topics: Iterable[TopicMatch]) -> tuple[str, ...]:
    """The people a report names: the authors and participants of its hot discussions and
    the authors of its focus topics' items, bots aside, in that order."""
    found: list[str] = []
    for discussion in hot:
        if not discussion.item.author_is_bot:
            found.append(discussion.item.author)
        found.extend(discussion.participants)
    for match in topics:
        found.extend(hit.item.author for hit in match.items if not hit.item.author_is_bot)
    return tuple(dict.fromkeys(found))
