"""Seeded random maps (MAP-130, OPEN-61..63): terrain, named rivers, lakes and ranges, the Ruin, fair landings.

`generate(seed, n_kingdoms)` returns a checked `Scenario` for 2..6 kingdoms; the same seed and kingdom
count always give the same map. One attempt, on numpy arrays:
1. smooth noise fields; a sea along one or two edges (low ground joined to the edge);
2. 1-3 mountain ranges as ridge walks, hills on their flanks; hills, forest, grassland and plains
   filled in to the OPEN-62 mix (G 30%, P 25%, F 15%, H 12%, M 8%, water ~10%);
3. 2-4 rivers from hill country down the cheapest way to water or the map edge (no bridges, MAP-120);
4. the Ruin on the centre tile; the kingdoms' bearings round it and a common march chosen, and 1-3
   lakes (at most 12 tiles, away from the edge: lakes by OPEN-63) sunk where a kingdom's sector lacks a
   wet site at that march (5 and 6 kingdoms may get one more lake per kingdom beyond 4);
5. one legal, wet, non-river landing per sector; forest or hills on the routes to the Ruin cleared or
   planted until the marches agree, and terrain near the landings swapped (grassland/plains,
   forest/hills, plains/forest) until their food and production agree;
6. every invariant checked on the finished map (`fairness_problems`). An attempt that fails any check is
   thrown away and the next seed state tried (up to MAX_ATTEMPTS, then MapGenError): an unfair map is
   never returned.

Sizes (OPEN-61; 5 and 6 kingdoms are our extension, about 430-440 tiles a kingdom like 4):
2: 32x24, 3: 40x30, 4: 48x36, 5: 54x40, 6: 60x44.

Fairness, measured on the finished map:
- every landing's march to the Ruin (cheapest path; entering a tile costs its move 1 or 2, an unbridged
  river tile counts 1, mountains and water are impassable) is within +-10% of the landings' mean
  (VIC-090, MAP-180), so every landing reaches the Ruin and, through it, every other landing;
- landings are on grassland, plains, forest or hills, on a fresh or coast site (never dry) and at least
  12 tiles from each other; random maps also keep them off river tiles;
- within 4 tiles of each landing (61 tiles), total food and total production are each within +-15% of
  the mean over the landings, and usable land tiles (not water, not mountain) within +-20%.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import Tile, distance, fmt_tile, hex_lens, spiral
from kingdoms.scenario import (
    KingdomSpec,
    LandmarkSpec,
    MapSpec,
    Scenario,
    ScenarioError,
    march_costs,
)

SIZES: dict[int, tuple[int, int]] = {2: (32, 24), 3: (40, 30), 4: (48, 36), 5: (54, 40), 6: (60, 44)}
#: Target terrain shares (OPEN-62); water is sea plus lakes.
MIX: dict[str, float] = {"G": 0.30, "P": 0.25, "F": 0.15, "H": 0.12, "M": 0.08, "~": 0.10}
SEA_SHARE = 0.085  # sea before lakes; lakes bring water to about 10%
MIN_LANDING_GAP = 12
MARCH_TOLERANCE = 0.10
YIELD_RADIUS = 4
YIELD_TOLERANCE = 0.15
LAND_TOLERANCE = 0.20
RUIN_CENTRE_SLACK = 3  # the Ruin lies within this many tiles of the map's centre tile
MAX_ATTEMPTS = 60
MIN_RIVER_TILES = 5
MIN_SEA_TILES = 6
CLEAR_RADIUS = 4  # no mountains, lakes or sea this close to the Ruin
LANDING_RADIUS = 0.4  # landings lie about this share of the map's shorter side from the Ruin
SECTOR_HALF_WIDTH = 0.5  # radians either side of a kingdom's planned bearing
MARCH_FIX_LIMIT = 1.5  # longest/shortest march the clearing of forest and hills may try to even out

_G, _P, _F, _H, _M, _W = rd.G, rd.P, rd.F, rd.H, rd.M, rd.W
# Neighbour slots (rules' order E, W, NE, NW, SE, SW) walked round the compass: E, NE, NW, W, SW, SE.
_CIRCLE = (0, 2, 3, 1, 5, 4)


class MapGenError(ScenarioError):
    """No fair map could be made for this seed within the attempt bound."""


# --- names -------------------------------------------------------------------------------------------

RIVER_NAMES = ("Huai", "Han", "Jing", "Min", "Xiang", "Gan", "Bian", "Si", "Luo", "Fen", "Ying", "Qi", "Zhang",
               "Yuan", "Mian", "Ru", "Pi", "Sui", "Ju", "Zi")
RANGE_NAMES = ("Qinling", "Taihang", "Dabie", "Wuyi", "Funiu", "Tongbai", "Mang", "Zhongnan", "Wuling", "Daba",
               "Luliang", "Yan", "Nanling", "Tianmu", "Huang", "Lu")
LAKE_NAMES = ("Dongting", "Poyang", "Tai", "Chao", "Hongze", "Gaoyou", "Weishan", "Dian", "Xuanwu", "Liangzi",
              "Danjiang", "Baiyang")

#: The kingdoms a random map draws from: (id, name, ruler, city names, general names).
KINGDOM_POOL: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("wei", "Cao Wei", "Cao Cao",
     ("Xuchang", "Anyi", "Chenliu", "Puyang", "Yingchuan", "Qiao", "Runan", "Suiyang", "Pei", "Xiapi",
      "Pengcheng", "Donghai", "Langya", "Taishan", "Jibei", "Dongping", "Shanyang", "Jiyin", "Dongjun", "Henei",
      "Hongnong", "Wancheng", "Juancheng", "Guandu", "Baima", "Yanjin", "Liyang", "Chengde", "Xingyang", "Hulao",
      "Mengjin", "Yanzhou"),
     ("Xiahou Dun", "Xiahou Yuan", "Cao Ren", "Cao Hong", "Zhang Liao", "Xu Huang", "Yu Jin", "Yue Jin", "Li Dian",
      "Zhang He", "Dian Wei", "Xu Chu", "Cao Zhen", "Sima Yi", "Deng Ai")),
    ("shu", "Shu Han", "Liu Bei",
     ("Chengdu", "Mianzhu", "Jiameng", "Baidi", "Yong'an", "Jiangzhou", "Langzhong", "Baxi", "Badong", "Fucheng",
      "Luocheng", "Zitong", "Jiange", "Yangping", "Hanzhong", "Nanzheng", "Wudu", "Yinping", "Jianwei", "Qianwei",
      "Yuexi", "Zangke", "Jianning", "Yongchang", "Zhuti", "Wenshan", "Hanjia", "Fuling", "Dianjiang", "Guanghan",
      "Shifang", "Xindu"),
     ("Guan Yu", "Zhang Fei", "Zhao Yun", "Ma Chao", "Huang Zhong", "Wei Yan", "Jiang Wei", "Ma Dai", "Wang Ping",
      "Liao Hua", "Guan Ping", "Zhang Bao", "Guan Xing", "Yan Yan", "Huang Quan")),
    ("wu", "Eastern Wu", "Sun Quan",
     ("Jianye", "Moling", "Jingkou", "Qu'a", "Wujun", "Kuaiji", "Shanyin", "Yuhang", "Qiantang", "Danyang",
      "Xuancheng", "Wuhu", "Ruxu", "Lujiang", "Wan", "Chaisang", "Xunyang", "Yuzhang", "Nanchang", "Poyang",
      "Wuchang", "Xiakou", "Jiangxia", "Lukou", "Changsha", "Guiyang", "Lingling", "Jiaozhi", "Panyu", "Hepu",
      "Cangwu", "Jian'an"),
     ("Zhou Yu", "Lu Meng", "Lu Xun", "Gan Ning", "Taishi Ci", "Huang Gai", "Cheng Pu", "Ling Tong", "Zhou Tai",
      "Ding Feng", "Xu Sheng", "Han Dang", "Jiang Qin", "Zhu Ran", "Lu Su", "Pan Zhang")),
    ("yuan", "Hebei", "Yuan Shao",
     ("Ye", "Nanpi", "Bohai", "Hejian", "Julu", "Changshan", "Zhongshan", "Anping", "Qinghe", "Handan", "Weijun",
      "Pingyuan", "Le'an", "Beihai", "Jinan", "Qizhou", "Zhuojun", "Fanyang", "Yuyang", "Youbeiping", "Shangdang",
      "Taiyuan", "Yanmen", "Xinxing", "Jizhou", "Gaocheng", "Yecheng", "Wuji", "Zhending", "Shangqu", "Guangzong",
      "Lixian"),
     ("Yan Liang", "Wen Chou", "Gao Lan", "Ju Shou", "Tian Feng", "Chunyu Qiong", "Qu Yi", "Jiang Yiqu", "Yuan Tan",
      "Yuan Xi", "Yuan Shang", "Shen Pei", "Guo Tu", "Feng Ji", "Gao Gan", "Lu Kuang")),
    ("liang", "Xiliang", "Ma Teng",
     ("Wuwei", "Jincheng", "Tianshui", "Longxi", "Anding", "Beidi", "Jiuquan", "Zhangye", "Dunhuang", "Xiping",
      "Jicheng", "Lintao", "Didao", "Qishan", "Jieting", "Chencang", "Meicheng", "Wugong", "Guzang", "Yuzhong",
      "Pingxiang", "Zhangyi", "Xuanwei", "Lingju", "Anmi", "Biaoshi", "Shouchang", "Gaoping", "Lianju", "Yumen",
      "Yangguan", "Xiangwu"),
     ("Pang De", "Han Sui", "Ma Xiu", "Ma Tie", "Cheng Yi", "Yang Qiu", "Li Kan", "Hou Xuan", "Liang Xing",
      "Cheng Yin", "Zhang Heng", "Ma Wan", "Yan Xing")),
    ("jing", "Jingzhou", "Liu Biao",
     ("Xiangyang", "Jiangling", "Xinye", "Fancheng", "Nanyang", "Jingling", "Dangyang", "Maicheng", "Yiling",
      "Zhijiang", "Gong'an", "Wuling", "Linyuan", "Hanshou", "Yiyang", "Baling", "Zhangling", "Xiangxiang",
      "Lianshui", "Chuanling", "Yidao", "Huarong", "Zhongxiang", "Yicheng", "Fangling", "Shangyong", "Xicheng",
      "Zhushan", "Yunxi", "Suixian", "Anlu", "Changban"),
     ("Cai Mao", "Zhang Yun", "Huang Zu", "Wen Pin", "Kuai Yue", "Kuai Liang", "Wang Wei", "Liu Pan", "Huo Jun",
      "Su Fei", "Deng Yi", "Han Song", "Liu Qi")),
)


# --- fairness (shared with the scenario tests) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SiteSummary:
    """What a landing offers: march to the Ruin, food/production/usable land within 4 tiles, water class."""

    tile: Tile
    march: float
    food: int
    prod: int
    land: int
    water: str


def disk(gm: GameMap, tile: Tile, radius: int = YIELD_RADIUS) -> np.ndarray:
    """Flat indices of the on-map tiles within `radius` of `tile`."""
    idx = [gm.index(*t) for t in spiral(tile, radius)]
    return np.asarray([i for i in idx if i >= 0], dtype=np.int64)


def site_summaries(gm: GameMap, landings: list[Tile], ruin: Tile) -> list[SiteSummary]:
    """A SiteSummary per landing, measured on `gm` (river tiles count 1 for the march, VIC-090)."""
    cost = march_costs(gm, ruin)
    usable = gm.is_land & (gm.terrain != _M)
    out = []
    for t in landings:
        d = disk(gm, t)
        i = gm.index(*t)
        out.append(SiteSummary(t, float(cost[i]) if i >= 0 else math.inf, int(gm.food[d].sum()),
                               int(gm.prod[d].sum()), int(usable[d].sum()),
                               gm.water_class_at(*t) if i >= 0 else "dry"))
    return out


def _spread(values: list[float], tolerance: float) -> list[int]:
    """Positions whose value lies farther than `tolerance` (a share) from the mean."""
    mean = sum(values) / len(values)
    return [k for k, v in enumerate(values) if abs(v - mean) > tolerance * mean + 1e-9]


def fairness_problems(gm: GameMap, landings: list[Tile], ruin: Tile) -> list[str]:
    """Every way the landings are unfair or illegal (see the module docstring); empty when fair."""
    out: list[str] = []
    ri = gm.index(*ruin)
    if ri < 0 or not gm.is_land[ri] or gm.terrain[ri] == _M:
        return [f"the Ruin {fmt_tile(ruin)} is not on land"]
    if distance(ruin, gm.centre()) > RUIN_CENTRE_SLACK:
        out.append(f"the Ruin {fmt_tile(ruin)} is {distance(ruin, gm.centre())} tiles from the centre {fmt_tile(gm.centre())}")
    for k, t in enumerate(landings):
        i = gm.index(*t)
        if i < 0 or gm.terrain[i] in (_M, _W):
            out.append(f"landing {k} {fmt_tile(t)} is not a legal city site")
            return out
        for j in range(k):
            if distance(t, landings[j]) < MIN_LANDING_GAP:
                out.append(f"landings {j} and {k} are {distance(t, landings[j])} tiles apart (< {MIN_LANDING_GAP})")
    sites = site_summaries(gm, landings, ruin)
    for k, s in enumerate(sites):
        if s.water == "dry":
            out.append(f"landing {k} {fmt_tile(s.tile)} is a dry site")
        if not math.isfinite(s.march):
            out.append(f"landing {k} {fmt_tile(s.tile)} cannot reach the Ruin by land")
    if out:
        return out
    for label, values, tol in (("march to the Ruin", [s.march for s in sites], MARCH_TOLERANCE),
                               ("food within 4", [float(s.food) for s in sites], YIELD_TOLERANCE),
                               ("production within 4", [float(s.prod) for s in sites], YIELD_TOLERANCE),
                               ("usable land within 4", [float(s.land) for s in sites], LAND_TOLERANCE)):
        for k in _spread(values, tol):
            out.append(f"landing {k} {fmt_tile(sites[k].tile)}: {label} {values[k]:g} is more than {tol:.0%} "
                       f"from the mean {sum(values) / len(values):.1f}")
    return out


# --- geometry and noise --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Geo:
    """Per-size constants: neighbours, pixel positions, edge distances, the centre."""

    w: int
    h: int
    n: int
    nbr: np.ndarray
    nbr_l: list[list[int]]
    q: np.ndarray
    r: np.ndarray
    x: np.ndarray
    y: np.ndarray
    border: np.ndarray
    edge: np.ndarray  # rows/columns to the nearest edge
    centre: int
    bearing: np.ndarray  # angle of each tile seen from the centre tile (radians, y downward)


@lru_cache(maxsize=8)
def _geometry(w: int, h: int) -> _Geo:
    """Geometry of a w x h map, computed once per size."""
    blank = GameMap(w, h, np.zeros(w * h, dtype=np.uint8), np.zeros(w * h, dtype=bool), np.zeros(w * h, dtype=bool))
    rows = np.repeat(np.arange(h), w)
    cols = np.tile(np.arange(w), h)
    x = cols + 0.5 * (rows & 1)
    y = rows * (math.sqrt(3) / 2)
    edge = np.minimum(np.minimum(cols, w - 1 - cols), np.minimum(rows, h - 1 - rows))
    centre = blank.index(*blank.centre())
    bearing = np.arctan2(y - y[centre], x - x[centre])
    return _Geo(w, h, w * h, blank.nbr, blank.nbr.tolist(), blank.q_of.astype(np.int64), blank.r_of.astype(np.int64),
                x, y, np.asarray((blank.nbr < 0).any(axis=1)), edge, centre, bearing)


def _hexdist(geo: _Geo, i: int) -> np.ndarray:
    """Hex distance from tile index i to every tile."""
    dq = geo.q - geo.q[i]
    dr = geo.r - geo.r[i]
    return hex_lens(dq, dr)


def _noise(rng: np.random.Generator, geo: _Geo, cell: float) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about `cell` tiles wide."""
    gx = int(geo.x.max() / cell) + 3
    gy = int(geo.y.max() / cell) + 3
    grid = rng.random((gy, gx))
    fx = geo.x / cell + rng.random()
    fy = geo.y / cell + rng.random()
    x0 = fx.astype(np.int64)
    y0 = fy.astype(np.int64)
    tx = fx - x0
    ty = fy - y0
    tx = tx * tx * (3 - 2 * tx)
    ty = ty * ty * (3 - 2 * ty)
    top = grid[y0, x0] * (1 - tx) + grid[y0, x0 + 1] * tx
    bot = grid[y0 + 1, x0] * (1 - tx) + grid[y0 + 1, x0 + 1] * tx
    return top * (1 - ty) + bot * ty


def _fractal(rng: np.random.Generator, geo: _Geo, cells: tuple[float, ...], weights: tuple[float, ...]) -> np.ndarray:
    """Weighted sum of value-noise octaves (coarse shapes plus finer detail)."""
    return sum((w * _noise(rng, geo, c) for c, w in zip(cells, weights, strict=True)), np.zeros(geo.n))


def _components(geo: _Geo, mask: np.ndarray) -> list[list[int]]:
    """Connected groups of tiles in `mask` (flat indices, each group in discovery order)."""
    seen = np.zeros(geo.n, dtype=bool)
    out: list[list[int]] = []
    m = mask.tolist()
    for s in np.flatnonzero(mask).tolist():
        if seen[s]:
            continue
        seen[s] = True
        group = [s]
        k = 0
        while k < len(group):
            for j in geo.nbr_l[group[k]]:
                if j >= 0 and m[j] and not seen[j]:
                    seen[j] = True
                    group.append(j)
            k += 1
        out.append(group)
    return out


def _dilate(geo: _Geo, mask: np.ndarray) -> np.ndarray:
    """Mask grown by one step (the tiles and their neighbours)."""
    pad = np.concatenate([mask, [False]])
    return mask | pad[geo.nbr].any(axis=1)


# --- one attempt ---------------------------------------------------------------------------------------


def _sea(rng: np.random.Generator, geo: _Geo, elev: np.ndarray, near_centre: np.ndarray) -> np.ndarray:
    """Sea along 1-2 chosen edges: low ground joined to the edge, small puddles dropped."""
    sides = rng.permutation(4)[:1 + int(rng.random() < 0.4)]
    xmax, ymax = float(geo.x.max()), float(geo.y.max())
    dists = (geo.x, xmax - geo.x, geo.y, ymax - geo.y)
    width = 0.3 * min(xmax, ymax)
    low = elev.copy()
    for s in sides:
        low -= 0.55 * np.clip(1 - dists[int(s)] / width, 0, 1)
    water = (low <= np.quantile(low, SEA_SHARE)) & ~near_centre
    sea = np.zeros(geo.n, dtype=bool)
    for group in _components(geo, water):
        if len(group) >= MIN_SEA_TILES and geo.border[group].any():
            sea[group] = True
    return sea


def _ranges(rng: np.random.Generator, geo: _Geo, terrain: np.ndarray, dc: np.ndarray) -> int:
    """Raise 1-3 ridge-walk mountain ranges with hills on their flanks; returns how many were raised."""
    k = int(rng.integers(1, 4))
    per = max(4, round(MIX["M"] * geo.n / k))
    sea_near = _dilate(geo, terrain == _W)
    made = 0
    for _ in range(k):
        blocked = _dilate(geo, terrain == _M) | sea_near | (dc < CLEAR_RADIUS + 1) | (geo.edge < 1) | (terrain == _W)
        ok = ~blocked
        starts = np.flatnonzero(ok)
        if len(starts) == 0:
            break
        for _try in range(8):
            cur = int(rng.choice(starts))
            pos = int(rng.integers(6))
            ridge = [cur]
            length = max(3, round(per / 1.6))
            while len(ridge) < length:
                step = None
                for turn in (int(rng.choice((-1, 0, 0, 0, 1))), 1, -1):
                    cand = geo.nbr_l[cur][_CIRCLE[(pos + turn) % 6]]
                    if cand >= 0 and ok[cand] and cand not in ridge:
                        pos = (pos + turn) % 6
                        step = cand
                        break
                if step is None:
                    break
                ridge.append(step)
                cur = step
            if len(ridge) >= 3:
                break
        else:
            continue
        body = list(ridge)
        members = set(body)
        while len(body) < per:
            frontier = [j for i in body for j in geo.nbr_l[i] if j >= 0 and ok[j] and j not in members]
            if not frontier:
                break
            j = frontier[int(rng.integers(len(frontier)))]
            body.append(j)
            members.add(j)
        terrain[body] = _M
        made += 1
    flank = _dilate(geo, terrain == _M) & (terrain != _M) & (terrain != _W)
    terrain[flank & (rng.random(geo.n) < 0.45)] = _H
    return made


def _fill(rng: np.random.Generator, geo: _Geo, terrain: np.ndarray, elev: np.ndarray) -> None:
    """Hills on high ground, forest on wet ground, then grassland and plains, to the OPEN-62 mix."""
    free = (terrain != _W) & (terrain != _M) & (terrain != _H)
    need = int(round(MIX["H"] * geo.n)) - int((terrain == _H).sum())
    if need > 0:
        idx = np.flatnonzero(free)
        terrain[idx[np.argsort(-elev[idx], kind="stable")[:need]]] = _H
    free = (terrain != _W) & (terrain != _M) & (terrain != _H)
    wet = _fractal(rng, geo, (5.0, 2.5, 1.25), (0.55, 0.3, 0.15))
    idx = np.flatnonzero(free)
    forest = idx[np.argsort(-wet[idx], kind="stable")[:int(round(MIX["F"] * geo.n))]]
    terrain[forest] = _F
    free = (terrain != _W) & (terrain != _M) & (terrain != _H) & (terrain != _F)
    grassy = _fractal(rng, geo, (4.0, 2.0, 1.0), (0.5, 0.3, 0.2))
    idx = np.flatnonzero(free)
    share = MIX["G"] / (MIX["G"] + MIX["P"])
    order = idx[np.argsort(-grassy[idx], kind="stable")]
    cut = int(round(share * len(idx)))
    terrain[order[:cut]] = _G
    terrain[order[cut:]] = _P


def max_lakes(n_kingdoms: int) -> int:
    """Most lakes a map may have: 3 (OPEN-62), one more per kingdom beyond 4 on the larger maps."""
    return 3 + max(0, n_kingdoms - 4)


def _sink_lake(rng: np.random.Generator, geo: _Geo, terrain: np.ndarray, river: np.ndarray, elev: np.ndarray,
               dc: np.ndarray, where: np.ndarray, low_only: bool) -> list[int] | None:
    """Sink one lake of 3-9 tiles starting in `where`, apart from other water and the edge (OPEN-63)."""
    water = terrain == _W
    near = _dilate(geo, water)
    ok = (terrain != _M) & ~water & ~river & (geo.edge >= 2) & (dc >= CLEAR_RADIUS + 1)
    cand = np.flatnonzero(where & ok & ~near & (geo.edge >= 3))
    if len(cand) == 0:
        return None
    if low_only:
        cand = cand[np.argsort(elev[cand], kind="stable")[:max(1, len(cand) // 3)]]
    lake = [int(rng.choice(cand))]
    members = set(lake)
    size = int(rng.integers(3, 10))
    while len(lake) < size:
        frontier = []
        for i in lake:
            for j in geo.nbr_l[i]:
                if j < 0 or j in members or not ok[j]:
                    continue
                if any(x >= 0 and water[x] for x in geo.nbr_l[j]):
                    continue
                frontier.append(j)
        if not frontier:
            break
        j = frontier[int(rng.integers(len(frontier)))]
        lake.append(j)
        members.add(j)
    if len(lake) < 3:
        return None
    terrain[lake] = _W
    return lake


def _rivers(rng: np.random.Generator, geo: _Geo, terrain: np.ndarray, ruin: int) -> tuple[np.ndarray, list[list[int]]]:
    """Run 2-4 rivers from hill country down the cheapest way to water or the map edge."""
    water = terrain == _W
    dry_land = (terrain != _W) & (terrain != _M)
    mouth = dry_land & (geo.border | _dilate(geo, water))
    weight = 1.0 + 2.5 * _fractal(rng, geo, (3.0, 1.5), (0.6, 0.4)) + 0.3 * rng.random(geo.n)
    weight[~dry_land] = math.inf
    weight[ruin] = math.inf
    wl = weight.tolist()
    dist = [math.inf] * geo.n
    steps = [0] * geo.n
    down = [-1] * geo.n
    heap = []
    for i in np.flatnonzero(mouth).tolist():
        if i != ruin:
            dist[i] = wl[i]
            heap.append((wl[i], i))
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v in geo.nbr_l[u]:
            if v >= 0 and d + wl[v] < dist[v]:
                dist[v] = d + wl[v]
                down[v] = u
                steps[v] = steps[u] + 1
                heapq.heappush(heap, (dist[v], v))
    hilly = (terrain == _H) | _dilate(geo, terrain == _M)
    steps_a = np.asarray(steps)
    sources = np.flatnonzero(hilly & dry_land & ~mouth & (steps_a >= MIN_RIVER_TILES) & np.isfinite(dist))
    # Long rivers first (most of them), so that rivers cross the country where the kingdoms land.
    keys = steps_a[sources] * (0.5 + rng.random(len(sources)))
    sources = sources[np.argsort(-keys, kind="stable")]
    river = np.zeros(geo.n, dtype=bool)
    paths: list[list[int]] = []
    want = int(rng.integers(2, 5))
    for s in sources.tolist():
        if len(paths) >= want:
            break
        path: list[int] = []
        cur = s
        while cur >= 0 and not river[cur]:
            path.append(cur)
            if any(j >= 0 and river[j] for j in geo.nbr_l[cur]):
                break
            cur = down[cur]
        if len(path) < MIN_RIVER_TILES or any(j >= 0 and river[j] for j in geo.nbr_l[path[0]]):
            continue
        river[path] = True
        paths.append(path)
    return river, paths


def _sector_masks(geo: _Geo, n: int, base: float) -> list[np.ndarray]:
    """For each kingdom k, the tiles whose bearing from the centre is near base + k/n turns."""
    half = min(SECTOR_HALF_WIDTH, 0.33 * 2 * math.pi / n)
    out = []
    for k in range(n):
        want = base + 2 * math.pi * k / n
        out.append(np.abs((geo.bearing - want + math.pi) % (2 * math.pi) - math.pi) < half)
    return out


def _landing_zone(geo: _Geo, dc: np.ndarray, n: int) -> np.ndarray:
    """Tiles at a fitting distance from the Ruin for a landing, away from the map edge.

    The inner bound keeps neighbouring kingdoms' sites 12+ apart: 12 / (2 sin(pi/n)) plus 2.
    """
    radius = LANDING_RADIUS * min(geo.w, geo.h)
    inner = max(0.75 * radius, MIN_LANDING_GAP / (2 * math.sin(math.pi / n)) + 2)
    return (dc >= inner) & (dc <= 1.35 * radius) & (geo.edge >= 2)


def _plan_water(rng: np.random.Generator, geo: _Geo, terrain: np.ndarray, river: np.ndarray, elev: np.ndarray,
                dc: np.ndarray, n: int) -> tuple[float, float, list[list[int]]] | None:
    """Pick the kingdoms' bearings and a common march; sink lakes where a sector lacks a wet site there.

    Each dry sector gets a lake near tiles at the target march; more lakes are added at random up to a
    drawn count of 1..max_lakes(n). Returns (bearing of kingdom 0, target march, lakes), or None when
    more sectors need a lake than the map may have.
    """
    gm = GameMap(geo.w, geo.h, terrain.copy(), river, np.zeros(geo.n, dtype=bool))
    march = march_costs(gm, gm.tile(geo.centre))
    land = (terrain != _W) & (terrain != _M)
    zone = _landing_zone(geo, dc, n) & np.isfinite(march)
    wet = land & ~river & _dilate(geo, river | (terrain == _W)) & zone
    if not zone.any():
        return None
    offset = rng.uniform(0, 2 * math.pi / n)
    targets = np.quantile(march[zone], (0.6, 0.5, 0.7, 0.4, 0.8))
    best: tuple[list[int], float, float] | None = None
    for j in range(8):
        base = offset + 2 * math.pi * j / (8 * n)
        masks = _sector_masks(geo, n, base)
        for target in targets:
            close = np.abs(march - target) <= 0.08 * target
            dry = [k for k, m in enumerate(masks) if not (m & wet & close).any()]
            if best is None or len(dry) < len(best[0]):
                best = (dry, base, float(target))
    assert best is not None
    dry_sectors, base, target = best
    if len(dry_sectors) > max_lakes(n):
        return None
    masks = _sector_masks(geo, n, base)
    close = zone & (np.abs(march - target) <= 0.08 * target)
    lakes: list[list[int]] = []
    wide = zone & (np.abs(march - target) <= 0.15 * target)
    for k in dry_sectors:
        lake = _sink_lake(rng, geo, terrain, river, elev, dc, masks[k] & close, low_only=False)
        if lake is None:
            lake = _sink_lake(rng, geo, terrain, river, elev, dc, masks[k] & wide, low_only=False)
        if lake is None:
            return None
        lakes.append(lake)
    everywhere = np.ones(geo.n, dtype=bool)
    for _ in range(max(0, int(rng.integers(1, max_lakes(n) + 1)) - len(lakes))):
        lake = _sink_lake(rng, geo, terrain, river, elev, dc, everywhere, low_only=True)
        if lake is not None:
            lakes.append(lake)
    if not lakes:
        return None
    return base, target, lakes


def _pick_landings(rng: np.random.Generator, geo: _Geo, gm: GameMap, n: int, ruin: int, march: np.ndarray,
                   base: float, planned: float) -> list[list[int]]:
    """Up to 3 candidate landing sets: one legal wet site per sector, near a common march, alike in land."""
    dc = _hexdist(geo, ruin)
    ok = gm.is_land & (gm.terrain != _M) & ~gm.river & (gm.water_class != 2) & np.isfinite(march) & _landing_zone(geo, dc, n)
    sectors = [np.flatnonzero(ok & m) for m in _sector_masks(geo, n, base)]
    if any(len(s) == 0 for s in sectors):
        return []
    usable = (gm.is_land & (gm.terrain != _M)).astype(np.int64)
    land_near = {int(i): int(usable[disk(gm, gm.tile(int(i)))].sum()) for s in sectors for i in s}
    targets = np.unique(np.concatenate([march[s] for s in sectors]))
    # Rank the common march targets by how close every sector can come to them.
    worst = np.array([max(float(np.min(np.abs(march[s] - t))) for s in sectors) / t for t in targets])
    ranked = targets[np.argsort(worst + 0.02 * rng.random(len(targets)), kind="stable")]
    out: list[list[int]] = []
    for target in [planned, *ranked[:12]]:
        chosen: list[int] = []
        for s in sectors:
            fits = np.ones(len(s), dtype=bool)
            for c in chosen:
                fits &= _hexdist(geo, c)[s] >= MIN_LANDING_GAP
            if not fits.any():
                break
            score = np.abs(march[s] - target) / target + 0.05 * rng.random(len(s))
            score[~fits] = math.inf
            chosen.append(int(s[int(np.argmin(score))]))
        if len(chosen) < n:
            continue
        marches = [float(march[c]) for c in chosen]
        if max(marches) > MARCH_FIX_LIMIT * min(marches):
            continue
        if _spread([float(land_near[c]) for c in chosen], LAND_TOLERANCE * 0.9):
            continue
        out.append(chosen)
        if len(out) >= 3:
            break
    return out


def _path_to(gm: GameMap, march: np.ndarray, start: int, cost: np.ndarray) -> list[int]:
    """Tiles of a cheapest march from `start` to the target of `march` (excluding start)."""
    path = []
    cur = start
    while march[cur] > 0:
        best, best_v = -1, math.inf
        for v in gm.nbr[cur]:
            if v >= 0 and cost[v] > 0 and np.isfinite(march[v]) and cost[v] + march[v] < best_v - 1e-9:
                best, best_v = int(v), float(cost[v] + march[v])
        if best < 0:
            break
        path.append(best)
        cur = best
    return path


def _even_marches(geo: _Geo, terrain: np.ndarray, river: np.ndarray, landings: list[int], ruin: int,
                  keep: int = 1) -> bool:
    """Even out the landings' marches to the Ruin by clearing or planting forest on their routes.

    A march too long has forest or hills on its cheapest route cleared to plains; one too short has
    grassland or plains on its route planted with forest. Only tiles more than `keep` from every landing,
    off the rivers and off the Ruin's ring are touched; `_balance` then evens out the yields again.
    Returns whether every march ended up within the tolerance.
    """
    bridge = np.zeros(geo.n, dtype=bool)
    near = np.zeros(geo.n, dtype=bool)
    for c in landings:
        near |= _hexdist(geo, c) <= keep
    near |= _hexdist(geo, ruin) <= 1
    for _round in range(8):
        gm = GameMap(geo.w, geo.h, terrain.copy(), river, bridge)
        march = march_costs(gm, gm.tile(ruin))
        vals = [float(march[c]) for c in landings]
        if not _spread(vals, MARCH_TOLERANCE * 0.9):
            return True
        mid = float(np.median(vals))
        cost = gm.move_cost.astype(np.float64)
        cost[gm.river] = 1.0
        changed = False
        for c, v in zip(landings, vals, strict=True):
            if v > mid * 1.04:
                excess, frm, to = v - mid * 1.04, (_F, _H), _P
            elif v < mid * 0.96:
                excess, frm, to = mid * 0.96 - v, (_G, _P), _F
            else:
                continue
            for i in _path_to(gm, march, c, cost):
                if excess <= 0:
                    break
                if not near[i] and not river[i] and terrain[i] in frm:
                    terrain[i] = to
                    excess -= 1
                    changed = True
        if not changed:
            return False
    return False


# Terrain swaps used to even out yields near landings: (from, to, food change, production change).
_SWAPS = ((_G, _P, -1, 1), (_P, _G, 1, -1), (_H, _F, 1, 0), (_F, _H, -1, 0), (_P, _F, 0, 1), (_F, _P, 0, -1))


def _balance(rng: np.random.Generator, gm: GameMap, terrain: np.ndarray, landings: list[int]) -> None:
    """Even out food and production within 4 tiles of the landings by swapping some tiles' terrain.

    Greedy: each step takes the swap that brings the landing's food and production nearest the mean
    over the landings. Grassland/plains and forest/hills swaps keep move costs; plains/forest swaps
    change them, so the final fairness check measures the marches again. River tiles are left alone.
    """
    disks = [disk(gm, gm.tile(i)) for i in landings]
    food_of = np.array([t.food for t in rd.TERRAINS], dtype=np.int64)
    prod_of = np.array([t.prod for t in rd.TERRAINS], dtype=np.int64)
    bonus = gm.river.astype(np.int64) * rd.RIVER_FOOD_BONUS
    for _round in range(2):
        foods = [float((food_of[terrain[d]] + bonus[d]).sum()) for d in disks]
        prods = [float(prod_of[terrain[d]].sum()) for d in disks]
        tf, tp = sum(foods) / len(foods), sum(prods) / len(prods)
        for k, d in enumerate(disks):
            f, p = foods[k], prods[k]
            tiles = [int(i) for i in d[rng.permutation(len(d))] if int(i) != landings[k] and not gm.river[i]]
            pools = {t: [i for i in tiles if terrain[i] == t] for t in (_G, _P, _F, _H)}
            while abs(tf - f) > 0.03 * tf or abs(tp - p) > 0.03 * tp:
                err = abs(tf - f) / tf + abs(tp - p) / tp
                best = None
                for a, b, dfood, dprod in _SWAPS:
                    if pools[a]:
                        e2 = abs(tf - f - dfood) / tf + abs(tp - p - dprod) / tp
                        if e2 < err - 1e-9 and (best is None or e2 < best[0]):
                            best = (e2, a, b, dfood, dprod)
                if best is None:
                    break
                _, a, b, dfood, dprod = best
                i = pools[a].pop()
                terrain[i] = b
                pools[b].insert(0, i)
                f += dfood
                p += dprod


def _names(rng: np.random.Generator, pool: tuple[str, ...], k: int) -> list[str]:
    """k different names drawn from `pool`."""
    return [pool[int(i)] for i in rng.permutation(len(pool))[:k]]


def _landmarks(rng: np.random.Generator, geo: _Geo, gm: GameMap, rivers: list[list[int]],
               lakes: list[list[int]]) -> list[LandmarkSpec]:
    """Name the rivers, lakes, ranges (mountain groups) and seas of a finished map (MAP-140)."""
    out: list[LandmarkSpec] = []

    def tiles(group: list[int]) -> list[Tile]:
        return [gm.tile(i) for i in sorted(group)]

    for name, path in zip(_names(rng, RIVER_NAMES, len(rivers)), rivers, strict=True):
        out.append(LandmarkSpec(name=f"{name} River", kind="river", tiles=[gm.tile(i) for i in path]))
    for name, lake in zip(_names(rng, LAKE_NAMES, len(lakes)), lakes, strict=True):
        out.append(LandmarkSpec(name=f"Lake {name}", kind="lake", tiles=tiles(lake)))
    ranges = [g for g in _components(geo, gm.terrain == _M) if len(g) >= 3]
    for name, group in zip(_names(rng, RANGE_NAMES, len(ranges)), ranges, strict=True):
        out.append(LandmarkSpec(name=f"{name} Mountains", kind="range", tiles=tiles(group)))
    used: set[str] = set()
    sea = (~gm.is_land) & ~np.isin(gm.body, [b for b, lake in enumerate(gm.body_is_lake) if lake])
    for group in sorted(_components(geo, sea), key=len, reverse=True):
        if len(group) < MIN_SEA_TILES:
            continue
        dx = float(geo.x[group].mean() - geo.x[geo.centre])
        dy = float(geo.y[group].mean() - geo.y[geo.centre])
        side = ("Eastern" if dx > 0 else "Western") if abs(dx) * geo.h > abs(dy) * geo.w else (
            "Southern" if dy > 0 else "Northern")
        name = next(f"{side} {word}" for word in ("Sea", "Gulf", "Bay", "Waters", "Reach") if f"{side} {word}" not in used)
        used.add(name)
        out.append(LandmarkSpec(name=name, kind="sea", tiles=tiles(group)))
    return out


def _attempt(rng: np.random.Generator, geo: _Geo, n: int) -> tuple[GameMap, list[int], list[LandmarkSpec]] | None:
    """One try at a fair map; None when some invariant fails."""
    dc = _hexdist(geo, geo.centre)
    elev = _fractal(rng, geo, (7.0, 3.5, 1.75), (0.55, 0.3, 0.15))
    terrain = np.full(geo.n, _P, dtype=np.uint8)
    terrain[_sea(rng, geo, elev, dc <= CLEAR_RADIUS + 2)] = _W
    if _ranges(rng, geo, terrain, dc) == 0:
        return None
    _fill(rng, geo, terrain, elev)
    ruin = geo.centre
    river, rivers = _rivers(rng, geo, terrain, ruin)
    if len(rivers) < 2:
        return None
    planned = _plan_water(rng, geo, terrain, river, elev, dc, n)
    if planned is None:
        return None
    base, target, lakes = planned
    bridge = np.zeros(geo.n, dtype=bool)
    gm = GameMap(geo.w, geo.h, terrain.copy(), river, bridge)
    if any(not gm.body_is_lake[int(gm.body[lake[0]])] for lake in lakes):
        return None
    march = march_costs(gm, gm.tile(ruin))
    for landings in _pick_landings(rng, geo, gm, n, ruin, march, base, target):
        tuned = terrain.copy()
        for _round in range(3):
            if not _even_marches(geo, tuned, river, landings, ruin):
                break
            _balance(rng, gm, tuned, landings)
            final = GameMap(geo.w, geo.h, tuned.copy(), river, bridge)
            tiles = [final.tile(i) for i in landings]
            if not fairness_problems(final, tiles, final.tile(ruin)):
                return final, landings, _landmarks(rng, geo, final, rivers, lakes)
    return None


def generate(seed: int, n_kingdoms: int = 3, *, size: tuple[int, int] | None = None) -> Scenario:
    """A fair random map for 2..6 kingdoms as a checked Scenario; same (seed, n) -> same map. `size` (width,
    height) makes it on another map size than the kingdoms' own (SIZES), as the benchmark's scaling runs do."""
    if n_kingdoms not in SIZES:
        raise MapGenError(f"random:{seed}:{n_kingdoms}", [("", f"random maps take 2 to 6 kingdoms, not {n_kingdoms}")])
    w, h = size or SIZES[n_kingdoms]
    geo = _geometry(w, h)
    for attempt in range(MAX_ATTEMPTS):
        rng = np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, n_kingdoms, attempt]))
        made = _attempt(rng, geo, n_kingdoms)
        if made is None:
            continue
        gm, landings, marks = made
        picks = sorted(int(i) for i in rng.permutation(len(KINGDOM_POOL))[:n_kingdoms])
        kingdoms = [KingdomSpec(id=kid, name=name, ruler=ruler, landing=gm.tile(landings[k]), city_names=list(cities),
                                general_names=list(generals))
                    for k, (kid, name, ruler, cities, generals) in enumerate(KINGDOM_POOL[i] for i in picks)]
        shape = "" if (w, h) == SIZES[n_kingdoms] else f"-{w}x{h}"  # another size than the kingdoms' own
        scn = Scenario(name=f"random-{seed}-{n_kingdoms}{shape}", title=f"Random map {seed} ({n_kingdoms} kingdoms)",
                       description=f"Generated by kingdoms.mapgen from seed {seed} (attempt {attempt + 1}).",
                       map=MapSpec(rows=gm.rows(), ruin=gm.tile(geo.centre), ruin_name=rd.RUIN_NAME),
                       landmarks=marks, kingdoms=kingdoms)
        scn.with_source(f"random:{seed}:{n_kingdoms}")
        return scn.check()
    raise MapGenError(f"random:{seed}:{n_kingdoms}",
                      [("", f"no fair map after {MAX_ATTEMPTS} attempts; try another seed")])
