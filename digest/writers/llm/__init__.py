"""The LLM writer: narrative sections from any OpenAI-compatible server, with fallback."""

from digest.llm.budget import estimate_tokens
from digest.writers.llm.writer import LLMWriter

__all__ = ["LLMWriter", "estimate_tokens"]
