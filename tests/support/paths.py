"""Where the project and its test data are, for tests that start processes or read samples."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SAMPLE = DATA / "vllm-2026-01-31.json"
