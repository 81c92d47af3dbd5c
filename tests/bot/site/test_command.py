"""`vllm-report site build` from the command line: the site, its summary line, its errors."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub
from tests.support.scope_core import scope_rows, scope_yaml
from tests.support.synthetic import generate

REPO = "vllm-project/vllm"


async def _cli(*args: str, env: dict[str, str], tmp: Path) -> tuple[int, str, str]:
    full = {**os.environ, "VLLM_REPORT_DB": str(tmp / "mirror.sqlite3"), **env}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        *args,
        env=full,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=180)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_site_build_writes_the_site(tmp_path: Path) -> None:
    """`site build --days 2` writes two days in two languages and says so in one line."""
    now = datetime.now(UTC).replace(microsecond=0)
    data = generate(days=3, now=now, seed=5)
    async with FakeGitHub() as github:
        github.add_repo(REPO, issues=data.issues, comments=data.comments)
        env = {"GITHUB_API_URL": github.url, "VLLM_REPORT_SITE_URL": "https://reports.example/"}
        out = tmp_path / "public"
        code, stdout, err = await _cli(
            "site", "build", "--days", "2", "--out", str(out), "--no-search", env=env, tmp=tmp_path
        )
    assert code == 0, err
    pages = len(list(out.rglob("*.html")))  # the days, indexes, months, years and topics
    assert pages >= 8 + 2 + 2 + 2
    assert stdout.startswith(
        f"Wrote {pages} pages to {out} (4 rendered, 0 unchanged, 1 pending days"
    )
    assert "without search" in stdout
    assert len(list((out / "vllm-project" / "vllm").glob("*-*-*/zh/index.html"))) == 2
    feed = (out / "vllm-project" / "vllm" / "feed.en.xml").read_text("utf-8")
    assert 'href="https://reports.example/vllm-project/vllm/feed.en.xml"' in feed


async def test_site_dir_setting_is_the_default_output(tmp_path: Path) -> None:
    """Without --out the site goes to VLLM_REPORT_SITE_DIR."""
    async with FakeGitHub() as github:
        github.add_repo(REPO)
        env = {"GITHUB_API_URL": github.url, "VLLM_REPORT_SITE_DIR": str(tmp_path / "www")}
        code, _, err = await _cli(
            "site", "build", "--days", "1", "--lang", "en", env=env, tmp=tmp_path
        )
    assert code == 0, err
    assert (tmp_path / "www" / "vllm-project" / "vllm" / "index.html").is_file()
    assert not list((tmp_path / "www" / "vllm-project" / "vllm").glob("*/zh"))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--lang", "fr"), "--lang takes zh, en or zh,en"),
        (("--days", "0"), "--days takes 1 to 366"),
        (("--since", "yesterday"), "--since takes a date like 2026-03-10"),
        (("--repo", "not a repo"), "is not a repository"),
        (("--days", "3", "--since", "2026-01-01"), "not allowed with argument"),
        (("--scope", "nowhere"), "unknown scope 'nowhere'"),
    ],
)
async def test_bad_arguments_are_usage_errors(
    args: tuple[str, ...], words: str, tmp_path: Path
) -> None:
    """A bad option is exit code 2 with a one-line reason, and writes nothing."""
    code, _, err = await _cli(
        "site", "build", "--out", str(tmp_path / "s"), *args, env={}, tmp=tmp_path
    )
    assert code == 2
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()


async def test_site_build_of_a_scope_writes_only_that_scope(tmp_path: Path) -> None:
    """`site build --scope serving` writes the scope's pages under scopes/serving/, its
    repositories synced, and nothing of the repositories named alone."""
    async with FakeGitHub() as github:
        for repo, (issues, comments) in scope_rows().items():
            github.add_repo(repo, issues=issues, comments=comments)
        env = {"GITHUB_API_URL": github.url}
        out = tmp_path / "public"
        config = scope_yaml(tmp_path / "scopes.yaml")
        code, stdout, err = await _cli(
            "site", "build", "--scope", "SERVING", "--days", "1", "--lang", "en", "--no-search",
            "--config", str(config), "--out", str(out), env=env, tmp=tmp_path,
        )  # fmt: skip
    assert code == 0, err
    assert stdout.startswith(f"Wrote 7 pages to {out} (1 rendered, 0 unchanged, 1 pending")
    assert len(list((out / "scopes" / "serving").glob("*-*-*/en/index.html"))) == 1
    assert 'href="scopes/serving/"' in (out / "index.html").read_text("utf-8")
    assert not (out / "vllm-project").exists() and not (out / "sgl-project").exists()
    assert {r.path.split("/")[3] for r in github.requests if r.path.startswith("/repos/")} == {
        "vllm",
        "sglang",
    }


async def test_unwritable_output_is_a_configuration_error(tmp_path: Path) -> None:
    """An output path under a regular file is exit code 6 with a clear message."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    async with FakeGitHub() as github:
        github.add_repo(REPO)
        code, _, err = await _cli(
            "site",
            "build",
            "--days",
            "1",
            "--out",
            str(blocker / "site"),
            env={"GITHUB_API_URL": github.url},
            tmp=tmp_path,
        )
    assert code == 6, err
    assert f"cannot write the site to {blocker / 'site'}" in err and "Traceback" not in err


async def test_site_build_of_a_repository_off_the_allow_list_is_refused(tmp_path: Path) -> None:
    """With an allow-list, `site build --repo` of another repository exits 2 naming the list,
    and GitHub is never asked."""
    async with FakeGitHub() as github:
        env = {"GITHUB_API_URL": github.url, "VLLM_REPORT_ALLOWED_REPOS": "vllm-project/*"}
        code, _, err = await _cli(
            "site",
            "build",
            "--repo",
            "other/repo",
            "--out",
            str(tmp_path / "s"),
            env=env,
            tmp=tmp_path,
        )
        assert github.requests == []
    assert code == 2
    assert "other/repo is not on this bot's list of allowed repositories" in err
    assert "vllm-project/*" in err and "Traceback" not in err


async def test_a_scope_of_an_owners_repositories_has_no_archive(tmp_path: Path) -> None:
    """Beside a scope of listed repositories, one of ``owner/*`` (a different set each day) is
    left out of a plain `site build`, and naming it is refused with why, exit 2."""
    config = tmp_path / "scopes.yaml"
    config.write_text(
        "scopes:\n"
        "  serving: {repos: [vllm-project/vllm, sgl-project/sglang]}\n"
        "  amd: {repos: ['ROCm/*']}\n",
        "utf-8",
    )
    async with FakeGitHub() as github:
        for repo, (issues, comments) in scope_rows().items():
            github.add_repo(repo, issues=issues, comments=comments)
        env = {"GITHUB_API_URL": github.url}
        out = tmp_path / "public"
        common = ("--days", "1", "--lang", "en", "--no-search", "--config", str(config))
        code, _, err = await _cli(
            "site", "build", *common, "--out", str(out), env=env, tmp=tmp_path
        )
        assert code == 0, err
        assert (out / "scopes" / "serving").is_dir() and not (out / "scopes" / "amd").exists()
        assert not [r for r in github.requests if "ROCm" in r.path]
        code, _, err = await _cli(
            "site", "build", "--scope", "amd", *common, "--out", str(out), env=env, tmp=tmp_path
        )
    assert code == 2
    assert "no archive of scope 'amd'" in err and "ROCm/*" in err and "Traceback" not in err
