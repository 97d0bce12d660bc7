"""Per-kingdom, fog-filtered views: the only picture of the world a seat is shown (ARCHITECTURE layer 5)."""

from kingdoms.views import kingdom_view
from kingdoms.views.kingdom_view import *  # noqa: F403  (the public names are kingdom_view.__all__)

__all__ = kingdom_view.__all__
