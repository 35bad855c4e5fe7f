"""Test-wide settings. The Hub client reads its constants at import: set them first."""

import os
import tempfile

os.environ["HF_HUB_DISABLE_XET"] = "1"
os.environ.setdefault("HF_TOKEN", "hf_test_dummy_token")
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="hf-home-")
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

pytest_plugins = ["tests.support.hub_fixture"]

collect_ignore = ["toy_benchmark.py"]
"""A plugin registers its benchmark on import: doctest collection must not import it for every
test (test_third_benchmark registers it for one test at a time)."""
