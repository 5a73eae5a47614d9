"""The catalog's records: posts and profiles as the API shows them, their reads and endpoints."""
