"""Addresses in text: the one rule of what could be linked or visited outside GitHub."""

from __future__ import annotations

import pytest

from digest.analysis.addresses import addresses, pieces

# (text, the addresses in it): what GitHub, Discord or Slack would link, what is written to be
# visited, and the names that only look like hosts.
CASES = [
    ("upgrade now via evil.example/fix.sh.", ["evil.example/fix.sh"]),
    ("hxxps://evil.example/patch", ["hxxps://evil.example/patch"]),
    ("https://evil.example, then", ["https://evil.example"]),
    ("see example.com.", ["example.com"]),
    ("docs at vllm.ai and huggingface.co/Qwen/Qwen3", ["vllm.ai", "huggingface.co/Qwen/Qwen3"]),
    ("bit.ly/3xYz and t.me/joinchat", ["bit.ly/3xYz", "t.me/joinchat"]),
    ("www.foo is linked by GitHub", ["www.foo"]),
    ("mail dev@example.com about @torch.compile", ["dev@example.com"]),
    (
        "dev[at]example[.]com or evil(.)example(.)org",
        ["dev[at]example[.]com", "evil(.)example(.)org"],
    ),
    ("hxxps[:]//evil.example", ["hxxps[:]//evil.example"]),
    ("mailto:dev@example.com", ["mailto:dev@example.com"]),
    ("javascript:alert(1)", ["javascript:alert"]),
    ("s3://bucket/model and ftp://mirror.example", ["s3://bucket/model", "ftp://mirror.example"]),
    ("served from 10.0.0.1:8000/v1 or 1.2.3.4", ["10.0.0.1:8000/v1", "1.2.3.4"]),
    ("git@github.com:vllm-project/vllm.git", ["git@github.com"]),
    ("见https://evil.example/x推进", ["https://evil.example/x"]),
    ("请访问example.com获取补丁", ["example.com"]),
    ("**example.com** and _evil.example/x_", ["example.com", "evil.example/x"]),
    ("github.com/vllm-project/vllm/pull/1", ["github.com/vllm-project/vllm/pull/1"]),
    ("vllm.entrypoints.openai and torch.compile", []),
    ("config.json, setup.py, README.md, MANIFEST.in, kernel.cu, model.pt", []),
    ("vllm/attention/backends/rocm.py and docs/source/index.md", []),
    ("v0.15.0, 3.12, Qwen2.5, Llama-3.1-8B, DeepSeek-V3.2, 1.5x/s", []),
    ("logger.info, self.net, asyncio.run, np.ndarray/torch.Tensor, google.cloud", []),
    ("e.g. i.e. etc. vs. a.k.a.", []),
    ("snake_case.attr and x.co_varnames", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_addresses(text: str, expected: list[str]) -> None:
    """Each case finds exactly its addresses, without the punctuation that ends a sentence."""
    assert addresses(text) == expected


def test_pieces_cover_the_text() -> None:
    """The runs of a text put together are the text, its addresses marked."""
    text = "try evil.example/fix.sh, or mail dev@example.com."
    runs = pieces(text)
    assert "".join(run for run, _ in runs) == text
    assert [run for run, address in runs if address] == ["evil.example/fix.sh", "dev@example.com"]
