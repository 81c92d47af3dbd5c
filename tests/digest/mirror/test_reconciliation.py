"""Reconciliation: items deleted or moved elsewhere on GitHub leave the mirror."""

from __future__ import annotations

from datetime import timedelta

from tests.fakes.github import issue_row
from tests.support.sync_rig import FAR, REPO, RigFactory, today
from tests.support.synthetic import DEFAULT_NOW, Dataset


async def test_reconciliation_removes_deleted_and_transferred_items(
    rig_factory: RigFactory, one_day: Dataset
) -> None:
    """A deleted issue (410) and a transferred one (301 elsewhere) leave the mirror; a live
    issue stays, and the budget caps the requests."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    recent = sorted(
        i.number
        for i in await rig.store.items_updated(REPO, rig.clock.now - timedelta(days=7), FAR)
    )
    deleted, transferred, kept = recent[:3]
    repo = rig.fake.repo(REPO)
    repo.delete(deleted)
    other = rig.fake.add_repo("vllm-project/guidellm")
    other.put_issue(issue_row("vllm-project/guidellm", 7, created=DEFAULT_NOW))
    repo.transfer(transferred, "vllm-project/guidellm", 7)
    before = rig.client.requests_made
    gone = await rig.syncer.reconcile(REPO, budget=3)
    assert sorted(gone) == [deleted, transferred]
    assert [i.number for i in await rig.store.items_by_number(REPO, recent[:3])] == [kept]
    assert rig.client.requests_made - before == 3 + 2  # + the 301, + one look-up of the name
    nxt = await rig.syncer.reconcile(REPO, budget=2)
    assert nxt == [] and rig.fake.requests[-1].path.endswith(f"/issues/{recent[4]}")
