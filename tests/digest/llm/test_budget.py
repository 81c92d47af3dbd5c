"""Offline token estimates and the split of a digest's budget."""

from __future__ import annotations

from digest.llm.budget import Ledger, estimate_messages, estimate_tokens, plan


def test_estimates_err_high() -> None:
    """English is estimated above 1 token per 4 characters, Chinese above 1 per character."""
    english = "The scheduler now batches prefill and decode requests together. " * 20
    chinese = "调度器现在把预填充和解码请求放在一起批处理。" * 20
    assert estimate_tokens(english) >= len(english) / 4
    assert estimate_tokens(chinese) >= len(chinese)
    assert estimate_messages([{"role": "user", "content": english}]) > estimate_tokens(english)


def test_plan_fits_both_budgets() -> None:
    """No section exceeds its request budget and all first requests fit the digest budget."""
    weights = {"summary": 1.0, "topic:rocm": 1.6, "hot": 1.6, "activity": 0.5}
    limits = plan(weights, section_tokens=3000, digest_tokens=12000, max_output_tokens=1000)
    assert all(limit + 1000 <= 3000 for limit in limits.values())
    assert sum(limits.values()) + 4 * 1000 <= 12000
    assert limits["hot"] > limits["activity"]


def test_ledger_refuses_what_the_budget_cannot_cover() -> None:
    """A reservation beyond the budget is refused; settling frees what was not used."""
    ledger = Ledger(1000)
    assert ledger.reserve(800)
    assert not ledger.reserve(300)
    ledger.settle(800, 500)
    assert ledger.reserve(300)
