"""The ``vllm-report ask`` command: one question in, one rendered answer out."""

from __future__ import annotations

from dataclasses import replace

from bot.commands.grammar import AskCommand, Options, UsageError, parse
from bot.commands.runner import ReportCore
from digest.ask.template import digest_command, window_spec
from digest.models import Answer, Block, Inline, Paragraph, Text
from digest.render.answer import render_answer_json, render_answer_markdown


async def run_ask(
    core: ReportCore,
    question: str,
    *,
    repo: str | None = None,
    lang: str | None = None,
    fmt: str = "md",
) -> str:
    """The answer to ``question`` as Markdown (``fmt="md"``) or JSON (``fmt="json"``).

    ``repo`` and ``lang`` (command-line flags) win over ``repo:``/``lang:`` in the question.
    Raises ``UsageError`` for an empty or overlong question or a malformed repository.
    """
    if fmt not in ("md", "json"):
        raise UsageError(f"unknown format {fmt!r} (use md or json)")
    command = parse(f"ask {question}")
    if not isinstance(command, AskCommand):
        raise UsageError("ask what? e.g. `ask what's new in ROCm?`")
    opts = command.options
    command = AskCommand(
        command.question,
        Options(repo or opts.repo, lang or opts.lang, opts.private),
    )
    answer = _cli_pointer(await core.ask(command), core.config.default_repo)
    return render_answer_json(answer) + "\n" if fmt == "json" else render_answer_markdown(answer)


def _cli_pointer(answer: Answer, default_repo: str) -> Answer:
    """The answer with its chat commands given as command lines: "full list" ``topic rocm week``
    becomes ``vllm-report week --topic rocm``, an example ``ask …`` becomes ``vllm-report ask``."""
    chat = digest_command(answer.topic, answer.window, answer.repo, default_repo)
    cli = f"vllm-report {window_spec(answer.window)}"
    cli += f" --topic {answer.topic}" if answer.topic else ""
    cli += f" --repo {answer.repo}" if answer.repo.lower() != default_repo.lower() else ""

    def command(span: Inline) -> Inline:
        if not isinstance(span, Text) or span.style != "code":
            return span
        if span.text == chat:
            return Text(cli, "code")
        if span.text.startswith("ask "):  # the example question of "unknown topic"
            return Text(f'vllm-report ask "{span.text[4:]}"', "code")
        return span

    def swap(block: Block) -> Block:
        return (
            Paragraph(tuple(map(command, block.spans))) if isinstance(block, Paragraph) else block
        )

    return replace(answer, blocks=tuple(swap(b) for b in answer.blocks))
