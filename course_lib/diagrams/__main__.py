"""``python -m course_lib.diagrams [--check]``: write (or check) book/diagrams/*.svg."""

import sys

from course_lib.diagrams import OUT, write_all

check = "--check" in sys.argv[1:]
changed = write_all(OUT, check=check)
for name in changed:
    print(("differs: " if check else "wrote ") + f"book/diagrams/{name}.svg")
if check and changed:
    print("Run `make diagrams` and commit the SVGs.")
sys.exit(1 if check and changed else 0)
