"""Run a command, pass its output through and print `exit N` last, so a lit
test can check the exit status (`not` only tells zero from non-zero)."""

import subprocess
import sys

done = subprocess.run(sys.argv[1:], stderr=subprocess.STDOUT)
print(f"exit {done.returncode}", flush=True)
