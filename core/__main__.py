"""``python -m sitemapkit``: the same command line as ``sitemapkit``."""

import sys

from .commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
