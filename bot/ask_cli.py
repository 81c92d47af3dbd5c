"""The ``vllm-report ask`` command: one question in, one rendered answer out."""

from __future__ import annotations

from bot.commands.grammar import AskCommand, Options, UsageError, parse
from bot.commands.runner import ReportCore
from digest.models import Lang, Pointer
from digest.render.answer import render_answer_json, render_answer_markdown
from digest.windows import spec_of


async def run_ask(
    core: ReportCore,
    question: str,
    *,
    repo: str | None = None,
    lang: Lang | None = None,
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
    answer = await core.ask(command)
    if fmt == "json":
        return render_answer_json(answer) + "\n"
    return render_answer_markdown(answer, cli_line)


def cli_line(pointer: Pointer) -> str:
    """The command line that asks for ``pointer``: ``vllm-report week --topic rocm`` or
    ``vllm-report ask "…"``."""
    if pointer.question is not None:
        return f'vllm-report ask "{pointer.question}"'
    spec = spec_of(pointer.window) if pointer.window is not None else "today"
    line = f"vllm-report {spec}"
    line += f" --topic {pointer.topic}" if pointer.topic else ""
    return line + (f" --repo {pointer.repo}" if pointer.repo else "")
