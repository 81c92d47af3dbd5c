"""GitHub REST client."""
