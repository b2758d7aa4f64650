"""Top-level conftest: pytester for the plugin tests, and no network for models.

Nothing here is needed by users of the plugin; it only sets up this repository's runs.
"""

import os

pytest_plugins = ["pytester"]

# Never wait on a model hub: every model this project tests with is local.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
