"""Loaded at start by a child app whose PYTHONPATH holds this folder (tests/ui/test_reader_app.py):
an audit hook (PEP 578) that records every open, listing or folder creation under the folders
named in ``AUDIT_FORBIDDEN`` (os.pathsep-separated) into ``AUDIT_LOG``. The hook sees every
path Python itself opens, whichever library asks."""

from __future__ import annotations

import os
import sys

_FORBIDDEN = tuple(os.path.abspath(p) for p in os.environ.get("AUDIT_FORBIDDEN", "").split(os.pathsep) if p)
_EVENTS = {"open", "os.listdir", "os.scandir", "os.mkdir", "os.rename", "os.remove"}


def _install() -> None:
    if not _FORBIDDEN or not os.environ.get("AUDIT_LOG"):
        return
    log = os.open(os.environ["AUDIT_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)  # before the hook

    def hook(event: str, args: tuple) -> None:
        if event not in _EVENTS or not args or not isinstance(args[0], str | bytes | os.PathLike):
            return
        path = os.path.abspath(os.fsdecode(args[0]))
        if any(path == f or path.startswith(f + os.sep) for f in _FORBIDDEN):
            os.write(log, f"{event} {path}\n".encode())

    sys.addaudithook(hook)


_install()
