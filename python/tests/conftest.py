"""pytest setup: the package from this checkout, the build named by COMPOPT_BUILD_DIR."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
