"""Front ends: command grammar, Slack, Discord, CLI, scheduler and the composition root."""
