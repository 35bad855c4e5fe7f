"""Open the pull request that adds a row's ``.eval_results`` file to its model repo, as its owner.

``HfApi.create_commit(..., create_pr=True)`` with the signed-in owner's own OAuth token: the Hub
opens a pull request (``refs/pr/N``) that the model repo's owners merge or not; until then the
figures show on the model page as "community". The app's own token (``HF_TOKEN``, which writes the
leaderboard's datasets) is never used here, so the app cannot write to anyone's model repo. An
account that cannot write the repo can still open the pull request (a community contribution);
the OAuth app needs the ``write-discussions`` scope for it (docs/deployment-identity.md).

Every refusal of the Hub comes back as one sentence for the owner: missing or private repo,
token without the scope or discussions closed (403), expired sign-in (401), quota (429), Hub down.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING:
    from huggingface_hub.errors import HfHubHTTPError

log = logging.getLogger(__name__)
PR_SCOPE = "write-discussions"
"""The OAuth scope a Space's ``hf_oauth_scopes`` must list for its visitors to open pull requests."""


@dataclass(frozen=True)
class PullRequest:
    """What the Hub answered: the pull request's address, or why none was opened."""

    url: str = ""
    refusal: str = ""

    @property
    def opened(self) -> bool:
        return bool(self.url)


@dataclass(frozen=True)
class ResultsFile:
    """The file to add: its path in the repo, its text, and the pull request's words."""

    repo_id: str
    path: str
    text: str
    title: str
    description: str


def _why(repo_id: str, error: HfHubHTTPError) -> str:
    status = error.response.status_code if error.response is not None else 0
    said = str(error).splitlines()[0] if str(error) else f"HTTP {status}"
    if status == 401:
        return (
            f"The Hub did not accept your sign-in for {repo_id} (it may have expired): sign out and in again. ({said})"
        )
    if status == 403:
        return (
            f"The Hub refused a pull request on {repo_id} for your account: its discussions may be closed, or "
            f"your sign-in lacks the {PR_SCOPE} scope. ({said})"
        )
    if status == 429:
        return "The Hub is rate-limiting your account: try again in a few minutes."
    return f"The Hub answered HTTP {status} for {repo_id}: try again later. ({said})"


def open_pull_request(file: ResultsFile, token: str, endpoint: str | None = None, timeout: float = 20.0) -> PullRequest:
    """Open the pull request with ``token`` (the owner's, never the app's); a refusal otherwise."""
    # Imported here: HfApi costs every process that imports this module ~0.16 s of CPU (each CLI command).
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError

    api = HfApi(endpoint=endpoint, token=token)
    operation = CommitOperationAdd(path_in_repo=file.path, path_or_fileobj=file.text.encode("utf-8"))
    try:
        info = api.create_commit(
            file.repo_id,
            [operation],
            commit_message=file.title,
            commit_description=file.description,
            repo_type="model",
            create_pr=True,
        )
    except RepositoryNotFoundError:
        return PullRequest(refusal=f"{file.repo_id} is not a model repo your account can see on the Hub.")
    except HfHubHTTPError as e:
        return PullRequest(refusal=_why(file.repo_id, e))
    except (OfflineModeIsEnabled, httpx2.HTTPError, OSError) as e:
        log.info("pull request on %s not opened: %s", file.repo_id, e)
        return PullRequest(refusal="The Hub could not be reached: try again later.")
    return PullRequest(url=info.pr_url or "")
