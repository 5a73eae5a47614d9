"""The catalog keeper: keeps the catalog fresh on its own — discovery of new creators from the
platforms' listings and budgeted refresh and first crawls, queued by the scheduler."""
