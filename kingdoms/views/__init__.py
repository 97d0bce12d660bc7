"""Per-kingdom, fog-filtered views: the only picture of the world a seat is shown (ARCHITECTURE layer 5).

`observe(state, kingdom)` (views.observation) is the one way in: everything else reads its Observation.
"""

from kingdoms.views import kingdom_view, observation
from kingdoms.views.kingdom_view import *  # noqa: F403  (the public names are kingdom_view.__all__)
from kingdoms.views.observation import *  # noqa: F403  (and observation.__all__)

__all__ = kingdom_view.__all__ + observation.__all__
