"""What a niche's outliers have in common: trends, themes, comparisons, trending."""
