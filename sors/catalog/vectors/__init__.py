"""Post vectors for search by meaning: the model seam, the writes and the indexes."""
