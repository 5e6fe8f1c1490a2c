"""`python -m research ...`: see research/cli.py."""

import sys

from research.cli.main import main

sys.exit(main())
