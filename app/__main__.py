"""``python -m app``: start the studio (same as the ``mbstudio`` console script)."""

import sys

from app.cli import main

sys.exit(main())
