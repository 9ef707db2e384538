"""The version of symloss, in a module of its own so that any room may import it without importing the
package (``from .._version import __version__``)."""

__version__ = "0.1.0"
