"""A real SMTP server on 127.0.0.1 (aiosmtpd), in a thread: what the email tests send to."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller


@dataclass(frozen=True)
class Received:
    sender: str
    to: list[str]
    raw: bytes


@dataclass
class Inbox:
    messages: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos),
                                      bytes(envelope.original_content or envelope.content)))
        return "250 Message accepted for delivery"


def free_port() -> int:
    """A loopback port nothing listens on (at the moment it is asked)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def smtp_on_loopback() -> Iterator[tuple[Inbox, int]]:
    """A running server and its inbox: (inbox, port)."""
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
