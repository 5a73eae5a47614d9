"""What the audience asks for: comments kept as data, typed as demand, clustered by meaning."""
