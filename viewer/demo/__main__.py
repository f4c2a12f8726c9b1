"""``python -m viewer.demo write PATH``: the demo's writer process."""

import sys

from .command import main

sys.exit(main())
