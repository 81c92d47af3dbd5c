"""Settings schema and the default configuration."""

from config.settings import AppConfig, RepoConfig, Settings, TopicConfig, load_config

__all__ = ["AppConfig", "RepoConfig", "Settings", "TopicConfig", "load_config"]
