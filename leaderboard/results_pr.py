"""Open the pull request that adds a row's ``.eval_results`` file to its model repo, as its owner.

``HfApi.create_commit(..., create_pr=True)`` with the signed-in owner's own OAuth token: the Hub
opens a pull request (``refs/pr/N``) that the model repo's owners merge or not; until then the
figures show on the model page as "community". The app's own token (``HF_TOKEN``, which writes the
leaderboard's datasets) is never used here, so the app cannot write to anyone's model repo. An
account that cannot write the repo can still open the pull request (a community contribution);
the OAuth app needs the ``write-discussions`` scope for it (docs/deployment-identity.md).

What the pull request says depends on who opens it (:func:`may_write`, asked of the Hub's whoami with
the same token): an account that may write the model repo (its namespace is the account, or an
organisation where its role is write or admin) opens "results verified by the leaderboard"; anyone
else a community submission that says the leaderboard scored a file naming the model and did not check
who made the model (hub-docs ``docs/hub/eval-results.md``: an open pull request shows as "community",
and the Hub's own "verified" badge needs a ``verifyToken`` from its jobs, which no file here carries).
When the Hub cannot say, the pull request is a community one.

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
    community: bool = False  # opened by an account the Hub does not show as able to write the repo

    @property
    def opened(self) -> bool:
        return bool(self.url)


WRITE_ROLES = frozenset({"admin", "write"})
"""Roles in an organisation (``roleInOrg``) that may write its repos; ``contributor`` and ``read`` may not
write a repo they did not make, so they count as not writing (the safe side)."""


def may_write(repo_id: str, token: str, endpoint: str | None = None) -> bool:
    """Whether the token's account may write ``repo_id``, as the Hub's ``whoami-v2`` shows it: the
    repo's namespace is the account or one of its organisations with a :data:`WRITE_ROLES` role.
    False when the Hub cannot say (refused, down): the pull request is then a community one."""
    from huggingface_hub import HfApi  # imported here, as in open_pull_request: ~0.16 s of CPU per process
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    try:
        me = HfApi(endpoint=endpoint, token=token).whoami()
    except (HfHubHTTPError, OfflineModeIsEnabled, httpx2.HTTPError, OSError, ValueError) as e:
        log.info("whoami for the pull request on %s failed: %s", repo_id, e)
        return False
    namespace = repo_id.split("/")[0].lower()
    if str(me.get("name", "")).lower() == namespace:
        return True
    orgs = me.get("orgs") if isinstance(me.get("orgs"), list) else []
    return any(
        isinstance(o, dict) and str(o.get("name", "")).lower() == namespace and o.get("roleInOrg") in WRITE_ROLES
        for o in orgs
    )


def pull_request_words(benchmark: str, row_link: str, writer: bool) -> tuple[str, str]:
    """(title, description) of the pull request: "verified" only for an account that may write the repo."""
    if writer:
        return (
            f"Add {benchmark} results verified by the leaderboard",
            f"Scores of this model on {benchmark}, as its verified row shows them: {row_link}",
        )
    return (
        f"Add {benchmark} results scored by the leaderboard (community submission)",
        f"A community submission: a leaderboard account that cannot write this repo sent a predictions file "
        f"naming this model, and the leaderboard scored that file. It has not checked who made the model or "
        f"its predictions; the model's owners decide whether to merge. The row: {row_link}",
    )


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
