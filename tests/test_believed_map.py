"""A kingdom's believed map (engine.belief.believed_map, INTEL-050) and what is worked out of it once per map:
the same answers as a map of that ground built on its own, whatever the share of the map explored."""

from __future__ import annotations

import numpy as np

from kingdoms.engine.belief import believed_map
from kingdoms.engine.economy import map_lists
from kingdoms.mapgen import generate
from kingdoms.setup import build_state


def _true_map():
    """A generated 40 x 30 map (rivers, lakes and sea)."""
    return build_state(generate(5, 3, size=(40, 30)), 1).map


def test_intel_050_believed_map_lists_equal_the_arrays_and_share_the_true_maps_layout():
    """INTEL-050: map_lists of a believed map (the per-map cache) holds its own food and production, equal to the
    arrays' tolist, and the true map's r and q lists (the layout is the same), for each explored share in turn."""
    gm = _true_map()
    rng = np.random.default_rng(7)
    true_lists = map_lists(gm)
    assert true_lists == (gm.food.tolist(), gm.prod.tolist(), gm.r_of.tolist(), gm.q_of.tolist())
    for share in (0.0, 0.3, 0.7, 0.95):
        bm = believed_map(gm, rng.random(gm.size) < share)
        food, prod, rs, qs = map_lists(bm)
        assert food == bm.food.tolist() and prod == bm.prod.tolist()
        assert all(type(v) is int for v in food + prod)
        assert rs is true_lists[2] and qs is true_lists[3]
        assert map_lists(bm) is map_lists(bm)
        fresh = gm.with_ground(bm.terrain.copy(), bm.river.copy(), bm.bridge.copy())  # not a believed map
        assert map_lists(fresh) == map_lists(bm) and map_lists(fresh)[2] is not rs


def test_intel_050_believed_net_rows_marked_own_where_a_neighbours_cost_differs():
    """INTEL-050: a believed map's net marks as its own (own_row, made on first use) exactly the tiles with a
    neighbour whose move cost differs from the true map's, the same bytes on a second read; its impassable tiles,
    unbridged rivers and ways are the believed ground's, not the true map's."""
    from kingdoms.engine.pathing import net_of

    gm = _true_map()
    rng = np.random.default_rng(11)
    for share in (0.0, 0.3, 0.7, 0.95):
        bm = believed_map(gm, rng.random(gm.size) < share)
        net = net_of(bm)
        nbr = gm.nbr.tolist()
        differs = [int(a) != int(b) for a, b in zip(bm.move_cost, gm.move_cost, strict=True)]
        want = bytes(int(any(v >= 0 and differs[v] for v in nbr[u])) for u in range(gm.size))
        assert net._own_row() == want and net._own_row() is net._own_row()
        assert net.impassable == bytes(int(c <= 0) for c in bm.move_cost.tolist())
        assert net.river == bytes(int(r and not b) for r, b in zip(bm.river.tolist(), bm.bridge.tolist(), strict=True))
        for u in (0, gm.size // 2, gm.size - 1):
            assert net.ways[u] == tuple((v, b, int(bm.move_cost[v])) for v, b in net.beyond[u])

