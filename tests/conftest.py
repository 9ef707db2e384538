import mpmath
import pytest
from hypothesis import settings

settings.register_profile("symloss", deadline=None, max_examples=60, derandomize=True)
settings.load_profile("symloss")


@pytest.fixture(autouse=True)
def _global_mpmath_precision_unchanged():
    """Every test checks that nothing left mpmath's global precision changed."""
    before = (mpmath.mp.prec, mpmath.mp.dps)
    yield
    assert (mpmath.mp.prec, mpmath.mp.dps) == before, "a call left mpmath.mp precision changed"
