"""Writing the catalog: crawls and imports in, scores, curves, projections, freshness and spend."""
