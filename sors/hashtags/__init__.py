"""Hashtags over time: which grow in posts and creators, and whose posts outperform."""
