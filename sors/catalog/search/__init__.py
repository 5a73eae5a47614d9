"""Searching the catalog: by words, filters and scores, by meaning, and as CSV."""
