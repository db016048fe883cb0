import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # for the oracle module

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture
def board(tmp_path):
    """``board(text)``: the path of a new instance file holding ``text``."""
    def make(text, name="b.txt"):
        p = tmp_path / name
        p.write_text(text)
        return p

    return make
