"""The YouTube Data API v3 source: exact counts for a key's daily quota."""
