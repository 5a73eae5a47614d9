"""Buying credits: top-up links and keyless checkout through a payment provider (Stripe, or
the local provider of the demo), the provider's webhooks, and completing a payment — which
grants the credits through the ledger (`sors.billing`) exactly once per checkout session."""
