"""The glossary: domain terms in Chinese, whole words, extended by the configuration."""

from __future__ import annotations

from config.settings import AppConfig
from digest.i18n.glossary import builtin, entries, found


def _zh(text: str, extra: tuple[tuple[str, str], ...] = ()) -> list[str]:
    return [entry.zh for entry in found(text, entries(extra))]


def test_the_builtin_glossary_names_the_domain() -> None:
    """推测解码, 注意力后端, 量化, 分布式, KV 缓存 and 编译 are in the data file."""
    names = {entry.zh for entry in builtin()}
    assert {"推测解码", "注意力后端", "量化", "分布式并行", "KV 缓存", "编译"} <= names
    assert _zh("Low acceptance rate with the deepseek_mtp speculative method") == ["推测解码"]


def test_terms_are_whole_words() -> None:
    """ "compile" is no area of "proto compilation"; "CG" is not found inside "CGroup"."""
    assert "编译" not in _zh("Move the server and its proto compilation into a package")
    assert "编译" in _zh("Speed up torch.compile warm-up")
    assert "CUDA 图" not in _zh("Limit the CGroup memory")


def test_the_configuration_extends_and_overrides_the_glossary() -> None:
    """Entries of the configuration, global and per repository, win over the built-in ones."""
    config = AppConfig.model_validate(
        {
            "glossary": {"Trillium": "Trillium 芯片", "MoE": "专家混合"},
            "repos": {"o/r": {"glossary": {"MoE": "MoE 专家层"}}},
        }
    )
    assert _zh("Trillium and MoE", config.glossary_for("x/y")) == ["Trillium 芯片", "专家混合"]
    assert _zh("fused MoE", config.glossary_for("o/r")) == ["MoE 专家层"]
