"""Facts about a submitted model, read from its Hub repo once, at submission time.

``HfApi.model_info(repo, expand=EXPAND)`` (anonymously: only what every visitor can see) gives
the commit ``sha`` the row is pinned to, the parameter count (``safetensors.total``, else the
safetensors headers through ``get_safetensors_metadata``), the licence (``card_data.license``,
or ``license_name`` for "other"), the architecture and whether the repo is gated. They are
stored in the submission's record (the declared fields of :mod:`submissions.fields`), so the
board never asks the Hub again.

What a submitter hears: a missing or private repo is a field issue (the form is refused, nothing
stored: a typo would publish a dead link); a Hub that is down or rate-limits us (429) lets the
submission go on without the facts, with a warning that says so (a team does not lose its upload
to the Hub's quota; its row then shows no size, licence or revision).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import httpx2
from huggingface_hub import HfApi
from huggingface_hub.errors import (
    HfHubHTTPError,
    NotASafetensorsRepoError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
    SafetensorsParsingError,
)

from scoring.errors import Issue
from submissions.fields import HUB_FIELD, REVISION_FIELD, SIZE_FIELD

EXPAND = ["sha", "private", "gated", "safetensors", "cardData", "config", "transformersInfo"]
"""The ``model_info`` properties read (huggingface_hub's ``ExpandModelProperty_T`` names)."""
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
        self.api = HfApi(endpoint=endpoint, token=False)  # anonymous: a private repo is not public facts
        self.timeout = timeout

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
        """The parameter count from the safetensors headers (a repo the Hub has not indexed)."""
        try:
            meta = self.api.get_safetensors_metadata(repo, revision=sha, timeout=self.timeout)
        except (NotASafetensorsRepoError, SafetensorsParsingError, HfHubHTTPError, httpx2.HTTPError, OSError) as e:
            log.info("no safetensors parameter count for %s: %s", repo, e)  # gated files, GGUF-only repos, ...
            return None
        total = sum(meta.parameter_count.values())
        return total or None


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
