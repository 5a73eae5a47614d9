"""The scrapers: each platform's public web pages and yt-dlp, no key needed."""
