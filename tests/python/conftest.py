"""The seed kernels live once, in tests/data/seed_kernels.py: `import seed_kernels` finds
them there from every test (and from the pytest runs the tests start in a subprocess)."""

import os
import sys

SEEDS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
if SEEDS_DIR not in sys.path:
    sys.path.insert(0, SEEDS_DIR)
