"""A scored result in the shapes the benchmarks' own sites take: each declaration carries its own
(``scoring.benchmarks.site_exports``); these names stay importable from here."""

from scoring.benchmarks.site_exports import (
    KVISCUIT_TYPES,
    LENIENT_MARK,
    SCB_GROUPS,
    SCB_OFFICIAL_FIELDS,
    SiteRow,
    kviscuit_markdown,
    kviscuit_paper,
    scb_official,
)

__all__ = [
    "KVISCUIT_TYPES",
    "LENIENT_MARK",
    "SCB_GROUPS",
    "SCB_OFFICIAL_FIELDS",
    "SiteRow",
    "kviscuit_markdown",
    "kviscuit_paper",
    "scb_official",
]
