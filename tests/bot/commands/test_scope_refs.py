"""References to ad hoc lists of repositories, kept in the shared state (SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.commands.scope_refs import ScopeRefs, is_ref, ref_of
from digest.backends.sqlite.state import SQLiteState
from tests.support.clock import Clock

REPOS = ("vllm-project/vllm", "sgl-project/sglang")


async def test_a_list_is_read_back_by_its_reference_on_another_replica() -> None:
    """A reference is ``~`` and ten hex characters, the same for any case of the names; a
    second reader of the same state gets the list back in its order."""
    state = SQLiteState(":memory:", clock=Clock(datetime(2026, 3, 10, tzinfo=UTC)))
    try:
        ref = await ScopeRefs(state).remember(REPOS)
        assert ref == ref_of(("VLLM-project/vllm", "sgl-project/SGLang")) and is_ref(ref)
        assert len(ref) == 11
        assert await ScopeRefs(state).recall(ref) == REPOS
        assert await ScopeRefs(state).recall(ref_of(REPOS[::-1])) is None  # never stored
        await state.set(f"scope-ref:{ref}", '["a/b"]', ttl=timedelta(days=1))
        assert await ScopeRefs(state).recall(ref) is None  # a list that is not its own
        assert await ScopeRefs(state).recall("serving") is None
    finally:
        await state.close()
