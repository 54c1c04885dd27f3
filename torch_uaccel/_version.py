__version__ = "0.1.0"

# The torch releases this source supports, stated here only: setup.py refuses to build against
# others, and a build then requires the minor version it was built against (torch==2.15.*).
TORCH_OLDEST, TORCH_NEWEST = (2, 11), (2, 15)
SUPPORTED_TORCH = f"{TORCH_OLDEST[0]}.{TORCH_OLDEST[1]} to {TORCH_NEWEST[0]}.{TORCH_NEWEST[1]}"
