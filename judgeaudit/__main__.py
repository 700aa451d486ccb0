"""`python -m judgeaudit`: the `judgeaudit` command line, started by a given interpreter."""

import sys

from judgeaudit.cli import main

sys.exit(main())
