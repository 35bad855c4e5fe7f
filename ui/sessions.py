"""A visitor's Gradio session, built on demand: what the first event of a page costs.

Gradio 6.31.0 makes a session on a visitor's first event (``StateHolder.__getitem__``,
``state_holder.py:28-33``), and ``SessionState.__init__`` (``state_holder.py:65-81``) computes
the config of every block of the page up front (``BlocksConfig.config_for_block``: each block's
``get_config`` with an ``inspect.signature`` of its class, and its API info). For this page's
~170 blocks that is about 10 ms of CPU, more than half of what a page view with one view change
costs (``perf/page_cost.py``, profiled with py-spy). The server reads those configs in one place
only: Gradio's deep-link endpoint (``routes.py:855-872``, the state a ``gr.DeepLinkButton``
saves, through ``SessionState.components``); events write to them when they change a block
(``_update_value_in_config``, ``_update_config``, ``__setitem__``).

:class:`ConfigsOnDemand` is that mapping, each block's entry computed the first time it is read,
as ``__init__`` would have computed it; walking it (the deep-link endpoint) computes the rest
first. The one difference: an entry nobody changed is computed from the block as it is when read,
so after :mod:`ui.baked` re-bakes the page a deep link saves the newer default instead of the
default at the session's first event. The app has no deep-link button, and a newer default is what
a fresh page would show. :class:`SessionOnDemand` defers what events write in the same way (the
block to compute from, and the value to put in it), so an event computes no config either.
Sessions also keep less: 0.02 MB each instead of 0.69 MB with 1,000-row boards
(``perf/session_memory.py``).

:class:`NoSavedStates` closes that endpoint: the app has no deep-link button (its links are
addresses, :mod:`ui.links`), and each call wrote the whole state of a session (every component's
config and value, of the order of the page's config: 340 KiB with the demo boards) into a file
under Gradio's upload folder, one per distinct state, which nothing deletes: a visitor varying a
search box between calls could fill the disk.

:func:`build_sessions_on_demand` swaps the running app's state holder for :class:`SessionsOnDemand`
(its class only: the sessions already made stay). ``tests/ui/test_sessions_on_demand.py`` pins
the copy of ``SessionState.__init__`` below against gradio's own, entry for entry.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator, MutableMapping
from copy import copy
from typing import Any

import gradio as gr
from gradio.blocks import Block, BlocksConfig
from gradio.components import State
from gradio.state_holder import SessionState, StateHolder

_UNSET = object()  # no value set by an event: the block's own


class ConfigsOnDemand(MutableMapping):
    """``SessionState.config_values``, each block's config computed when first read (module doc).

    A pending entry is the block to compute it from and, if an event set one, the value to put
    in its ``props`` afterwards: what ``SessionState`` would have computed and then overwritten."""

    def __init__(self, blocks_config: BlocksConfig, ids: list[int]) -> None:
        self._ids = ids  # the eager dict's order, kept when walking
        self._pending: dict[int, tuple[Block, Any]] = {i: (blocks_config.blocks[i], _UNSET) for i in ids}
        self._computed: dict[int, dict] = {}

    def compute_later(self, block_id: int, block: Block, value: Any = _UNSET) -> None:
        """The entry of ``block_id`` is ``block``'s config (with ``value``), when read."""
        self._computed.pop(block_id, None)
        self._pending[block_id] = (block, value)

    def set_value(self, block_id: int, value: Any, block: Block) -> None:
        """``props.value`` of the entry is ``value``; ``block`` computes an entry that has none."""
        if block_id in self._computed:
            if "props" in self._computed[block_id]:
                self._computed[block_id]["props"]["value"] = value
        else:
            self._pending[block_id] = (self._pending.get(block_id, (block,))[0], value)

    def _compute(self, block_id: int) -> dict:
        block, value = self._pending.pop(block_id)
        config = BlocksConfig.config_for_block(block_id, [], block)
        if value is not _UNSET and "props" in config:
            config["props"]["value"] = value
        self._computed[block_id] = config
        return config

    def __getitem__(self, block_id: int) -> dict:
        if block_id in self._computed:
            return self._computed[block_id]
        if block_id in self._pending:
            return self._compute(block_id)
        raise KeyError(block_id)

    def __setitem__(self, block_id: int, config: dict) -> None:
        self._pending.pop(block_id, None)
        self._computed[block_id] = config

    def __delitem__(self, block_id: int) -> None:
        if self._pending.pop(block_id, None) is None:
            del self._computed[block_id]

    def __contains__(self, block_id: object) -> bool:
        return block_id in self._computed or block_id in self._pending

    def __iter__(self) -> Iterator[int]:
        for block_id in list(self._pending):
            self._compute(block_id)
        first = [i for i in self._ids if i in self._computed]
        seen = set(first)
        return iter(first + [i for i in self._computed if i not in seen])

    def __len__(self) -> int:
        return len(self._computed) + len(self._pending)


class SessionOnDemand(SessionState):
    """``SessionState`` whose ``config_values`` is a :class:`ConfigsOnDemand`: every attribute as
    ``SessionState.__init__`` sets it, and the three methods that write configs deferring the
    computation to the first read (gradio 6.31.0, ``state_holder.py:65-130``)."""

    config_values: ConfigsOnDemand

    def __init__(self, blocks: gr.Blocks) -> None:
        self.blocks_config = copy(blocks.default_config)
        ids = [k for k in self.blocks_config.blocks if k in blocks.blocks]
        self.config_values = ConfigsOnDemand(self.blocks_config, ids)
        self.state_data: dict[int, Any] = {}
        self._state_ttl = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600

    def __setitem__(self, key: int, value: Any) -> None:
        block = self.blocks_config.blocks.get(key)
        if isinstance(block, State):
            self._state_ttl[key] = (block.time_to_live, datetime.datetime.now())
            self.state_data[key] = value
        else:
            self.blocks_config.blocks[key] = value
        if block:  # gradio computes this entry from the block being replaced
            self.config_values.compute_later(key, block)

    def _update_config(self, key: int) -> None:
        if self[key] is not None:
            self.config_values.compute_later(key, self[key])

    def _update_value_in_config(self, key: int, value: Any) -> None:
        self.config_values.set_value(key, value, self.blocks_config.blocks[key])


class SessionsOnDemand(StateHolder):
    """Gradio's ``StateHolder`` (capacity, LRU eviction, expiry unchanged) making
    :class:`SessionOnDemand` sessions."""

    def __getitem__(self, session_id: str) -> SessionState:
        if session_id not in self.session_data:
            self.session_data[session_id] = SessionOnDemand(self.blocks)
        return super().__getitem__(session_id)


SAVED_STATE_PATH = "/gradio_api/deep_link"


class NoSavedStates:
    """ASGI middleware answering 404 to Gradio's save-this-session endpoint (module doc)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"].rstrip("/").endswith(SAVED_STATE_PATH):
            body = b'{"detail":"Not Found"}'
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 404, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def build_sessions_on_demand(page: gr.Blocks) -> None:
    """Make the launched ``page`` build its sessions on demand (call after ``launch``)."""
    holder = page.state_holder
    if type(holder) is not StateHolder and not isinstance(holder, SessionsOnDemand):
        raise TypeError(f"unexpected Gradio state holder {type(holder).__name__}: not replacing it")
    holder.__class__ = SessionsOnDemand
