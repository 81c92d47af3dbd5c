"""Reading the settings as the composition root does."""

from __future__ import annotations

from config.settings import LLMSettings


def llm_configured(llm: LLMSettings) -> bool:
    """Whether the LLM settings name an endpoint and a model (the composition root's test)."""
    return bool(llm.base_url and llm.model)
