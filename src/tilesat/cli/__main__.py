"""``python -m tilesat.cli``: the same as the ``tilesat`` command."""

import sys

from ..main import main

sys.exit(main())
