#!/usr/bin/env python3
"""Replay the Dockerfile's install steps in a clean virtual environment, without Docker.

The build stage's ENV, WORKDIR, COPY and RUN instructions run as written, with every absolute
container path (``/opt/venv``, ``/src``) moved under a temporary directory; the COPY sources are
taken from this checkout, minus what .dockerignore leaves out of the build context. Then the
runtime stage's command is checked: ``vllm-report serve`` with no chat token must say what to
configure and exit 6, and the health check must report unhealthy when nothing listens.

Usage: python3 .ci/dockerfile_install.py [--keep]    (needs PyPI; takes about half a minute)
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_TIMEOUT_S = 900
SCRUBBED = (
    "GITHUB_",
    "SLACK_",
    "DISCORD_",
    "LLM_",
    "VLLM_REPORT_",
    "REDIS_",
    "PIP_",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
)


@dataclass
class Stage:
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) pairs, with line continuations joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def stages(text: str) -> list[Stage]:
    out: list[Stage] = []
    for keyword, rest in instructions(text):
        if keyword == "FROM":
            parts = rest.split()
            out.append(Stage(parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else ""))
        elif out:
            out[-1].instructions.append((keyword, rest))
    return out


def env_pairs(rest: str) -> list[tuple[str, str]]:
    return [tuple(word.split("=", 1)) for word in shlex.split(rest)]  # type: ignore[misc]


def ignore_rules(text: str) -> list[tuple[bool, str]]:
    """The .dockerignore patterns in order, as (excludes, pattern); ``!`` re-includes."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((not line.startswith("!"), line.lstrip("!").strip("/")))
    return rules


def in_context(relative: str, rules: list[tuple[bool, str]]) -> bool:
    """Whether the build context holds ``relative``: the last rule matching it or one of its
    parent directories decides (``*`` and ``**`` as in Docker, near enough for our patterns)."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    kept = True
    for excludes, pattern in rules:
        short = pattern.removeprefix("**/")
        if any(
            fnmatch.fnmatchcase(p, pattern) or fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], short)
            if pattern.startswith("**/")
            else fnmatch.fnmatchcase(p, pattern)
            for p in prefixes
        ):
            kept = not excludes
    return kept


def copy_in(sources: list[str], dest: Path, rules: list[tuple[bool, str]]) -> None:
    for source in sources:
        src = ROOT / source
        if not src.exists() or not in_context(source.strip("/"), rules):
            sys.exit(f"COPY source {source} is not in the build context (checkout, .dockerignore)")
        target = dest / Path(source).name if dest.is_dir() and len(sources) > 1 else dest
        if src.is_dir():
            for path in sorted(src.rglob("*")):
                relative = path.relative_to(ROOT).as_posix()
                if path.is_file() and in_context(relative, rules):
                    out = target / path.relative_to(src)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, out)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target if not target.is_dir() else target / src.name)


def main() -> int:
    keep = "--keep" in sys.argv
    text = (ROOT / "Dockerfile").read_text("utf-8")
    rules = ignore_rules((ROOT / ".dockerignore").read_text("utf-8"))
    build = next(s for s in stages(text) if s.name == "build")
    runtime = next(s for s in stages(text) if s.name == "runtime")
    top = Path(tempfile.mkdtemp(prefix="dockerfile-replay-"))

    def inside(path: str, workdir: Path) -> Path:
        return top / path.lstrip("/") if path.startswith("/") else workdir / path

    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    workdir = top
    try:
        for keyword, rest in build.instructions:
            if keyword == "ENV":
                for key, value in env_pairs(rest):
                    env[key] = str(inside(value, workdir)) if value.startswith("/") else value
            elif keyword == "WORKDIR":
                workdir = inside(rest, workdir)
                workdir.mkdir(parents=True, exist_ok=True)
            elif keyword == "COPY":
                *sources, dest = shlex.split(rest)
                target = inside(dest, workdir)
                if dest.endswith("/") or dest in (".", "./"):
                    target.mkdir(parents=True, exist_ok=True)
                copy_in(sources, target, rules)
            elif keyword == "RUN":
                print(f"+ RUN {rest}", flush=True)
                subprocess.run(
                    ["bash", "-euo", "pipefail", "-c", rest],
                    cwd=workdir,
                    env=env,
                    check=True,
                    timeout=RUN_TIMEOUT_S,
                )
        runtime_env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
        for keyword, rest in runtime.instructions:
            if keyword == "ENV":
                for key, value in env_pairs(rest):
                    value = value.replace("$PATH", runtime_env.get("PATH", ""))
                    value = re.sub(r"(^|:)/opt/venv", lambda m: m[1] + str(top / "opt/venv"), value)
                    runtime_env[key] = value
        runtime_env["VLLM_REPORT_DB"] = str(top / "data" / "mirror.sqlite3")
        runtime_env["VLLM_REPORT_HTTP_PORT"] = "9"  # nothing listens there
        entry = shlex.split(dict(runtime.instructions)["ENTRYPOINT"].strip("[]").replace(",", " "))
        result = subprocess.run(
            [*entry, "serve"], env=runtime_env, cwd=top, capture_output=True, text=True, timeout=120
        )
        print(result.stderr, end="")
        if result.returncode != 6 or "no chat front end is configured" not in result.stderr:
            print(f"FAIL: serve without tokens exited {result.returncode}", file=sys.stderr)
            return 1
        health = subprocess.run(
            ["python", "-m", "bot.process.healthcheck"],
            env=runtime_env,
            cwd=top,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if health.returncode != 1:
            print(f"FAIL: health check exited {health.returncode}", file=sys.stderr)
            return 1
        print("dockerfile install replay: ok")
        return 0
    finally:
        if keep:
            print(f"kept {top}")
        else:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
