"""One module per family of claims; each registers its claims at import time."""
