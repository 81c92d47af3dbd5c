"""The digest core: fetch, mirror, analyse and write reports; no chat SDK, no environment."""
