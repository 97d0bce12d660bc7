"""The static hex map: terrain, rivers, bridges, water bodies and landmarks, held in numpy arrays.

Tiles live in a rectangle of `height` rows ("odd-r" offset rows): row r holds columns 0..width-1 and the
axial q of column c is c - (r - (r & 1)) // 2 (hexgrid.axial_q and hexgrid.offset_col convert). Whole-map
work (yields, ownership, sight) indexes the flat arrays by `i = r * width + c`; per-tile work uses (q, r).
The map never changes during a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.frozen import record
from kingdoms.hexgrid import DIRECTIONS, Tile, axial_qs, flat_index, hex_len, offset_cols

WATER_CLASSES = ("fresh", "coast", "dry")


@record
class Landmark:
    """A named river, mountain range, lake or sea and the tiles it covers (MAP-140)."""

    name: str
    kind: str  # "river" | "range" | "lake" | "sea"
    tiles: tuple[Tile, ...]


#: Water body labels already worked out: (width, height, packed water mask) -> (labels, lake flags, lake tiles,
#: sea tiles).
_BODIES: dict[tuple[int, int, bytes], tuple[np.ndarray, tuple[bool, ...], np.ndarray, np.ndarray]] = {}


def _column(name: str, dtype: type) -> np.ndarray:
    """One field of every terrain (ruledata.TERRAINS) as a read-only array indexed by terrain code."""
    out: np.ndarray = np.array([getattr(t, name) or 0 for t in rd.TERRAINS], dtype=dtype)
    out.flags.writeable = False
    return out


# Per-terrain tables, indexed by terrain code (the rule data never changes, so they are built once).
_FOOD = _column("food", np.int16)
_PROD = _column("prod", np.int16)
_MOVE = _column("move", np.int16)  # None (impassable) -> 0
_DEFENCE = _column("defence", np.float64)


@record
class _Layout:
    """What a map's ground derivation reads of its layout (width, height) alone; shared by all its maps."""

    around: np.ndarray  # (7, n): each tile's six neighbours and itself, off-map ones as the index n (a blank)
    forward: np.ndarray  # (n, 3): the E, NE and NW neighbours (-1 off map): each pair of neighbours once
    edge: np.ndarray  # bool: the tile has a neighbour off the map


#: Per layout (width, height), the last few: see _Layout.
_LAYOUTS: dict[tuple[int, int], _Layout] = {}


def _layout(width: int, height: int, nbr: np.ndarray) -> _Layout:
    """The _Layout of a (width, height) map whose neighbour table is `nbr` (worked out once per layout)."""
    got = _LAYOUTS.get((width, height))
    if got is None:
        n = width * height
        around = np.concatenate([np.where(nbr >= 0, nbr, n), np.arange(n)[:, None]], axis=1).T.copy()
        forward = nbr[:, [DIRECTIONS.index(d) for d in ((1, 0), (1, -1), (0, -1))]]
        edge = np.asarray((nbr < 0).any(axis=1))
        got = _Layout(around, forward, edge)
        for arr in (got.around, got.forward, got.edge):
            arr.flags.writeable = False
        if len(_LAYOUTS) >= 8:
            del _LAYOUTS[next(iter(_LAYOUTS))]
        _LAYOUTS[(width, height)] = got
    return got


def smallest_roots(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Connected parts of the graph of `n` nodes with edges src[k]-dst[k]: each node's part as its smallest node.

    Union-find in numpy: each round hooks the larger root of every edge still split onto the smaller one, then
    flattens the trees; a few rounds however large the graph (water bodies here, march areas in ai.common).
    """
    parent = np.arange(n)
    while src.size:
        pu, pv = parent[src], parent[dst]
        split = pu != pv
        if not split.any():
            break
        pu, pv = pu[split], pv[split]
        np.minimum.at(parent, np.maximum(pu, pv), np.minimum(pu, pv))  # parents only fall, staying in the part
        while True:
            flat = parent[parent]
            if (flat == parent).all():
                break
            parent = flat
        src, dst = src[split], dst[split]  # an edge once joined stays joined
    return parent


def label_bodies(water: np.ndarray, forward: np.ndarray, edge: np.ndarray) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Water body of every tile (-1 on land), numbered in the order of each body's first (smallest) flat index,
    and per body whether it is a lake: at most LAKE_MAX_TILES tiles, none on the map's edge (MAP-150, OPEN-63).

    `forward`: each tile's E, NE and NW neighbours (-1 off map), `edge`: tiles with a neighbour off the map.
    The bodies are the parts smallest_roots finds among the water tiles, so every root is its body's smallest tile.
    """
    n = water.size
    wet = np.flatnonzero(water)
    m = wet.size
    local = np.full(n + 1, -1, dtype=np.intp)  # flat index -> index among the water tiles; -1 on land
    local[wet] = np.arange(m)  # local[n] stays -1: an off-map neighbour (-1) reads it
    pairs = local[forward[wet]]  # (m, 3) the water neighbours' local indices, -1 where none
    ok = pairs >= 0
    src = np.broadcast_to(np.arange(m)[:, None], pairs.shape)[ok]
    dst = pairs[ok]
    parent = smallest_roots(m, src, dst)
    roots = parent == np.arange(m)
    rank = np.cumsum(roots) - 1  # a root's body number: how many roots come before it
    of_tile = rank[parent]
    bodies = int(rank[-1]) + 1 if m else 0
    labels = np.full(n, -1, dtype=np.int32)
    labels[wet] = of_tile
    touches_edge = np.zeros(bodies, dtype=bool)
    touches_edge[of_tile[edge[wet]]] = True
    lakes = (np.bincount(of_tile, minlength=bodies) <= rd.LAKE_MAX_TILES) & ~touches_edge  # OPEN-63
    return labels, tuple(lakes.tolist())


@dataclass(eq=False)
class GameMap:
    """Immutable map of one game. Build it with `GameMap.from_rows`; derived arrays are computed once."""

    width: int
    height: int
    terrain: np.ndarray  # uint8 codes, see ruledata.TERRAINS
    river: np.ndarray  # bool: a river runs through the tile
    bridge: np.ndarray  # bool: an old bridge spans the river here (MAP-120)
    landmarks: tuple[Landmark, ...] = ()
    # Derived (filled in __post_init__).
    q_of: np.ndarray = field(init=False, repr=False)
    r_of: np.ndarray = field(init=False, repr=False)
    nbr: np.ndarray = field(init=False, repr=False)  # (n, 6) neighbour indices in rules' order, -1 off map
    food: np.ndarray = field(init=False, repr=False)  # base food incl. river +1
    prod: np.ndarray = field(init=False, repr=False)
    move_cost: np.ndarray = field(init=False, repr=False)  # 0 = impassable
    defence: np.ndarray = field(init=False, repr=False)
    is_land: np.ndarray = field(init=False, repr=False)  # every tile but water (mountains are land, OPEN-64)
    body: np.ndarray = field(init=False, repr=False)  # water body id or -1
    body_is_lake: tuple[bool, ...] = field(init=False, repr=False)
    water_class: np.ndarray = field(init=False, repr=False)  # 0 fresh, 1 coast, 2 dry
    landmark_of: np.ndarray = field(init=False, repr=False)  # landmark index or -1

    def __post_init__(self) -> None:
        n = self.width * self.height
        rows = np.repeat(np.arange(self.height), self.width)
        cols = np.tile(np.arange(self.width), self.height)
        self.r_of = rows.astype(np.int32)
        self.q_of = axial_qs(cols, rows).astype(np.int32)
        nbr = np.full((n, 6), -1, dtype=np.int32)
        for k, (dq, dr) in enumerate(DIRECTIONS):
            q2, r2 = self.q_of + dq, self.r_of + dr
            c2 = offset_cols(q2, r2)
            ok = (r2 >= 0) & (r2 < self.height) & (c2 >= 0) & (c2 < self.width)
            nbr[ok, k] = r2[ok] * self.width + c2[ok]
        self.nbr = nbr
        self._derive_ground()
        lm = np.full(n, -1, dtype=np.int16)
        for k, mark in enumerate(self.landmarks):
            for q, r in mark.tiles:
                i = self.index(q, r)
                if i >= 0:
                    lm[i] = k
        self.landmark_of = lm
        for arr in (self.q_of, self.r_of, self.nbr, self.landmark_of):
            arr.flags.writeable = False

    def with_ground(self, terrain: np.ndarray, river: np.ndarray, bridge: np.ndarray) -> GameMap:
        """A map of the same layout and landmarks with other ground (a kingdom's believed map, engine.belief):
        the layout arrays are shared, only what the ground decides is worked out, as __post_init__ does."""
        out = object.__new__(GameMap)
        out.width, out.height, out.landmarks = self.width, self.height, self.landmarks
        out.terrain, out.river, out.bridge = terrain, river, bridge
        out.q_of, out.r_of, out.nbr, out.landmark_of = self.q_of, self.r_of, self.nbr, self.landmark_of
        out._derive_ground()
        return out

    def _derive_ground(self) -> None:
        """Yields, move costs, defence, land, water bodies and water classes from terrain and rivers (read-only)."""
        t = self.terrain.astype(np.intp)  # index once as intp: numpy gathers by uint8 indices several times slower
        self.food = _FOOD[t] + self.river.astype(np.int16) * rd.RIVER_FOOD_BONUS
        self.prod = _PROD[t]
        self.move_cost = _MOVE[t]
        self.defence = _DEFENCE[t]
        self.is_land = self.terrain != rd.W
        layout = _layout(self.width, self.height, self.nbr)
        self._classify_water(layout, *self._label_water(layout))
        for arr in (self.terrain, self.river, self.bridge, self.food, self.prod, self.move_cost, self.defence,
                    self.is_land, self.body, self.water_class):
            arr.setflags(write=False)  # as flags.writeable = False, without making a flags object each time

    # --- construction -------------------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: list[str], bridges: list[Tile] | None = None,
                  landmarks: list[Landmark] | None = None) -> GameMap:
        """Build a map from rows of terrain letters (lower case = river, MAP-100); spaces are ignored.

        Raises ValueError naming the row and column of the first bad letter or a ragged row.
        """
        clean = [row.replace(" ", "") for row in rows]
        if not clean:
            raise ValueError("the map has no rows")
        width = len(clean[0])
        for k, row in enumerate(clean):
            if len(row) != width:
                raise ValueError(f"map row {k} has {len(row)} tiles, row 0 has {width}: every row needs the same width")
        height = len(clean)
        terrain = np.zeros(width * height, dtype=np.uint8)
        river = np.zeros(width * height, dtype=bool)
        for r, row in enumerate(clean):
            for c, ch in enumerate(row):
                t = rd.TERRAIN_BY_LETTER.get(ch.upper())
                if t is None:
                    raise ValueError(f"map row {r}, column {c}: unknown terrain {ch!r} (use G P F H M ~, lower case for a river)")
                if ch.islower() and t.code in (rd.M, rd.W):
                    raise ValueError(f"map row {r}, column {c}: a river cannot run through {t.name} ({ch!r})")
                terrain[r * width + c] = t.code
                river[r * width + c] = ch.islower()
        gm_bridge = np.zeros(width * height, dtype=bool)
        for q, r in bridges or []:
            i = flat_index(q, r, width, height)
            if i < 0 or not river[i]:
                raise ValueError(f"bridge at ({q},{r}) is not on a river tile of the map")
            gm_bridge[i] = True
        return cls(width, height, terrain, river, gm_bridge, tuple(landmarks or ()))

    def _label_water(self, layout: _Layout) -> tuple[np.ndarray, np.ndarray]:
        """Number the water bodies; small ones off the map's edge are lakes, the rest sea (MAP-150, OPEN-63).

        Bodies are numbered in the order of their first tile (label_bodies); the labelling depends on the layout and
        the water tiles only, so the last few are kept (_BODIES) for the maps that share them. Returns the flat
        indices of the lake tiles and of the sea tiles, for _classify_water."""
        water = ~self.is_land
        key = (self.width, self.height, np.packbits(water).tobytes())
        got = _BODIES.get(key)
        if got is None:
            labels, lakes = label_bodies(water, layout.forward, layout.edge)
            labels.flags.writeable = False
            lake_tile = np.array(lakes + (False,), dtype=bool)[labels]  # [-1]: land reads False
            lake_at, sea_at = np.flatnonzero(lake_tile), np.flatnonzero(water & ~lake_tile)
            lake_at.flags.writeable = sea_at.flags.writeable = False
            got = (labels, lakes, lake_at, sea_at)
            if len(_BODIES) >= 32:
                del _BODIES[next(iter(_BODIES))]
            _BODIES[key] = got
        self.body, self.body_is_lake, lake_at, sea_at = got
        return lake_at, sea_at

    def _classify_water(self, layout: _Layout, lake_at: np.ndarray, sea_at: np.ndarray) -> None:
        """Site water class of every tile from the tile and its 6 neighbours (MAP-160): fresh with a river or a
        lake among them, else coast with sea among them, else dry. `lake_at`, `sea_at`: flat indices (_label_water).

        Marked from the few water and river tiles out onto their 7 tiles (being neighbours works both ways), fresh
        last so that it wins over coast; off-map neighbours land on a blank at index n."""
        n = self.width * self.height
        wc = np.full(n + 1, 2, dtype=np.int8)
        wc[layout.around[:, sea_at]] = 1
        wc[layout.around[:, lake_at]] = 0
        wc[layout.around[:, np.flatnonzero(self.river)]] = 0
        self.water_class = wc[:n]

    # --- lookups ------------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.width * self.height

    def index(self, q: int, r: int) -> int:
        """Flat index of (q, r), or -1 when the tile is off the map."""
        return flat_index(q, r, self.width, self.height)

    def tile(self, i: int) -> Tile:
        return int(self.q_of[i]), int(self.r_of[i])

    def q_range(self, r: int) -> tuple[int, int]:
        """The first and last q of row r (the map is a rectangle of offset rows, so q runs lower as r grows and
        goes below 0 from row 2 on)."""
        shift = (r - (r & 1)) // 2
        return -shift, self.width - 1 - shift

    def nearest_on_map(self, q: int, r: int) -> Tile:
        """The tile on the map nearest (q, r) by hex distance; ties to the same row, then lowest r, then lowest q."""
        best: tuple[int, int, int, int] | None = None
        for row in range(self.height):
            lo, hi = self.q_range(row)
            qq = min(max(q, lo), hi)
            dq, dr = qq - q, row - r
            key = (hex_len(dq, dr), abs(dr), row, qq)
            if best is None or key < best:
                best = key
        assert best is not None
        return best[3], best[2]

    def row_text(self, r: int) -> str:
        """'row r=24 runs q=-12..27' for a row on the map; the rows on the map for one off it."""
        if 0 <= r < self.height:
            lo, hi = self.q_range(r)
            return f"row r={r} runs q={lo}..{hi}"
        return f"rows run r=0..{self.height - 1}"

    def off_map_text(self, q: int, r: int) -> str:
        """Why (q, r) is off the map and where the nearest tile on it is (the map's shape is known to all)."""
        nq, nr = self.nearest_on_map(q, r)
        lo, hi = self.q_range(nr)
        where = self.row_text(r)
        row = "" if nr == r else f", in row r={nr} of q={lo}..{hi}"
        return (f"({q},{r}) is off the map ({self.width} x {self.height} tiles; {where}); the nearest tile on it is "
                f"({nq},{nr}){row}")

    def contains(self, q: int, r: int) -> bool:
        return self.index(q, r) >= 0

    def neighbours(self, q: int, r: int) -> list[Tile]:
        """On-map neighbours of (q, r) in the rules' order."""
        i = self.index(q, r)
        return [self.tile(j) for j in self.nbr[i] if j >= 0] if i >= 0 else []

    def terrain_at(self, q: int, r: int) -> rd.Terrain:
        return rd.TERRAINS[int(self.terrain[self.index(q, r)])]

    def letter(self, i: int) -> str:
        ch = rd.TERRAINS[int(self.terrain[i])].letter
        return ch.lower() if self.river[i] else ch

    def is_crossing(self, i: int) -> bool:
        """An unbridged river tile: crossed in one move, never stopped on (MOVE-270, MOVE-280, MOVE-290)."""
        return bool(self.river[i] and not self.bridge[i])

    def water_class_at(self, q: int, r: int) -> str:
        return WATER_CLASSES[int(self.water_class[self.index(q, r)])]

    def landmark_at(self, q: int, r: int) -> Landmark | None:
        k = int(self.landmark_of[self.index(q, r)])
        return self.landmarks[k] if k >= 0 else None

    def centre(self) -> Tile:
        """The tile nearest the middle of the rectangle."""
        r = self.height // 2
        c = self.width // 2
        return self.tile(r * self.width + c)

    def rows(self) -> list[str]:
        """The map as rows of terrain letters (lower case on river tiles)."""
        return ["".join(self.letter(r * self.width + c) for c in range(self.width)) for r in range(self.height)]

    def to_dict(self) -> dict:
        """Plain data for storage and replays (inverse of `from_dict`)."""
        return {
            "rows": self.rows(),
            "bridges": [list(self.tile(int(i))) for i in np.flatnonzero(self.bridge)],
            "landmarks": [{"name": m.name, "kind": m.kind, "tiles": [list(t) for t in m.tiles]} for m in self.landmarks],
        }

    @classmethod
    def from_dict(cls, data: dict) -> GameMap:
        marks = [Landmark(m["name"], m["kind"], tuple(tuple(t) for t in m["tiles"])) for m in data.get("landmarks", [])]
        return cls.from_rows(data["rows"], [tuple(b) for b in data.get("bridges", [])], marks)
