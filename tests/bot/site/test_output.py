"""The output directory: a build is swapped in whole; an interrupted one leaves the old site."""

from __future__ import annotations

from pathlib import Path

from bot.site.output import Output


def _site(out: Path, text: str) -> None:
    output = Output(out)
    output.write("index.html", text)
    output.write("a/b/index.html", text, digest_hash="h-" + text)
    output.commit()


def test_commit_replaces_the_site(tmp_path: Path) -> None:
    """After a commit the directory holds exactly the new site; no temporary is left over."""
    out = tmp_path / "site"
    _site(out, "one")
    output = Output(out)
    output.write("index.html", "two")
    output.commit()
    assert (out / "index.html").read_text() == "two"
    assert not (out / "a").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_failed_build_leaves_the_previous_site(tmp_path: Path) -> None:
    """A build that raises before its swap changes nothing that is served."""
    out = tmp_path / "site"
    _site(out, "one")
    output = Output(out)
    output.write("index.html", "half")
    output.abort()
    assert (out / "index.html").read_text() == "one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_killed_build_is_cleaned_up_and_a_set_aside_site_restored(tmp_path: Path) -> None:
    """A temporary left by a killed build is removed; a site moved aside mid-swap comes back."""
    out = tmp_path / "site"
    _site(out, "one")
    (tmp_path / ".site.tmp-99999").mkdir()
    out.rename(tmp_path / ".site.old-99999")  # killed between the two renames
    output = Output(out)
    assert (out / "index.html").read_text() == "one"
    assert output.unchanged("a/b/index.html", "h-one")
    output.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_unchanged_pages_are_copied_changed_ones_not(tmp_path: Path) -> None:
    """A page whose hash matches the previous build is copied; another hash is not."""
    out = tmp_path / "site"
    _site(out, "one")
    output = Output(out)
    assert not output.unchanged("a/b/index.html", "h-other")
    assert output.unchanged("a/b/index.html", "h-one")
    output.commit()
    assert (out / "a/b/index.html").read_text() == "one"
    assert output.reused == 1
