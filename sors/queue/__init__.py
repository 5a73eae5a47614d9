"""The job queue: the `jobs` table (a job's record is its queue row) and its queries —
insert with a dedupe key, claim with SKIP LOCKED, heartbeat, settle. The lowest of the core:
the events outbox queues its deliveries here, and `sors.jobs` (the engine, settling, refunds,
the scheduler) builds on it."""
