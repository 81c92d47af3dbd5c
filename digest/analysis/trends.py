"""Trends: model, feature, hardware and theme names that recur across the window's items."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from digest.analysis.text import PER_TEXT, Needles, folded
from digest.analysis.types import HISTORY_WINDOWS, TopicMatch, Trend
from digest.models import Item

MIN_ITEMS = 2
TRENDS_LIMIT = 5  # a reader takes in 3-5 themes
_B = r"(?<![A-Za-z0-9])"  # left word boundary (letters and digits)
_E = r"(?![A-Za-z0-9])"  # right word boundary


@dataclass(frozen=True, slots=True)
class Term:
    """A recurring name: how it is written, its kind, its pattern and cheap pre-checks."""

    term: str
    kind: str
    source: str  # the pattern, matched case-insensitively (compiled on first use)
    needles: tuple[str, ...] = ()  # lower-case substrings one of which every match contains

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source, re.I)


@lru_cache(maxsize=512)
def _compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(source, flags)


def _term(term: str, kind: str, pattern: str, needles: str = "") -> Term:
    return Term(term, kind, pattern, tuple(n for n in needles.split("|") if n))


VOCABULARY: tuple[Term, ...] = (
    # models
    _term("Qwen3.5", "model", rf"{_B}qwen[\s-]?3\.5", "qwen"),
    _term("Qwen3", "model", rf"{_B}qwen[\s-]?3(?![.\d])", "qwen"),
    _term("Qwen2.5", "model", rf"{_B}qwen[\s-]?2\.5", "qwen"),
    _term("DeepSeek-V3.2", "model", rf"{_B}deepseek[\s-]?v3\.2", "deepseek"),
    _term("DeepSeek-V3", "model", rf"{_B}deepseek[\s-]?v3(?![.\d])", "deepseek"),
    _term("DeepSeek-R1", "model", rf"{_B}deepseek[\s-]?r1{_E}", "deepseek"),
    _term("Llama", "model", rf"{_B}llama[\s-]?\d*(?:\.\d)?{_E}", "llama"),
    _term("gpt-oss", "model", rf"{_B}gpt[\s-]?oss{_E}", "gpt"),
    _term("Kimi", "model", rf"{_B}kimi{_E}", "kimi"),
    _term("GLM", "model", rf"{_B}glm[\s-]?\d", "glm"),
    _term("MiniMax", "model", rf"{_B}minimax", "minimax"),
    _term("Mistral", "model", rf"{_B}(?:mistral|mixtral|ministral){_E}", "stral|xtral"),
    _term("Gemma", "model", rf"{_B}gemma[\s-]?\d*{_E}", "gemma"),
    _term("Whisper", "model", rf"{_B}whisper{_E}", "whisper"),
    _term("Phi", "model", rf"{_B}phi[\s-]?[34]", "phi"),
    # features
    _term(
        "MoE", "feature", rf"{_B}(?:moe|mixture[\s-]of[\s-]experts|fused_moe){_E}", "moe|mixture"
    ),
    _term(
        "speculative decoding",
        "feature",
        rf"{_B}(?:spec(?:ulative)?[\s_-]?decod\w*|speculative|eagle\d?|mtp|ngram){_E}",
        "spec|eagle|mtp|ngram",
    ),
    _term("LoRA", "feature", rf"{_B}lora{_E}", "lora"),
    _term("FP8", "feature", rf"{_B}fp8{_E}", "fp8"),
    _term("FP4", "feature", rf"{_B}(?:nv|mx)?fp4{_E}", "fp4"),
    _term(
        "quantization",
        "feature",
        rf"{_B}(?:quantiz\w*|awq|gptq|int8|int4|w8a8|w4a16|bitsandbytes|gguf){_E}",
        "quant|awq|gptq|int8|int4|w8a8|w4a16|bitsandbytes|gguf",
    ),
    _term("KV cache", "feature", rf"{_B}kv[\s_-]?cache", "kv"),
    _term("prefix caching", "feature", rf"{_B}prefix[\s_-]?cach\w*", "prefix"),
    _term(
        "structured output",
        "feature",
        rf"{_B}(?:structured[\s_-]output\w*|guided[\s_-]decoding|xgrammar|json[\s_-]schema){_E}",
        "structured|guided|xgrammar|json",
    ),
    _term(
        "attention backends",
        "feature",
        rf"{_B}(?:attn|attention)[\s_-]backends?{_E}|{_B}(?:flashinfer|flash[\s_-]?attention|fa[23]|flashmla){_E}",
        "attn|attention|flash|fa2|fa3",
    ),
    _term(
        "torch.compile",
        "feature",
        rf"{_B}(?:torch\.compile|inductor|compilation)",
        "compil|inductor",
    ),
    _term("CUDA graphs", "feature", rf"{_B}(?:cuda[\s_-]?graphs?|cudagraphs?){_E}", "graph"),
    _term(
        "multimodal",
        "feature",
        rf"{_B}(?:multi[\s-]?modal|vision|vlm|image inputs?){_E}",
        "modal|vision|vlm|image",
    ),
    _term(
        "tool calling", "feature", rf"{_B}(?:tool[\s_-]?call\w*|function[\s_-]call\w*){_E}", "call"
    ),
    _term(
        "disaggregated serving",
        "feature",
        rf"{_B}(?:disagg\w*|p/d|pd[\s_-]disagg\w*|kv[\s_-]?connector|nixl|lmcache){_E}",
        "disagg|p/d|connector|nixl|lmcache",
    ),
    _term(
        "expert parallelism",
        "feature",
        rf"{_B}(?:expert[\s_-]parallel\w*|eplb|deepep){_E}",
        "expert|eplb|deepep",
    ),
    # hardware and platforms
    _term("ROCm", "hardware", rf"{_B}(?:rocm|amd|aiter|hip){_E}", "rocm|amd|aiter|hip"),
    _term("MI300X", "hardware", rf"{_B}mi30[08]x?{_E}", "mi30"),
    _term("MI355X", "hardware", rf"{_B}mi35[05]x?{_E}", "mi35"),
    _term("H100", "hardware", rf"{_B}h100{_E}", "h100"),
    _term("H200", "hardware", rf"{_B}h200{_E}", "h200"),
    _term("B200", "hardware", rf"{_B}(?:b200|gb200|b100){_E}", "b200|b100"),
    _term(
        "Blackwell",
        "hardware",
        rf"{_B}(?:blackwell|sm100|sm120|sm_100|sm_120){_E}",
        "blackwell|sm100|sm120|sm_1",
    ),
    _term("Hopper", "hardware", rf"{_B}(?:hopper|sm90|sm_90){_E}", "hopper|sm90|sm_90"),
    _term("A100", "hardware", rf"{_B}a100{_E}", "a100"),
    _term("TPU", "hardware", rf"{_B}tpus?{_E}", "tpu"),
    _term("Intel XPU", "hardware", rf"{_B}(?:xpu|gaudi|hpu){_E}", "xpu|gaudi|hpu"),
    _term("Ascend NPU", "hardware", rf"{_B}(?:ascend|npu){_E}", "ascend|npu"),
    _term("CPU backend", "hardware", rf"{_B}cpu[\s_-]backend{_E}", "cpu"),
    # themes
    _term(
        "accuracy",
        "theme",
        rf"{_B}(?:accuracy|inaccurate|garbage output|gibberish){_E}",
        "accura|garbage|gibberish",
    ),
    _term("CI", "theme", rf"{_B}(?:ci|ci/build|buildkite){_E}", "ci"),
    _term("Transformers v5", "theme", rf"{_B}transformers[\s-]?v?5{_E}", "transformers"),
)
_KIND_ORDER = {"model": 0, "feature": 1, "hardware": 2, "theme": 3}


class _Index:
    """A vocabulary prepared for one pass over each text: one scan of the lower-cased text
    finds the needles present, and only their terms (and those without needles) run their
    patterns, without ``re.I`` on the :func:`folded` text where a pattern allows it."""

    __slots__ = ("_always", "_lowered", "_needles", "_positions", "_terms")

    def __init__(self, vocabulary: tuple[Term, ...]) -> None:
        by_needle: dict[str, list[int]] = {}
        for position, term in enumerate(vocabulary):
            for needle in term.needles:
                by_needle.setdefault(needle, []).append(position)
        self._terms = vocabulary
        self._needles = Needles({n: tuple(t) for n, t in by_needle.items()})
        self._always = frozenset(i for i, term in enumerate(vocabulary) if not term.needles)
        self._lowered = tuple(_for_lowered(term.source) for term in vocabulary)
        self._positions = lru_cache(maxsize=PER_TEXT)(self._scan)

    def mentions(self, item: Item) -> tuple[Term, ...]:
        terms = self._terms
        return tuple(terms[i] for i in self._positions(item.title, item.body_excerpt))

    def _scan(self, title: str, body: str) -> tuple[int, ...]:
        """The vocabulary positions of the terms the title or body mentions, in order."""
        text = f"{title}\n{body}"
        lowered = text.lower()
        candidates = set(self._always)
        for positions in self._needles.values(lowered):
            candidates.update(positions)
        if not candidates:
            return ()
        subject = lowered if text.isascii() else folded(text)
        terms, fast = self._terms, self._lowered
        found: list[int] = []
        for i in sorted(candidates):
            pattern = fast[i]
            hit = pattern.search(subject) if pattern else terms[i].pattern.search(text)
            if hit is not None:
                found.append(i)
        return tuple(found)


def _for_lowered(source: str) -> re.Pattern[str] | None:
    """The pattern ``source`` without ``re.I``, to match :func:`folded` text the same way,
    when it has no upper-case letter outside ``A-Z`` ranges nor a non-ASCII character (else
    ``None``)."""
    rest = re.sub(r"A-Z|\\[A-Z]", "", source)
    plain = rest == rest.lower() and source.isascii()
    return _compiled(source) if plain else None


@cache
def _default_index() -> _Index:
    return _Index(VOCABULARY)


def _index(vocabulary: Sequence[Term]) -> _Index:
    """The prepared index of ``vocabulary`` (the default vocabulary's is built once)."""
    return _default_index() if vocabulary is VOCABULARY else _Index(tuple(vocabulary))


def mentions(item: Item, vocabulary: Sequence[Term] = VOCABULARY) -> tuple[Term, ...]:
    """The terms that ``item``'s title or body mentions, in vocabulary order."""
    return _index(vocabulary).mentions(item)


def trends(
    items: Sequence[Item],
    vocabulary: Sequence[Term] = VOCABULARY,
    min_items: int = MIN_ITEMS,
    limit: int = TRENDS_LIMIT,
    weigh: Callable[[Item], float] | None = None,
) -> tuple[Trend, ...]:
    """Terms mentioned by at least ``min_items`` items, most items first, with those items:
    the weightiest first when ``weigh`` (an item's substance) is given, else by number."""
    index = _index(vocabulary)
    found: dict[str, tuple[Term, list[Item]]] = {}
    for item in sorted(items, key=lambda i: i.number):
        for term in index.mentions(item):
            found.setdefault(term.term, (term, []))[1].append(item)
    ranked = sorted(
        (entry for entry in found.values() if len(entry[1]) >= min_items),
        key=lambda entry: (-len(entry[1]), _KIND_ORDER.get(entry[0].kind, 9), entry[0].term),
    )
    out = []
    for term, hits in ranked[:limit]:
        if weigh is not None:
            hits = sorted(hits, key=lambda item: (-weigh(item), item.number))
        out.append(Trend(term=term.term, kind=term.kind, items=tuple(hits)))
    return tuple(out)


def against_history(
    found: Sequence[Trend],
    history: Sequence[Sequence[Item]],
    vocabulary: Sequence[Term] = VOCABULARY,
) -> tuple[Trend, ...]:
    """``found`` with each term's change against its average over the previous
    ``HISTORY_WINDOWS`` windows: ``new`` (in none of them), ``rising`` (half as many again and
    at least two more), ``steady`` (within a third of the average); nothing said (``None``)
    when it fell, or without a full history."""
    if len(history) < HISTORY_WINDOWS or not found:
        return tuple(found)
    wanted = {trend.term for trend in found}
    seen: dict[str, int] = dict.fromkeys(wanted, 0)
    index = _index(vocabulary)
    for items in history[:HISTORY_WINDOWS]:
        for item in items:
            for term in index.mentions(item):
                if term.term in seen:
                    seen[term.term] += 1
    out = []
    for trend in found:
        baseline = seen[trend.term] / HISTORY_WINDOWS
        now = len(trend.items)
        change: str | None
        if baseline == 0:
            change = "new"
        elif now >= 1.5 * baseline and now - baseline >= 2:
            change = "rising"
        elif now >= baseline / 1.5:
            change = "steady"
        else:
            change = None
        out.append(replace(trend, change=change, baseline=round(baseline, 1)))
    return tuple(out)


def with_topics(
    found: Sequence[Trend],
    matches: Sequence[TopicMatch],
    weigh: Callable[[Item], float] | None = None,
) -> tuple[Trend, ...]:
    """``found`` with a trend that names a focus topic (its name or a synonym) counting that
    topic's items, so that trends and the topic's section agree: the weightiest first when
    ``weigh`` is given, else in the topic's order."""
    names = {
        name.lower(): match
        for match in matches
        for name in (match.topic.name, *match.topic.synonyms)
    }
    out = []
    for trend in found:
        match = names.get(trend.term.lower())
        if match is not None and match.items:
            items = [hit.item for hit in match.items]
            if weigh is not None:
                items.sort(key=lambda item: (-weigh(item), item.number))
            trend = replace(trend, items=tuple(items))
        out.append(trend)
    return tuple(out)
