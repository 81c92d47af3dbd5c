"""Sibling PRs: two versions of one change are recognised and named together."""

from __future__ import annotations

from digest.analysis.siblings import siblings
from tests.support.analysis_sample import key, make_item, sample_analysis

BODY = (
    "Move the gRPC server into its own package so that the proto compilation happens once at "
    "build time and the engine no longer imports grpc at startup."
)


def test_follow_ups_v2_and_same_bodies_are_siblings() -> None:
    """A follow-up naming its PR, a "v2" title and a copied description are siblings."""
    items = [
        make_item(1, "[CI] Update huggingface-hub pin", pr=True, body="Pulls in fixes."),
        make_item(2, "[ROCm][CI] Same pin", pr=True, body="Follow-up on: #1\nSame for ROCm."),
        make_item(3, "[Frontend] Split the gRPC server", pr=True, body=BODY),
        make_item(4, "[Frontend] Split the gRPC server v2", pr=True, body="Rebased."),
        make_item(5, "[Misc] Own package for the server", pr=True, body=BODY + " Thanks!"),
        make_item(6, "[Bug]: gRPC server split", body=BODY),  # an issue is no sibling
    ]
    found = siblings(items)
    assert found[key(1)] == (key(2),) and found[key(2)] == (key(1),)
    assert found[key(3)] == (key(4), key(5)) and found[key(5)] == (key(3),)
    assert key(6) not in found


def test_unrelated_prs_are_not_siblings() -> None:
    """Different titles and descriptions make no siblings."""
    items = [
        make_item(1, "[Kernel] Faster FP8 GEMM", pr=True, body=BODY),
        make_item(2, "[Core] Scheduler preemption", pr=True, body="A different change entirely."),
    ]
    assert siblings(items) == {}


def test_the_sample_groups_the_two_huggingface_hub_pins() -> None:
    """#33492 applies #33473's change to ROCm CI: the report says they are one change, but a
    topic section names only siblings of its own (its cites are its count)."""
    from digest.writers.template.context import context

    analysis = sample_analysis()
    assert analysis.siblings[key(33492)] == (key(33473),)
    item = next(i for i in analysis.items if i.number == 33492)
    for lang, said in (("zh", "（与 #33473 属同一改动的不同版本）"), ("en", "change in #33473")):
        ctx = context(analysis, lang)  # type: ignore[arg-type]
        spans = ctx.sibling_note(item)
        text = "".join(getattr(s, "text", "") or f"#{getattr(s, 'number', '')}" for s in spans)
        assert said in text
        assert ctx.sibling_note(item, frozenset({key(33492)})) == ()


def test_many_same_titles_are_not_siblings_without_a_version_mark() -> None:
    """Thirty PRs titled alike are not one change; at most three siblings are ever named."""
    same = [make_item(n, "[ROCm] Tune kernel", pr=True, body=f"Tune case {n}.") for n in range(30)]
    assert siblings(same) == {}
    marked = [*same, make_item(99, "[ROCm] Tune kernel v2", pr=True)]
    assert len(siblings(marked)[key(99)]) == 3
