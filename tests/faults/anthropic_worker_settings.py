"""A worker's settings for fault tests: the test settings with the Anthropic reflection engine on.

The worker's Anthropic SDK talks to the test's local stand-in (ANTHROPIC_BASE_URL, which the SDK
reads itself), never the real API.
"""

from tests.settings import *  # noqa: F403

ANTHROPIC_API_KEY = "sk-faults-test"
