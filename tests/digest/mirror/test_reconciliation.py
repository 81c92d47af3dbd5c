"""Reconciliation: items deleted or moved elsewhere on GitHub leave the mirror."""

from __future__ import annotations

from datetime import timedelta

import pytest

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


async def test_renamed_repository_keeps_its_items_and_is_looked_up_once(
    rig_factory: RigFactory, one_day: Dataset, caplog: pytest.LogCaptureFixture
) -> None:
    """After a rename, items that answer under the new name stay in the mirror; the new name
    is looked up once and the rename logged once, over two turns."""
    rig = await rig_factory(one_day)
    await rig.syncer.ensure(REPO, today(one_day))
    recent = sorted(
        i.number
        for i in await rig.store.items_updated(REPO, rig.clock.now - timedelta(days=7), FAR)
    )
    moved = rig.fake.rename(REPO, "vllm-project/vllm-next")
    for number in recent[:4]:
        url = f"https://github.com/vllm-project/vllm-next/issues/{number}"
        moved.put_issue({**moved.issues[number], "url": "", "html_url": url})
    with caplog.at_level("WARNING", logger="digest.mirror"):
        assert await rig.syncer.reconcile(REPO, budget=2) == []
        assert await rig.syncer.reconcile(REPO, budget=2) == []
    assert len(await rig.store.items_by_number(REPO, recent[:4])) == 4
    looked_up = [r for r in rig.fake.requests if r.path == f"/repositories/{moved.id}"]
    assert len(looked_up) == 1
    assert [r.message for r in caplog.records].count("sync.repo_renamed") == 1
