/* Kingdoms replay viewer: draws the page data (kingdoms/viewer/page.py) on a canvas. No network, except on the
   live /watch page, which asks its own server for new months. */
(function () {
  "use strict";

  var TERRAIN = { G: "#9fc46a", P: "#d6c98c", F: "#4f8a3c", H: "#b09266", M: "#8d8882", "~": "#5f9fd6" };
  var TERRAIN_NAME = { G: "grassland", P: "plains", F: "forest", H: "hills", M: "mountain", "~": "water" };
  var TYPE_LETTER = { levy: "L", spearman: "S", archer: "A", cavalry: "C", heavy_infantry: "H", catapult: "K",
    colonists: "c", wagon: "w", scout: "s", spy: "y" };
  var TIER_NAMES = null;
  var SQ3 = Math.sqrt(3);

  var D = null, W = 0, H = 0, N = 0;
  var views = [];        // decoded views
  var cur = { view: 0, frame: 0 };
  var hover = -1, pinned = -1, timer = null;
  var geo = { s: 10, pad: 8, w: 0, h: 0 };
  var canvas = document.getElementById("kv-map");
  var ctx = canvas.getContext("2d");
  var tip = document.getElementById("kv-tip");
  var slider = document.getElementById("kv-slider");

  function el(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function fmt(n) { return Number(n).toLocaleString("en-GB"); }

  // --- decoding ------------------------------------------------------------------------------------------
  function decodeSeries(enc) {
    var out = [];
    if (!enc || !enc.length) { return out; }
    var first = new Int16Array(N), p = 0, k;
    for (k = 0; k < enc[0].length; k += 2) { first.fill(enc[0][k], p, p + enc[0][k + 1]); p += enc[0][k + 1]; }
    out.push(first);
    for (var f = 1; f < enc.length; f++) {
      var a = out[f - 1].slice(), d = enc[f];
      for (k = 0; k < d.length; k += 2) { a[d[k]] = d[k + 1]; }
      out.push(a);
    }
    return out;
  }

  function decodeView(v) {
    var byMonth = {};
    (v.chron.par || []).forEach(function (p, n) {
      (byMonth[p[0]] = byMonth[p[0]] || []).push(n);
    });
    return { raw: v, land: decodeSeries(v.land), fog: v.fog ? decodeSeries(v.fog) : null, parByMonth: byMonth };
  }

  function load(data) {
    D = data;
    W = D.map.w; H = D.map.h; N = W * H;
    TIER_NAMES = D.tiers;
    views = D.views.map(decodeView);
    var sel = el("kv-view");
    sel.innerHTML = "";
    views.forEach(function (v, n) {
      var o = document.createElement("option");
      o.value = String(n); o.textContent = v.raw.name; sel.appendChild(o);
    });
    sel.disabled = views.length < 2;
    slider.max = String(D.frames.length - 1);
    el("kv-title").textContent = D.title;
    el("kv-sub").textContent = (D.scenario ? D.scenario : "") + (D.seed !== null && D.seed !== undefined ? " · seed " + D.seed : "") +
      (D.preview ? " · scenario preview: month 1" : D.finished ? " · finished" + (D.end ? " (" + D.end.replace("_", " ") + ")" : "") : " · in progress");
    el("kv-live").hidden = !D.live;
  }

  // --- geometry --------------------------------------------------------------------------------------------
  function layout() {
    var box = el("kv-mapbox");
    var width = Math.max(360, box.clientWidth || 800);
    var s = (width - 2 * geo.pad) / (SQ3 * (W + 0.5));
    var maxH = Math.max(300, window.innerHeight - 260);
    var sh = (maxH - 2 * geo.pad) / (1.5 * (H - 1) + 2);
    geo.s = Math.max(4, Math.min(s, sh));
    geo.w = Math.ceil(SQ3 * geo.s * (W + 0.5) + 2 * geo.pad);
    geo.h = Math.ceil(geo.s * (1.5 * (H - 1) + 2) + 2 * geo.pad);
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(geo.w * dpr); canvas.height = Math.round(geo.h * dpr);
    canvas.style.width = geo.w + "px"; canvas.style.height = geo.h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  function centre(i) {
    var r = Math.floor(i / W), c = i % W;
    return [geo.pad + SQ3 * geo.s * (c + 0.5 * (r & 1) + 0.5), geo.pad + geo.s * (1 + 1.5 * r)];
  }
  function qr(i) { var r = Math.floor(i / W), c = i % W; return [c - ((r - (r & 1)) >> 1), r]; }
  function index(q, r) {
    if (r < 0 || r >= H) { return -1; }
    var c = q + ((r - (r & 1)) >> 1);
    return (c < 0 || c >= W) ? -1 : r * W + c;
  }
  var AX = [[1, 0], [0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1]];      // E, SE, SW, W, NW, NE (edge k..k+1)
  function corner(x, y, k, s) { var a = Math.PI / 180 * (60 * k - 30); return [x + s * Math.cos(a), y + s * Math.sin(a)]; }
  function hexPath(x, y, s) {
    ctx.beginPath();
    for (var k = 0; k < 6; k++) { var p = corner(x, y, k, s); if (k) { ctx.lineTo(p[0], p[1]); } else { ctx.moveTo(p[0], p[1]); } }
    ctx.closePath();
  }
  function tileAt(px, py) {
    var r0 = Math.round((py - geo.pad - geo.s) / (1.5 * geo.s)), best = -1, bd = 1e9;
    for (var r = r0 - 1; r <= r0 + 1; r++) {
      if (r < 0 || r >= H) { continue; }
      var c0 = Math.round((px - geo.pad) / (SQ3 * geo.s) - 0.5 - 0.5 * (r & 1));
      for (var c = c0 - 1; c <= c0 + 1; c++) {
        if (c < 0 || c >= W) { continue; }
        var i = r * W + c, p = centre(i), d = (p[0] - px) * (p[0] - px) + (p[1] - py) * (p[1] - py);
        if (d < bd) { bd = d; best = i; }
      }
    }
    return bd <= geo.s * geo.s * 1.05 ? best : -1;
  }

  // --- the current frame ----------------------------------------------------------------------------------------
  function V() { return views[cur.view]; }
  function F() { return V().raw.fr[cur.frame]; }
  function side(n) { return D.sides[n] || ["?", "?", "", "#999"]; }
  function fogAt(i) { var v = V(); return v.fog ? v.fog[cur.frame][i] : 2; }
  function terrainAt(i) { return D.map.t.charAt(i); }
  function cityName(id) { return V().raw.names[String(id)] || ("city " + id); }
  function unitsByTile(fr) {
    var m = {};
    fr.u.forEach(function (u) { (m[u[3]] = m[u[3]] || []).push(u); });
    return m;
  }
  function citiesByTile(fr) { var m = {}; fr.c.forEach(function (c) { m[c[2]] = c; }); return m; }
  function campsByTile(fr) { var m = {}; fr.p.forEach(function (c) { (m[c[2]] = m[c[2]] || []).push(c); }); return m; }

  // --- drawing --------------------------------------------------------------------------------------------------
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + ((n >> 16) & 255) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }
  function draw() {
    var v = V(), fr = F(), land = v.land[cur.frame], s = geo.s, i, p, t, f;
    ctx.fillStyle = "#1d1b18"; ctx.fillRect(0, 0, geo.w, geo.h);
    for (i = 0; i < N; i++) {
      p = centre(i); t = terrainAt(i); f = fogAt(i);
      hexPath(p[0], p[1], s + 0.4);
      if (t === " " || f === 0) { ctx.fillStyle = "#2a2723"; ctx.fill(); continue; }
      ctx.fillStyle = TERRAIN[t.toUpperCase()] || TERRAIN[t] || "#999"; ctx.fill();
      if (land[i] >= 0) { ctx.fillStyle = alpha(side(land[i])[3], 0.38); ctx.fill(); }
      var T = t.toUpperCase();
      if (T === "M") { drawMountain(p[0], p[1], s); } else if (T === "F") { drawTrees(p[0], p[1], s); } else if (T === "H") { drawHill(p[0], p[1], s); }
      if (f === 1) { hexPath(p[0], p[1], s + 0.4); ctx.fillStyle = "rgba(20,18,15,0.42)"; ctx.fill(); }
    }
    drawRivers(s);
    drawBorders(land, s);
    drawLandmarks(s);
    var cities = fr.c, units = unitsByTile(fr), camps = campsByTile(fr);
    Object.keys(camps).forEach(function (k) { drawCamp(+k, camps[k], s); });
    cities.forEach(function (c) { drawCity(c, s); });
    Object.keys(units).forEach(function (k) { drawUnits(+k, units[k], s); });
    [[hover, "rgba(255,255,255,0.9)"], [pinned, "#ffd54a"]].forEach(function (h) {
      if (h[0] < 0) { return; }
      p = centre(h[0]); hexPath(p[0], p[1], s); ctx.strokeStyle = h[1]; ctx.lineWidth = 2.2; ctx.stroke();
    });
  }
  function drawMountain(x, y, s) {
    ctx.beginPath(); ctx.moveTo(x - 0.55 * s, y + 0.4 * s); ctx.lineTo(x, y - 0.5 * s); ctx.lineTo(x + 0.55 * s, y + 0.4 * s);
    ctx.closePath(); ctx.fillStyle = "#6f6a64"; ctx.fill(); ctx.strokeStyle = "#ece9e4"; ctx.lineWidth = 0.8;
    ctx.beginPath(); ctx.moveTo(x - 0.18 * s, y - 0.18 * s); ctx.lineTo(x, y - 0.5 * s); ctx.lineTo(x + 0.18 * s, y - 0.18 * s); ctx.stroke();
  }
  function drawTrees(x, y, s) {
    ctx.fillStyle = "#2f6427";
    [[-0.3, 0.1], [0.25, -0.15], [0.05, 0.35]].forEach(function (d) {
      ctx.beginPath(); ctx.arc(x + d[0] * s, y + d[1] * s, 0.2 * s, 0, 2 * Math.PI); ctx.fill();
    });
  }
  function drawHill(x, y, s) {
    ctx.strokeStyle = "#7d6443"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(x, y + 0.3 * s, 0.42 * s, Math.PI * 1.15, Math.PI * 1.85); ctx.stroke();
  }
  function isRiver(i) { var t = terrainAt(i); return t !== " " && t !== t.toUpperCase(); }
  function visibleTerrain(i) { return terrainAt(i) !== " " && fogAt(i) > 0; }
  function drawRivers(s) {
    ctx.strokeStyle = "#2f7fd0"; ctx.lineWidth = Math.max(1.5, 0.22 * s); ctx.lineCap = "round";
    var bridges = {};
    D.map.b.forEach(function (b) { bridges[b] = true; });
    for (var i = 0; i < N; i++) {
      if (!isRiver(i) || !visibleTerrain(i)) { continue; }
      var p = centre(i), a = qr(i), linked = 0;
      for (var k = 0; k < 6; k++) {
        var j = index(a[0] + AX[k][0], a[1] + AX[k][1]);
        if (j < 0 || !visibleTerrain(j)) { continue; }
        if (isRiver(j) || terrainAt(j) === "~") {
          var q = centre(j); linked++;
          ctx.beginPath(); ctx.moveTo(p[0], p[1]); ctx.lineTo((p[0] + q[0]) / 2, (p[1] + q[1]) / 2); ctx.stroke();
        }
      }
      if (!linked) { ctx.beginPath(); ctx.arc(p[0], p[1], 0.2 * s, 0, 2 * Math.PI); ctx.stroke(); }
      if (bridges[i]) {
        ctx.save(); ctx.strokeStyle = "#6b4a2b"; ctx.lineWidth = Math.max(2, 0.28 * s);
        ctx.beginPath(); ctx.moveTo(p[0] - 0.45 * s, p[1] - 0.2 * s); ctx.lineTo(p[0] + 0.45 * s, p[1] + 0.2 * s); ctx.stroke();
        ctx.restore();
      }
    }
  }
  function drawBorders(land, s) {
    ctx.lineWidth = Math.max(1.5, 0.2 * s);
    for (var i = 0; i < N; i++) {
      var o = land[i];
      if (o < 0) { continue; }
      var p = centre(i), a = qr(i);
      ctx.strokeStyle = side(o)[3];
      for (var k = 0; k < 6; k++) {
        var j = index(a[0] + AX[k][0], a[1] + AX[k][1]);
        if (j >= 0 && land[j] === o) { continue; }
        var c1 = corner(p[0], p[1], k, s * 0.94), c2 = corner(p[0], p[1], k + 1, s * 0.94);
        ctx.beginPath(); ctx.moveTo(c1[0], c1[1]); ctx.lineTo(c2[0], c2[1]); ctx.stroke();
      }
    }
  }
  function halo(text, x, y, font, colour) {
    ctx.font = font; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    ctx.lineWidth = 3; ctx.strokeStyle = "rgba(255,255,255,0.85)"; ctx.strokeText(text, x, y);
    ctx.fillStyle = colour; ctx.fillText(text, x, y);
  }
  function drawLandmarks(s) {
    D.map.lm.forEach(function (m) {
      var xs = 0, ys = 0, n = 0;
      m[2].forEach(function (i) { if (fogAt(i) > 0) { var p = centre(i); xs += p[0]; ys += p[1]; n++; } });
      if (!n) { return; }
      var size = Math.max(9, Math.round(0.95 * s));
      halo(m[0], xs / n, ys / n, "italic " + size + "px Georgia, serif", m[1] === "range" ? "#4a3b2a" : "#123f74");
    });
  }
  function drawCity(c, s) {
    var p = centre(c[2]), col = side(c[1])[3], seen = c[8] > 0, ruin = (c[6] & 2) !== 0, capital = (c[6] & 1) !== 0;
    var rad = s * (0.42 + 0.07 * Math.max(0, c[3]));
    ctx.globalAlpha = seen ? 0.6 : 1;
    if (ruin) {
      ctx.beginPath(); ctx.moveTo(p[0], p[1] - rad * 1.2); ctx.lineTo(p[0] + rad * 1.2, p[1]); ctx.lineTo(p[0], p[1] + rad * 1.2);
      ctx.lineTo(p[0] - rad * 1.2, p[1]); ctx.closePath(); ctx.fillStyle = col; ctx.fill();
      ctx.lineWidth = 2; ctx.strokeStyle = "#ffd54a"; ctx.stroke();
    } else {
      ctx.beginPath(); ctx.arc(p[0], p[1], rad, 0, 2 * Math.PI); ctx.fillStyle = col; ctx.fill();
      ctx.lineWidth = c[5] > 0 ? Math.min(4, 1.2 + c[5] / 30) : 1.2; ctx.strokeStyle = c[5] > 0 ? "#2a2520" : "#fff"; ctx.stroke();
      if (capital) { ctx.beginPath(); ctx.arc(p[0], p[1], rad * 0.45, 0, 2 * Math.PI); ctx.fillStyle = "#ffd54a"; ctx.fill(); }
    }
    ctx.globalAlpha = 1;
    halo(cityName(c[0]) + (seen ? " (m" + c[8] + ")" : ""), p[0], p[1] + rad + Math.max(7, 0.75 * s),
      "600 " + Math.max(10, Math.round(0.95 * s)) + "px system-ui, sans-serif", "#1f1d1a");
  }
  function drawUnits(i, list, s) {
    var p = centre(i), u = list[0], col = side(u[1])[3], size = u[5] >= 0 ? u[5] : 0;
    var w = s * (0.5 + 0.12 * size), x = p[0] - 0.55 * s, y = p[1] - 0.55 * s;
    var fighting = list.filter(function (x) { var t = D.types[x[2]]; return TYPE_LETTER[t] && TYPE_LETTER[t] === TYPE_LETTER[t].toUpperCase(); });
    if (fighting.length) { u = fighting[0]; col = side(u[1])[3]; }
    var remembered = u[7] > 0;
    ctx.globalAlpha = remembered ? 0.55 : 1;
    ctx.fillStyle = col; ctx.fillRect(x - w / 2, y - w / 2, w, w);
    ctx.lineWidth = 1; ctx.strokeStyle = remembered ? "#ddd" : "#111";
    if (remembered) { ctx.setLineDash([2, 2]); }
    ctx.strokeRect(x - w / 2, y - w / 2, w, w); ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    ctx.font = "700 " + Math.max(8, Math.round(w * 0.78)) + "px system-ui, sans-serif";
    ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.fillStyle = "#fff";
    ctx.fillText(TYPE_LETTER[D.types[u[2]]] || "?", x, y + 0.5);
    if (list.length > 1) {
      ctx.font = "700 " + Math.max(8, Math.round(0.6 * s)) + "px system-ui, sans-serif";
      halo("+" + (list.length - 1), x + w * 0.85, y - w * 0.45, ctx.font, "#111");
    }
  }
  function drawCamp(i, list, s) {
    var p = centre(i), x = p[0] + 0.45 * s, y = p[1] + 0.4 * s, col = side(list[0][1])[3];
    ctx.beginPath(); ctx.moveTo(x - 0.3 * s, y + 0.22 * s); ctx.lineTo(x, y - 0.3 * s); ctx.lineTo(x + 0.3 * s, y + 0.22 * s);
    ctx.closePath(); ctx.fillStyle = col; ctx.fill(); ctx.strokeStyle = "#111"; ctx.lineWidth = 0.8; ctx.stroke();
  }

  // --- text panels ------------------------------------------------------------------------------------------------
  function monthLabel(n) {
    var f = D.frames[n];
    if (f[2] === 0) { return "Month 1 (the start)"; }
    return "Month " + f[2] + (f[3] ? " (the end)" : "");
  }
  function swatch(n) { return '<i class="kv-sw" style="background:' + side(n)[3] + '"></i>'; }
  function statusHtml(fr) {
    var nk = D.nk, t = fr.t, parts = [], k;
    for (k = 0; k < nk; k++) {
      var dead = (t[nk + 3] >> k) & 1;
      parts.push(swatch(k) + esc(side(k)[1]) + " " + t[k] + (dead ? " (fallen)" : ""));
    }
    var lead = t[nk] >= 0 ? esc(side(t[nk])[1]) + " leads, month " + t[nk + 1] + " of 36" : "no lead";
    var ruin = t[nk + 2] >= 0 ? "the Ruin: " + esc(side(t[nk + 2])[1]) : "";
    var wars = fr.w.length ? "at war: " + fr.w.map(function (w) { return esc(side(w[0])[1]) + " / " + esc(side(w[1])[1]); }).join(", ") : "at peace";
    return '<div class="kv-status"><b>Captures</b> ' + parts.join(" · ") + "<br>" + lead + (ruin ? " · " + ruin : "") + " · " + wars + "</div>";
  }
  function showMonth() {
    var v = V(), fr = F(), done = D.frames[cur.frame][2], html = "<h3>" + esc(monthLabel(cur.frame)) + "</h3>" + statusHtml(fr);
    var pars = v.parByMonth[done] || [];
    if (pars.length) {
      html += '<div class="kv-chron">' + pars.map(function (n) { return "<p>" + v.raw.chron.par[n][2] + "</p>"; }).join("") + "</div>";
    } else if (done === 0) {
      html += '<p class="kv-hint">The board as the game began.</p>';
    }
    var ev = v.raw.ev[cur.frame] || [];
    if (ev.length) {
      html += "<h3>Reports of the month</h3><ul class=\"kv-ev\">" + ev.map(function (e) {
        return '<li class="' + esc(e[0]) + '">' + esc(e[1]) + "</li>";
      }).join("") + "</ul>";
    } else if (done > 0) {
      html += '<p class="kv-hint">No battles, captures or news this month.</p>';
    }
    el("kv-tab-month").innerHTML = html;
    el("kv-month").textContent = monthLabel(cur.frame);
    document.querySelectorAll(".kv-mom li").forEach(function (li) { li.classList.toggle("here", +li.dataset.frame === cur.frame); });
    document.querySelectorAll(".kv-chron p[data-month]").forEach(function (p) { p.classList.toggle("here", +p.dataset.month === done); });
  }
  function unitLine(u) {
    var t = D.types[u[2]].replace("_", " "), men = u[4] >= 0 ? fmt(u[4]) + " men" : (u[5] >= 0 ? D.sizes[u[5]] : "");
    var gen = u[6] >= 0 ? ", General " + esc(V().raw.gen[u[6]]) : "";
    var seen = u[7] > 0 ? " (last seen month " + u[7] + ")" : "";
    return swatch(u[1]) + esc(side(u[1])[1]) + " " + esc(t) + " #" + u[0] + (men ? ": " + esc(men) : "") + gen + seen;
  }
  function tileHtml(i) {
    if (i < 0) { return '<p class="kv-hint">Hover over a tile, or click one to keep it here.</p>'; }
    var a = qr(i), t = terrainAt(i), f = fogAt(i), fr = F(), land = V().land[cur.frame][i];
    var out = '<dl class="kv-tile"><dt>Tile (' + a[0] + "," + a[1] + ")</dt>";
    if (t === " " || f === 0) { return out + "<dd>Unexplored.</dd></dl>"; }
    var T = t.toUpperCase(), extra = [];
    if (t !== T) { extra.push("river"); }
    if (D.map.b.indexOf(i) >= 0) { extra.push("bridge"); }
    out += "<dd>" + TERRAIN_NAME[T] + (extra.length ? ", " + extra.join(", ") : "") + (f === 1 ? " (out of sight)" : "") + "</dd>";
    D.map.lm.forEach(function (m) { if (m[2].indexOf(i) >= 0) { out += "<dd>" + esc(m[0]) + "</dd>"; } });
    if (land >= 0) { out += "<dt>Land</dt><dd>" + swatch(land) + esc(side(land)[1]) + "</dd>"; }
    else if (land === -1) { out += "<dt>Land</dt><dd>unclaimed</dd>"; }
    var c = citiesByTile(fr)[i];
    if (c) {
      var bits = [esc(TIER_NAMES[c[3]] || "")];
      if (c[4] >= 0) { bits.push(fmt(c[4]) + " people"); }
      if (c[5] >= 0) { bits.push("walls " + c[5]); }
      if (c[7] >= 0) { bits.push(D.sizes[c[7]] + " garrison"); }
      if (c[6] & 1) { bits.push("capital"); }
      if (c[6] & 2) { bits.push("the Ruin"); }
      out += "<dt>City</dt><dd>" + swatch(c[1]) + esc(cityName(c[0])) + " (" + esc(side(c[1])[1]) + "): " + bits.join(", ") +
        (c[8] > 0 ? " (as seen in month " + c[8] + ")" : "") + "</dd>";
    }
    var us = unitsByTile(fr)[i] || [];
    if (us.length) { out += "<dt>Units</dt>" + us.map(function (u) { return '<dd class="kv-unit">' + unitLine(u) + "</dd>"; }).join(""); }
    var cs = campsByTile(fr)[i] || [];
    if (cs.length) { out += "<dt>Camp</dt>" + cs.map(function (k) { return "<dd>" + swatch(k[1]) + esc(side(k[1])[1]) + " camp" + (k[3] > 0 ? " (seen month " + k[3] + ")" : "") + "</dd>"; }).join(""); }
    return out + "</dl>";
  }
  function showTile() { el("kv-tab-tile").innerHTML = tileHtml(pinned >= 0 ? pinned : hover); }
  function showMoments() {
    var v = V();
    var items = v.raw.mom.map(function (m) {
      var done = D.frames[m[0]] ? D.frames[m[0]][2] : 0;
      return '<li class="' + esc(m[1]) + '" data-frame="' + m[0] + '"><b>Month ' + done + "</b>" + m[2] + "</li>";
    });
    el("kv-tab-moments").innerHTML = items.length ? '<ul class="kv-mom">' + items.join("") + "</ul>" : '<p class="kv-hint">Nothing yet.</p>';
    el("kv-tab-chronicle").innerHTML = '<div class="kv-chron">' + v.raw.chron.html + "</div>" +
      '<p class="kv-hint">' + v.raw.chron.words + " words.</p>";
  }
  function legend() {
    var html = D.sides.map(function (s, n) { return "<span>" + swatch(n) + esc(s[1]) + "</span>"; }).join("");
    html += "<span>L levy · S spearmen · A archers · C cavalry · H heavy infantry · K catapult · c colonists · w wagon · s scout</span>";
    html += "<span>&#9670; the Ruin · dot in a city: capital · dashed: as last seen</span>";
    el("kv-legend").innerHTML = html;
  }

  // --- charts -----------------------------------------------------------------------------------------------------
  var CHARTS = [["Captures", function (fr, k) { return fr.t[k]; }],
    ["Cities", function (fr, k) { return fr.f[k] ? fr.f[k][0] : null; }],
    ["People", function (fr, k) { return fr.f[k] ? fr.f[k][1] : null; }],
    ["Men under arms", function (fr, k) { return fr.f[k] ? fr.f[k][2] : null; }],
    ["Lead (months of 36)", function (fr, k) { return fr.t[D.nk] === k ? fr.t[D.nk + 1] : 0; }]];
  function buildCharts() {
    var box = el("kv-charts");
    box.innerHTML = "";
    CHARTS.forEach(function (c, n) {
      var div = document.createElement("div");
      div.className = "kv-chart";
      div.innerHTML = "<h4>" + esc(c[0]) + "</h4>";
      var cv = document.createElement("canvas");
      cv.dataset.chart = String(n);
      cv.addEventListener("click", function (e) {
        var r = cv.getBoundingClientRect();
        setFrame(Math.round((e.clientX - r.left) / r.width * (D.frames.length - 1)));
      });
      div.appendChild(cv); box.appendChild(div);
    });
  }
  function drawCharts() {
    var v = V(), frames = v.raw.fr;
    document.querySelectorAll("#kv-charts canvas").forEach(function (cv) {
      var c = CHARTS[+cv.dataset.chart], dpr = window.devicePixelRatio || 1;
      var w = cv.clientWidth || 200, h = cv.clientHeight || 90;
      cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
      var g = cv.getContext("2d");
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, w, h);
      var max = 1, k, n, val;
      for (k = 0; k < D.nk; k++) { for (n = 0; n < frames.length; n++) { val = c[1](frames[n], k); if (val !== null && val > max) { max = val; } } }
      if (c[0].indexOf("Lead") === 0) { max = 36; }
      var X = function (n) { return 4 + (w - 8) * (frames.length > 1 ? n / (frames.length - 1) : 0); };
      var Y = function (x) { return h - 12 - (h - 18) * x / max; };
      g.strokeStyle = "#e2dacb"; g.lineWidth = 1; g.beginPath(); g.moveTo(4, Y(0)); g.lineTo(w - 4, Y(0)); g.stroke();
      for (k = 0; k < D.nk; k++) {
        g.strokeStyle = side(k)[3]; g.lineWidth = 1.6; g.beginPath();
        var drawing = false;
        for (n = 0; n < frames.length; n++) {
          val = c[1](frames[n], k);
          if (val === null) { drawing = false; continue; }
          if (drawing) { g.lineTo(X(n), Y(val)); } else { g.moveTo(X(n), Y(val)); drawing = true; }
        }
        g.stroke();
      }
      g.strokeStyle = "#1f1d1a"; g.lineWidth = 1; g.beginPath(); g.moveTo(X(cur.frame), 2); g.lineTo(X(cur.frame), h - 10); g.stroke();
      g.fillStyle = "#7a7062"; g.font = "10px system-ui, sans-serif"; g.textAlign = "left"; g.textBaseline = "top";
      g.fillText(max >= 1000 ? fmt(max) : String(max), 6, 1);
    });
  }

  // --- state changes ----------------------------------------------------------------------------------------------
  function setFrame(n) {
    n = Math.max(0, Math.min(D.frames.length - 1, n | 0));
    cur.frame = n;
    slider.value = String(n);
    draw(); showMonth(); showTile(); drawCharts();
  }
  function setView(n) {
    cur.view = Math.max(0, Math.min(views.length - 1, n | 0));
    el("kv-view").value = String(cur.view);
    showMoments(); setFrame(cur.frame);
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; el("kv-play").innerHTML = "&#9654;"; return; }
    if (cur.frame >= D.frames.length - 1) { setFrame(0); }
    el("kv-play").innerHTML = "&#10074;&#10074;";
    timer = setInterval(function () {
      if (cur.frame >= D.frames.length - 1) { play(); return; }
      setFrame(cur.frame + 1);
    }, 450);
  }
  function showTip(i, ev) {
    if (i < 0) { tip.hidden = true; return; }
    tip.innerHTML = tileHtml(i);
    tip.hidden = false;
    var box = el("kv-mapbox").getBoundingClientRect();
    var x = ev.clientX - box.left + 14, y = ev.clientY - box.top + 14;
    if (x + 300 > box.width) { x = Math.max(0, x - 320); }
    tip.style.left = x + "px"; tip.style.top = y + "px";
  }

  function wire() {
    slider.addEventListener("input", function () { setFrame(+slider.value); });
    el("kv-prev").addEventListener("click", function () { setFrame(cur.frame - 1); });
    el("kv-next").addEventListener("click", function () { setFrame(cur.frame + 1); });
    el("kv-play").addEventListener("click", play);
    el("kv-view").addEventListener("change", function () { setView(+el("kv-view").value); });
    document.addEventListener("keydown", function (e) {
      var tag = e.target && e.target.tagName;
      if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && e.target !== slider)) { return; }
      if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) { return; } // the slider steps itself
      if (e.key === "ArrowLeft") { setFrame(cur.frame - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { setFrame(cur.frame + 1); e.preventDefault(); }
      else if (e.key === "Home") { setFrame(0); e.preventDefault(); }
      else if (e.key === "End") { setFrame(D.frames.length - 1); e.preventDefault(); }
      else if (e.key === " ") { play(); e.preventDefault(); }
    });
    canvas.addEventListener("mousemove", function (e) {
      var r = canvas.getBoundingClientRect(), i = tileAt(e.clientX - r.left, e.clientY - r.top);
      if (i !== hover) { hover = i; draw(); if (pinned < 0) { showTile(); } }
      showTip(i, e);
    });
    canvas.addEventListener("mouseleave", function () { hover = -1; tip.hidden = true; draw(); });
    canvas.addEventListener("click", function (e) {
      var r = canvas.getBoundingClientRect(), i = tileAt(e.clientX - r.left, e.clientY - r.top);
      pinned = (i === pinned) ? -1 : i;
      draw(); showTile(); tab("tile");
    });
    document.querySelectorAll("#kv-tabs button").forEach(function (b) { b.addEventListener("click", function () { tab(b.dataset.tab); }); });
    el("kv-tab-moments").addEventListener("click", function (e) {
      var li = e.target.closest ? e.target.closest("li[data-frame]") : null;
      if (li) { setFrame(+li.dataset.frame); }
    });
    el("kv-tab-chronicle").addEventListener("click", function (e) {
      var p = e.target.closest ? e.target.closest("p[data-month]") : null;
      if (!p) { return; }
      var m = +p.dataset.month;
      for (var n = 0; n < D.frames.length; n++) { if (D.frames[n][2] >= m) { setFrame(n); return; } }
    });
    window.addEventListener("resize", function () { layout(); setFrame(cur.frame); });
  }
  function tab(name) {
    document.querySelectorAll("#kv-tabs button").forEach(function (b) { b.classList.toggle("on", b.dataset.tab === name); });
    ["month", "tile", "moments", "chronicle"].forEach(function (t) { el("kv-tab-" + t).hidden = t !== name; });
  }

  // --- the live page ------------------------------------------------------------------------------------------
  function poll() {
    if (!D.live || location.protocol.indexOf("http") !== 0) { return; }
    var known = D.frames.length;
    setInterval(function () {
      fetch("/watch/data?have=" + known, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
        if (r.status === 204 || !r.ok) { return null; }
        return r.json();
      }).then(function (data) {
        if (!data) { return; }
        var atEnd = cur.frame >= D.frames.length - 1, view = cur.view;
        load(data); known = D.frames.length;
        cur.view = Math.min(view, views.length - 1);
        showMoments(); legend();
        setFrame(atEnd ? D.frames.length - 1 : cur.frame);
      }).catch(function () { /* the server may be restarting: try again at the next tick */ });
    }, 5000);
  }

  // --- start --------------------------------------------------------------------------------------------------
  load(JSON.parse(el("kv-data").textContent));
  layout(); legend(); buildCharts(); wire(); showMoments();
  setView(0);
  setFrame(D.live ? D.frames.length - 1 : 0);
  poll();

  /* A small handle for tests and for the curious: read what the page shows. */
  window.KV = {
    frame: function () { return cur.frame; }, frames: function () { return D.frames.length; },
    view: function () { return views[cur.view].raw.id; },
    views: function () { return views.map(function (v) { return v.raw.id; }); },
    setFrame: setFrame,
    setView: function (id) { for (var n = 0; n < views.length; n++) { if (views[n].raw.id === id) { setView(n); return true; } } return false; },
    month: function () { return el("kv-month").textContent; },
    unitsAt: function (q, r) { var i = index(q, r); return (unitsByTile(F())[i] || []).map(function (u) { return u[0]; }); },
    tileText: function (q, r) { var d = document.createElement("div"); d.innerHTML = tileHtml(index(q, r)); return d.textContent; },
    tilePoint: function (q, r) { var i = index(q, r); if (i < 0) { return null; } var p = centre(i); return { x: p[0], y: p[1] }; }
  };
})();
