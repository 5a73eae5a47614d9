"""Rising posts: young posts running above their creator's own curve, found before any outlier
score."""
