"""The events outbox (core floor): what happened, written in the transaction that made it
happen, with one delivery per subscribed endpoint. Domains build their own payloads and call
`sors.events.service.emit`; webhooks is the consumer that delivers them."""
