"""Where a team reaches the maintainers: one line shown wherever a message may send a team to them
(Submit, My submissions, About). ``LEADERBOARD_CONTACT`` (a URL or an e-mail address), else on a
Space its community discussions, else a note that none is configured (leaderboard.config)."""

from __future__ import annotations

from leaderboard.config import Settings
from ui.display import escape_markdown


def contact_markdown(settings: Settings) -> str:
    url = settings.contact_url
    if url is None:
        return "**Contact**: no maintainer contact is configured for this leaderboard (`LEADERBOARD_CONTACT`)."
    where = "the Space's community discussions" if not settings.contact else escape_markdown(settings.contact)
    return f"**Contact the maintainers** (a held submission, a team name, a question): [{where}]({url})."
