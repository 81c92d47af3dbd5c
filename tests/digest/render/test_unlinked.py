"""Text that no platform can link: addresses cut out as code spans."""

from __future__ import annotations

from digest.models import ItemRef, Text
from digest.render.unlinked import unlinked


def test_addresses_become_code_and_the_rest_keeps_its_style() -> None:
    """An address in plain or bold text becomes code; the text around it keeps its style."""
    spans = (Text("run evil.example/fix.sh now"), Text("mail dev@example.com", "bold"))
    assert unlinked(spans) == (
        Text("run "),
        Text("evil.example/fix.sh", "code"),
        Text(" now"),
        Text("mail ", "bold"),
        Text("dev@example.com", "code"),
    )


def test_links_code_and_plain_names_are_left_alone() -> None:
    """References, code spans and names that only look like hosts are unchanged."""
    spans = (
        ItemRef(1, "https://github.com/o/r/issues/1", "see example.com"),
        Text("https://evil.example", "code"),
        Text("torch.compile reads config.json"),
    )
    assert unlinked(spans) == spans
