"""The Apify source: a data provider's actors, for TikTok, Instagram and YouTube."""
