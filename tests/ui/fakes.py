"""Stand-ins for what Gradio hands a callback: a request with headers and an OAuth profile."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Client:
    host: str


@dataclass(frozen=True)
class Request:
    headers: dict[str, str] = field(default_factory=dict)
    client: Client | str = "127.0.0.1"

    def __post_init__(self) -> None:
        if isinstance(self.client, str):
            object.__setattr__(self, "client", Client(self.client))


@dataclass(frozen=True)
class Profile:
    username: str


def bearer(token: str) -> Request:
    return Request({"authorization": f"Bearer {token}"})
