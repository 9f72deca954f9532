import sys

from mnemo.hooks.run import fast_path

code = fast_path(sys.argv[1:])
if code is not None:
    sys.exit(code)

from mnemo.cli import main  # noqa: E402

main()
