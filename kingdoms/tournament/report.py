"""The tournament table: one row per entrant from the recorded results, as text, JSON, CSV and HTML.

Rated games are the `done` ones (void and failed games are listed, never rated). Per entrant: games,
wins/draws/losses, mean place, captures, the season rating with its 95 % interval and the live rating,
then how it played (from every done or void game's file): orders refused per 100 orders, the first-try
valid rate, mean seconds per month, reply characters and estimated tokens per month, months auto-ended
by the deadline, for model seats the months lost to provider outages and the model cost, void games, and
crashed / provider-failed games.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any

from kingdoms.tournament.ratings import live_ratings, season_ratings
from kingdoms.tournament.schedule import FILL
from kingdoms.tournament.store import TournamentStore

COLUMNS = [
    ("entrant", "entrant"), ("kind", "kind"), ("games", "games"), ("wins", "W"), ("draws", "D"), ("losses", "L"),
    ("mean_place", "mean place"), ("captures", "captures"), ("rating", "rating"), ("rating_low", "95% low"),
    ("rating_high", "95% high"), ("live", "live"), ("refused_per_100", "refused/100"),
    ("first_try_valid", "first-try valid"), ("seconds_per_month", "s/month"),
    ("reply_chars_per_month", "reply chars/month"), ("tokens_per_month", "tokens/month"),
    ("auto_ended", "auto-ended months"), ("outages", "outage months"), ("cost_usd", "model cost $"),
    ("void_games", "void"), ("crashed", "crashed"), ("provider_failed", "provider failed"),
]


def placings(games: list[dict[str, Any]]) -> list[list[tuple[str, int]]]:
    """The rated games' entrant places, in the order their results were recorded (fillers left out)."""
    done = sorted((g for g in games if g["status"] == "done" and g["result"]), key=lambda g: g["seq"] or 0)
    return [[(s["entrant"], int(s["place"])) for s in g["result"]["seats"] if s["entrant"] != FILL] for g in done]


def _ratio(num: float, den: float, scale: float = 1.0, digits: int = 2) -> float | None:
    return round(num / den * scale, digits) if den else None


def build_table(store: TournamentStore) -> dict[str, Any]:
    """Everything `kingdoms tournament table` shows, as plain data."""
    meta = store.meta()
    entrants = store.entrants()
    games = store.games()
    anchors = {e["name"]: float(e["anchor"]) for e in entrants if e.get("anchor") is not None}
    rated = placings(games)
    season = season_ratings(rated, anchors, samples=int(meta.get("bootstrap", 1000)), seed=int(meta.get("seed", 0)))
    live = live_ratings(rated, anchors)
    acc: dict[str, dict[str, float]] = {e["name"]: {} for e in entrants}

    def add(name: str, key: str, value: float) -> None:
        acc[name][key] = acc[name].get(key, 0.0) + value

    for g in games:
        res = g["result"]
        if g["status"] in ("done", "void") and res:
            for s in res["seats"]:
                name = s["entrant"]
                if name == FILL or name not in acc:
                    continue
                f = s["figures"]
                for key in ("orders", "refused", "first_tries", "first_try_ok", "months", "auto_ended", "seconds",
                            "timed_months", "reply_chars", "tokens", "calls", "outages", "model_calls", "cost_usd"):
                    add(name, key, float(f.get(key, 0)))
                if g["status"] == "void":
                    add(name, "void_games", 1)
                else:
                    add(name, "games", 1)
                    add(name, {"win": "wins", "draw": "draws"}.get(s["result"], "losses"), 1)
                    add(name, "place_sum", float(s["place"]))
                    add(name, "captures", float(s["captures"]))
        if g["status"] == "failed" and res:
            for f in res.get("failures", []):
                if f["entrant"] in acc:
                    add(f["entrant"], "crashed" if f["kind"] == "crashed" else "provider_failed", 1)
    rows = []
    for e in entrants:
        name = e["name"]
        a = acc[name]
        sr = season.get(name)
        lr = live.get(name)
        rows.append({
            "entrant": name, "kind": e["kind"] if e["kind"] != "ai" else f"ai:{e['ai']}",
            "games": int(a.get("games", 0)), "wins": int(a.get("wins", 0)), "draws": int(a.get("draws", 0)),
            "losses": int(a.get("losses", 0)), "mean_place": _ratio(a.get("place_sum", 0), a.get("games", 0)),
            "captures": int(a.get("captures", 0)),
            "rating": round(sr.rating, 1) if sr else None, "rating_low": round(sr.low, 1) if sr else None,
            "rating_high": round(sr.high, 1) if sr else None, "anchored": bool(sr and sr.anchored),
            "live": round(lr.points, 1) if lr else None, "live_sigma": round(lr.points_sigma, 1) if lr else None,
            "orders": int(a.get("orders", 0)), "refused_per_100": _ratio(a.get("refused", 0), a.get("orders", 0), 100, 1),
            "first_try_valid": _ratio(a.get("first_try_ok", 0), a.get("first_tries", 0), 1, 3),
            "seconds_per_month": _ratio(a.get("seconds", 0), a.get("timed_months", 0), 1, 3),
            "reply_chars_per_month": _ratio(a.get("reply_chars", 0), a.get("months", 0), 1, 0),
            "tokens_per_month": _ratio(a.get("tokens", 0), a.get("months", 0), 1, 0),
            "auto_ended": int(a.get("auto_ended", 0)), "months": int(a.get("months", 0)),
            "outages": int(a.get("outages", 0)), "model_calls": int(a.get("model_calls", 0)),
            "cost_usd": round(a["cost_usd"], 4) if a.get("model_calls") else None,
            "void_games": int(a.get("void_games", 0)), "crashed": int(a.get("crashed", 0)),
            "provider_failed": int(a.get("provider_failed", 0)),
        })
    rows.sort(key=lambda r: (r["rating"] is None, -(r["rating"] or 0.0), r["entrant"]))
    notes = []
    for g in games:
        res = g["result"] or {}
        if g["status"] == "void":
            notes.append({"game": g["id"], "status": "void", "why": "; ".join(res.get("void_reasons", []))})
        elif g["status"] == "failed":
            notes.append({"game": g["id"], "status": "failed", "why": (g["error"] or "").splitlines()[0]
                          if g["error"] else ""})
    return {"tournament": meta.get("name"), "games": store.counts(), "total": len(games), "entrants": rows,
            "notes": notes, "anchors": anchors, "folder": str(store.folder)}


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:,.1f}".removesuffix(".0")
    return str(value)


def rich_table(data: dict[str, Any]) -> Any:
    """A rich Table of the entrants (for the terminal): short headings, W-D-L in one column."""
    from rich.table import Table

    c = data["games"]
    t = Table(title=f"{data['tournament']}: {c['done']} rated, {c['void']} void, {c['failed']} failed, "
                    f"{c['pending'] + c['running']} to play", title_justify="left")
    heads = ["entrant", "kind", "games", "W-D-L", "place", "caps", "rating [95%]", "live", "ref/100", "1st-try",
             "s/mo", "chars/mo", "tok/mo", "auto-end", "outage", "cost $", "void", "crash", "prov.fail"]
    for h in heads:
        t.add_column(h, justify="left" if h in ("entrant", "kind") else "right", no_wrap=True)
    for r in data["entrants"]:
        if r["rating"] is None:
            rating = "-"
        elif r["anchored"]:
            rating = f"{r['rating']:.0f} anchor"
        else:
            rating = f"{r['rating']:.0f} [{r['rating_low']:.0f}, {r['rating_high']:.0f}]"
        t.add_row(r["entrant"], r["kind"], str(r["games"]), f"{r['wins']}-{r['draws']}-{r['losses']}",
                  _fmt(r["mean_place"]), str(r["captures"]), rating,
                  "-" if r["live"] is None else f"{r['live']:.0f} ±{r['live_sigma']:.0f}",
                  _fmt(r["refused_per_100"]), "-" if r["first_try_valid"] is None else f"{r['first_try_valid']:.0%}",
                  _fmt(r["seconds_per_month"]), _fmt(r["reply_chars_per_month"]), _fmt(r["tokens_per_month"]),
                  str(r["auto_ended"]), str(r["outages"]), "-" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}",
                  str(r["void_games"]), str(r["crashed"]), str(r["provider_failed"]))
    return t


def text_table(data: dict[str, Any], width: int = 200) -> str:
    """The table as plain text (rich, no colours), wide enough not to wrap, with the void and failed games."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(rich_table(data))
    for n in data["notes"]:
        console.print(f"{n['game']} {n['status']}: {n['why']}", highlight=False, soft_wrap=True)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def csv_text(data: dict[str, Any]) -> str:
    out = io.StringIO()
    keys = [k for k, _ in COLUMNS] + ["anchored", "live_sigma", "orders", "months", "model_calls"]
    writer = csv.DictWriter(out, fieldnames=keys, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in data["entrants"]:
        writer.writerow({k: "" if r.get(k) is None else r.get(k) for k in keys})
    return out.getvalue()


def svg_plot(data: dict[str, Any], width: int = 720) -> str:
    """Ratings with their 95 % intervals as an inline SVG: one line per entrant, best at the top."""
    rows = [r for r in data["entrants"] if r["rating"] is not None]
    row_h, left, right, top = 26, 170, 30, 30
    height = top + row_h * max(1, len(rows)) + 30
    if not rows:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
                '<text x="10" y="40">no rated games yet</text></svg>')
    lo = min(r["rating_low"] for r in rows)
    hi = max(r["rating_high"] for r in rows)
    pad = max(20.0, (hi - lo) * 0.08)
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<text x="{left}" y="16" fill="#444">rating, 95% interval (bootstrap over games)</text>']
    step = max(25, round((hi - lo) / 6 / 25) * 25)
    tick = (int(lo) // step + 1) * step
    while tick < hi:
        parts.append(f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" y2="{height - 24}" stroke="#ddd"/>'
                     f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" fill="#666">{tick}</text>')
        tick += step
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        name = html.escape(r["entrant"])
        parts.append(f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">{name}</text>')
        parts.append(f'<line x1="{x(r["rating_low"]):.1f}" y1="{y:.1f}" x2="{x(r["rating_high"]):.1f}" y2="{y:.1f}" '
                     'stroke="#2a6fb0" stroke-width="3"/>')
        colour = "#b0302a" if r["anchored"] else "#123f66"
        parts.append(f'<circle cx="{x(r["rating"]):.1f}" cy="{y:.1f}" r="5" fill="{colour}">'
                     f'<title>{name}: {r["rating"]:.0f} [{r["rating_low"]:.0f}, {r["rating_high"]:.0f}]</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def html_page(data: dict[str, Any]) -> str:
    """A self-contained page (no external assets): the table, the ratings plot, void and failed games."""
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in COLUMNS)
    body = []
    for r in data["entrants"]:
        cells = []
        for key, _ in COLUMNS:
            v = r.get(key)
            if key == "first_try_valid" and v is not None:
                cells.append(f"{v:.1%}")
            elif key == "rating" and r["anchored"] and v is not None:
                cells.append(f"{v:.0f} (anchor)")
            elif key in ("rating", "rating_low", "rating_high", "live") and v is not None:
                cells.append(f"{v:.0f}")
            else:
                cells.append(html.escape(_fmt(v)))
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    notes = "".join(f"<li>{html.escape(n['game'])} {n['status']}: {html.escape(n['why'])}</li>" for n in data["notes"])
    c = data["games"]
    title = html.escape(str(data["tournament"]))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: Kingdoms tournament</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
th, td {{ border: 1px solid #ccc; padding: 3px 7px; text-align: right; }}
td:first-child, td:nth-child(2), th {{ text-align: left; }}
th {{ background: #f0f0f0; }}
</style></head><body>
<h1>{title}</h1>
<p>{c['done']} rated games, {c['void']} void, {c['failed']} failed, {c['pending'] + c['running']} still to play.
Ratings: Bradley&ndash;Terry over every rated game's pairwise results (a shared place is half a win each), in
points (400 points = ten times the odds){', anchored on ' + html.escape(', '.join(f'{k} = {v:g}' for k, v in data['anchors'].items())) if data['anchors'] else ', centred on 1500'};
the interval is the 95% range over bootstrap resamples of the games. "live" is openskill's Plackett&ndash;Luce rating.</p>
{svg_plot(data)}
<table><thead><tr>{head}</tr></thead><tbody>
{''.join(body)}
</tbody></table>
{'<h2>Void and failed games</h2><ul>' + notes + '</ul>' if notes else ''}
</body></html>
"""


def write_reports(store: TournamentStore, data: dict[str, Any] | None = None) -> dict[str, Path]:
    """table.json, table.csv and table.html in the tournament's folder; returns their paths."""
    data = data or build_table(store)
    folder = store.folder
    paths = {"json": folder / "table.json", "csv": folder / "table.csv", "html": folder / "table.html"}
    paths["json"].write_text(json.dumps(data, indent=2), encoding="utf-8")
    paths["csv"].write_text(csv_text(data), encoding="utf-8")
    paths["html"].write_text(html_page(data), encoding="utf-8")
    return paths
