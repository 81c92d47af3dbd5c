"""People: roles from author_association, authorship and review comments; affiliation."""

from __future__ import annotations

import dataclasses

from digest.analysis.people import Role, affiliation_of, role_of
from digest.models import CommentKind, Organisation
from tests.support.analysis_sample import make_comment, make_item

AMD = Organisation("AMD", suffixes=("-amd",), prefixes=("amd-",), logins=("Rohan138",))


def test_owner_member_and_collaborator_are_maintainers() -> None:
    """OWNER, MEMBER and COLLABORATOR on a comment make its author a maintainer."""
    issue = make_item(1, "[Bug]: crash")
    for association in ("OWNER", "MEMBER", "collaborator"):
        said = dataclasses.replace(make_comment(1, 1, "bob"), author_association=association)
        assert role_of("bob", issue, [said]) is Role.MAINTAINER
    plain = dataclasses.replace(make_comment(2, 1, "eve"), author_association="CONTRIBUTOR")
    assert role_of("eve", issue, [plain]) is Role.COMMUNITY


def test_authors_report_issues_and_write_prs() -> None:
    """An issue's author is its reporter; a PR's author is its author."""
    assert role_of("alice", make_item(1)) is Role.REPORTER
    assert role_of("alice", make_item(2, pr=True)) is Role.AUTHOR


def test_review_comments_make_a_reviewer() -> None:
    """Someone who left inline review comments on a PR is a reviewer there."""
    pr = make_item(3, pr=True)
    review = dataclasses.replace(make_comment(4, 3, "rita"), kind=CommentKind.REVIEW)
    assert role_of("rita", pr, [review]) is Role.REVIEWER
    assert role_of("rita", pr, [make_comment(5, 3, "rita")]) is Role.COMMUNITY


def test_affiliation_from_suffix_prefix_and_listed_logins() -> None:
    """Suffixes, prefixes and listed logins tell the organisation, case-insensitively."""
    assert affiliation_of("hongxia-AMD", [AMD]) == "AMD"
    assert affiliation_of("amd-hhashemi", [AMD]) == "AMD"
    assert affiliation_of("rohan138", [AMD]) == "AMD"
    assert affiliation_of("amdahl", [AMD]) == ""
    assert affiliation_of("mgoin", [AMD]) == ""


def test_affiliation_comes_from_the_profile_company_when_the_login_tells_none() -> None:
    """ "AMD", "@AMD" and a configured company name give AMD; a login pattern wins; a
    word merely containing the name does not."""
    from digest.analysis.people import affiliation_of
    from digest.models import Organisation

    amd = Organisation("AMD", suffixes=("-amd",), companies=("Advanced Micro Devices",))
    companies = {
        "a": "AMD",
        "b": "@AMD",
        "c": "Advanced Micro Devices, Inc.",
        "d": "Red Hat",
        "e": "AMDocs",
        "f-amd": "Red Hat",
    }
    found = {login: affiliation_of(login, (amd,), companies) for login in companies}
    assert found == {"a": "AMD", "b": "AMD", "c": "AMD", "d": "", "e": "", "f-amd": "AMD"}
    assert affiliation_of("g", (amd,)) == ""
