"""The demo's simulated world: seeding it through the real ingest path and building it in the
background while `sors demo` serves."""
