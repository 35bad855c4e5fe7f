"""Facts about a submitted model, read from its Hub repo once, at submission time.

``HfApi.model_info(repo, expand=EXPAND)`` (anonymously: only what every visitor can see) gives
the commit ``sha`` the row is pinned to, the parameter count (``safetensors.total``, else the
safetensors headers, read in a bounded number of small requests: :class:`HeaderReader`), the
licence (``card_data.license``, or ``license_name`` for "other"), the architecture and whether
the repo is gated. They are
stored in the submission's record (the declared fields of :mod:`submissions.fields`), so the
board never asks the Hub again.

What a submitter hears: a missing or private repo is a field issue (the form is refused, nothing
stored: a typo would publish a dead link); a Hub that is down or rate-limits us (429) lets the
submission go on without the facts, with a warning that says so (a team does not lose its upload
to the Hub's quota; its row then shows no size, licence or revision).
"""

from __future__ import annotations

import json
import logging
import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx2
from huggingface_hub.errors import (
    HfHubHTTPError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from scoring.errors import Issue
from submissions.fields import HUB_FIELD, REVISION_FIELD, SIZE_FIELD

EXPAND = ["sha", "private", "gated", "safetensors", "cardData", "config", "transformersInfo"]
"""The ``model_info`` properties read (huggingface_hub's ``ExpandModelProperty_T`` names)."""
HEADER_BYTES = 100_000
"""The first read of a safetensors file (huggingface_hub's own first read): most headers fit."""
MAX_HEADER_BYTES = 1_000_000
"""The largest header read (a 90B model's, a few thousand tensors, is under 200 kB)."""
MAX_INDEX_BYTES = 1_000_000
"""The largest ``model.safetensors.index.json`` read (a 405B model's is about 120 kB)."""
MAX_SHARDS = 8
"""Shards whose headers are read; a repo listing more leaves its size unknown (the Hub's own
``safetensors`` summary gives it for every repo the Hub has indexed)."""
LOOKUP_SECONDS = 20.0
"""All the header reads of one lookup together."""
USER_AGENT = "cultural-vlm-leaderboard (model facts)"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelFacts:
    """What the Hub said about a model repo; empty values are unknown."""

    sha: str = ""
    params: int | None = None
    license: str = ""
    architecture: str = ""
    gated: str = ""  # "auto" or "manual"; "" when not gated

    def info(self) -> dict[str, str]:
        """The record's declared fields these facts fill in (submissions.fields)."""
        values = {
            REVISION_FIELD: self.sha,
            SIZE_FIELD: "" if self.params is None else str(self.params),
            "model_license": self.license,
            "model_architecture": self.architecture,
            "model_gated": self.gated,
        }
        return {k: v for k, v in values.items() if v}


@dataclass(frozen=True)
class Lookup:
    """The facts (None: none could be read), and a refusal or a warning for the submitter."""

    facts: ModelFacts | None = None
    refusal: Issue | None = None  # the repo is missing or private: the form is refused
    warning: Issue | None = None  # the Hub could not say (down, rate-limited): stored without facts


LookUp = Callable[[str], Lookup]


def _refused(repo: str) -> Lookup:
    why = (
        f"model_repo {repo!r} is not a public model on the Hugging Face Hub (missing, private or misspelt): "
        "check the id on its Hub page, or leave it empty for a model served only through an API"
    )
    return Lookup(refusal=Issue("model_repo_not_found", 0, HUB_FIELD, why))


def _unknown(repo: str, why: str) -> Lookup:
    text = f"The Hub could not be asked about {repo} ({why}): stored without its size, licence and revision."
    return Lookup(warning=Issue("model_info_missing", 0, HUB_FIELD, text))


class HubModels:
    """Reads :class:`ModelFacts` from a Hub (``endpoint`` None: huggingface_hub's, ``HF_ENDPOINT``)."""

    def __init__(self, endpoint: str | None = None, timeout: float = 5.0) -> None:
        self.endpoint, self.timeout = endpoint, timeout
        self._api = None

    @property
    def api(self):
        """The anonymous client (a private repo is not public facts), made on first use: importing
        HfApi costs every process that opens the leaderboard ~0.16 s of CPU (each CLI command)."""
        if self._api is None:
            from huggingface_hub import HfApi

            self._api = HfApi(endpoint=self.endpoint, token=False)
        return self._api

    def __call__(self, repo: str) -> Lookup:
        try:
            info = self.api.model_info(repo, expand=EXPAND, timeout=self.timeout)  # type: ignore[arg-type]
        except (RepositoryNotFoundError, RevisionNotFoundError):
            return _refused(repo)
        except HfHubHTTPError as e:
            status = e.response.status_code if e.response is not None else 0
            return _unknown(repo, "rate-limited, try again later" if status == 429 else f"HTTP {status}")
        except (OfflineModeIsEnabled, httpx2.HTTPError, OSError) as e:
            log.info("model info of %s not read: %s", repo, e)
            return _unknown(repo, "unreachable")
        if info.private:
            return _refused(repo)
        gated = info.gated if isinstance(info.gated, str) else ""
        facts = ModelFacts(
            sha=info.sha or "",
            params=info.safetensors.total if info.safetensors else self._params(repo, info.sha),
            license=_license(info.card_data),
            architecture=_architecture(info.config, info.transformers_info),
            gated=gated,
        )
        return Lookup(facts)

    def _params(self, repo: str, sha: str | None) -> int | None:
        """The parameter count from the safetensors headers (a repo the Hub has not indexed), from
        bounded facts only; None (unknown) when they do not give it."""
        files = HeaderReader(self.api.endpoint, repo, sha or "main", self.timeout)
        try:
            return files.parameter_count()
        except (httpx2.HTTPError, OSError, ValueError) as e:
            log.info("no safetensors parameter count for %s: %s", repo, e)  # gated files, GGUF-only repos, ...
            return None


class HeaderReader:
    """A repo's parameter count from its safetensors headers, read with a bounded number of small
    requests (attacks.md turn 4 #4: ``get_safetensors_metadata`` downloaded an index of any size
    into the server's Hugging Face cache and read a header for every shard it named: 2,006 Hub
    requests for one validate-only, a 73 MB index kept on disk for good).

    At most ``1 + 2 * (1 + MAX_SHARDS) + 1`` requests, each read at most ``MAX_HEADER_BYTES`` (an
    index ``MAX_INDEX_BYTES``), all within ``LOOKUP_SECONDS``, into memory only: nothing is written
    to the cache. More shards, a larger index or header, or no time left: the size is unknown."""

    def __init__(self, endpoint: str, repo: str, revision: str, timeout: float) -> None:
        self.endpoint, self.repo, self.revision, self.timeout = endpoint, repo, revision, timeout
        self.deadline = time.monotonic() + LOOKUP_SECONDS

    def parameter_count(self) -> int | None:
        with httpx2.Client(follow_redirects=True, headers={"user-agent": USER_AGENT}) as client:
            single = self._header(client, "model.safetensors")
            if single is not None:
                return _count(single) or None
            index = self._read(client, "model.safetensors.index.json", MAX_INDEX_BYTES + 1)
            if index is None or len(index) > MAX_INDEX_BYTES:
                return None  # no index, or one larger than any real model's
            shards = sorted(set(json.loads(index).get("weight_map", {}).values()))
            if not shards or len(shards) > MAX_SHARDS:
                return None
            headers = [self._header(client, str(name)) for name in shards]
            if any(h is None for h in headers):
                return None
            return sum(_count(h) for h in headers) or None  # type: ignore[arg-type]

    def _header(self, client: httpx2.Client, path: str) -> dict | None:
        """A safetensors file's JSON header (None: no such file); ValueError for one too large."""
        first = self._read(client, path, HEADER_BYTES)
        if first is None:
            return None
        if len(first) < 8:
            raise ValueError(f"{path}: not a safetensors file")
        (size,) = struct.unpack("<Q", first[:8])
        if size > MAX_HEADER_BYTES:
            raise ValueError(f"{path}: a header of {size:,} bytes (at most {MAX_HEADER_BYTES:,} are read)")
        body = first[8 : 8 + size]
        if len(body) < size:
            rest = self._read(client, path, size - len(body), start=len(first))
            body += rest or b""
        return json.loads(body)

    def _read(self, client: httpx2.Client, path: str, limit: int, start: int = 0) -> bytes | None:
        """Up to ``limit`` bytes of ``path`` from ``start`` (a Range request; a server that sends
        more is cut off there); None when the repo has no such file."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the Hub took over {LOOKUP_SECONDS:.0f} s to say the size")
        from huggingface_hub import hf_hub_url

        url = hf_hub_url(self.repo, path, revision=self.revision, endpoint=self.endpoint)
        headers = {"range": f"bytes={start}-{start + limit - 1}"}
        with client.stream("GET", url, headers=headers, timeout=min(self.timeout, left)) as response:
            if response.status_code == 404:
                return None
            response.raise_for_status()
            skip = start if response.status_code == 200 else 0  # the whole file came: skip to ``start``
            out = bytearray()
            for chunk in response.iter_bytes():
                out += chunk
                if len(out) >= skip + limit:
                    break
        return bytes(out[skip : skip + limit])


def _count(header: dict) -> int:
    """The parameters a safetensors header lists (its tensors' element counts)."""
    total = 0
    for name, tensor in header.items():
        if name != "__metadata__" and isinstance(tensor, dict):
            total += math.prod(int(n) for n in tensor.get("shape", []))
    return total


def look_up(endpoint: str | None, timeout: float, repo: str) -> Lookup:
    """:class:`HubModels` called in a worker process (module-level: it travels by name)."""
    return HubModels(endpoint, timeout)(repo)


class PooledModels:
    """Reads model facts in worker processes of their own (``run``: a ``WorkerPool.run``): the web
    process only waits for the small answer, and a lookup's memory and sockets are the worker's."""

    def __init__(self, run: Callable[..., Lookup], endpoint: str | None, timeout: float = 5.0) -> None:
        self.run, self.endpoint, self.timeout = run, endpoint, timeout

    def __call__(self, repo: str) -> Lookup:
        try:
            return self.run(f"reading the facts of {repo}", look_up, self.endpoint, self.timeout, repo)
        except Exception as e:  # noqa: BLE001 - a worker that died must not lose the upload
            log.error("model facts of %s not read: %s", repo, e)
            return _unknown(repo, "the lookup stopped")


def _license(card: object) -> str:
    license = str(getattr(card, "license", "") or "")
    name = str(getattr(card, "license_name", "") or "")
    if isinstance(getattr(card, "license", None), list):
        license = ", ".join(map(str, card.license))  # type: ignore[union-attr]
    return name if (license in ("", "other") and name) else license


def _architecture(config: dict | None, transformers_info: object) -> str:
    names = (config or {}).get("architectures") or []
    if names and isinstance(names, list):
        return str(names[0])
    return str(getattr(transformers_info, "auto_model", "") or "")
