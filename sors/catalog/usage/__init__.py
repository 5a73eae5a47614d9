"""What the catalog's posts use, over time: sounds, hashtags, and the boilerplate that says
nothing about a niche (docs/API.md, "Sounds", "Hashtags over time")."""
