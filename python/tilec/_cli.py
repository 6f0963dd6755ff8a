"""The `tilec` console script: the same command line as the native binary."""

import sys

from . import _C


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    return _C.cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
