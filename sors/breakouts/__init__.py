"""Breakouts: ideas (hashtags, caption phrases, formats, sounds) that several creators of a
niche each turned into an outlier within a time frame."""
