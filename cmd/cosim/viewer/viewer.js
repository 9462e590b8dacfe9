// cosim viewer: a small Canvas 2D renderer with a perspective camera and
// painter's-algorithm depth sorting. It reads the scene from the global
// COSIM_DATA that cosim view embeds (or streams with --serve) and needs no
// network access. Written for cosim; no third-party code.
(function () {
  "use strict";
  const D = COSIM_DATA;
  const SPHERE = 1, BOX = 2, PLANE = 3, COIL = 4, LINE = 5;
  const $ = (id) => document.getElementById(id);
  const canvas = $("scene"), ctx = canvas.getContext("2d");
  const slider = $("slider"), playBtn = $("play"), speedSel = $("speed"), timeLabel = $("time");
  const labelsBox = $("labels"), status = $("status");
  const frames = D.frames;
  const cam = { yaw: D.camera.yaw, pitch: D.camera.pitch, dist: 1, target: [0, 0, 0], fov: 1.0 };
  const state = { frame: 0, playing: false, simTime: 0, last: 0, bodies: 0, primitives: 0 };

  // ---- geometry (mirrors node.CoilPoints and node.Rotate) ----
  function rotate(q, p) {
    if (q[0] === 0 && q[1] === 0 && q[2] === 0 && q[3] === 0) return p.slice();
    const w = q[0], v = [q[1], q[2], q[3]];
    const t = cross(v, p); t[0] *= 2; t[1] *= 2; t[2] *= 2;
    const u = cross(v, t);
    return [p[0] + w * t[0] + u[0], p[1] + w * t[1] + u[1], p[2] + w * t[2] + u[2]];
  }
  function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
  function coilPoints(s, tiling) {
    const P = s.p, Q = s.q;
    const a = [Q[0] - P[0], Q[1] - P[1], Q[2] - P[2]];
    const l = Math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (l === 0) return [P.slice()];
    const n = [a[0] / l, a[1] / l, a[2] / l];
    let k = 0;
    for (let i = 1; i < 3; i++) if (Math.abs(n[i]) < Math.abs(n[k])) k = i;
    const e = [0, 0, 0]; e[k] = 1;
    const u = cross(n, e);
    const ul = Math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    u[0] /= ul; u[1] /= ul; u[2] /= ul;
    const v = cross(n, u);
    const r = s.size[0] / 2, turns = Math.max(s.windings, 1);
    const segs = turns * Math.max(tiling, 3);
    const out = [];
    for (let j = 0; j <= segs; j++) {
      const f = j / segs;
      let c = Math.cos(2 * Math.PI * turns * f), sn = Math.sin(2 * Math.PI * turns * f);
      if (j === 0 || j === segs) { c = 0; sn = 0; }
      out.push([0, 1, 2].map((i) => P[i] + f * a[i] + r * (c * u[i] + sn * v[i])));
    }
    return out;
  }
  function decode(a) {
    // [kind, p(3), q(3), size(3), rot(4), windings, color(4)]
    return { kind: a[0], p: a.slice(1, 4), q: a.slice(4, 7), size: a.slice(7, 10), rot: a.slice(10, 14), windings: a[14], color: a.slice(15, 19) };
  }

  // ---- camera ----
  function fitCamera() {
    let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const grow = (p, r) => { for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], p[i] - r); hi[i] = Math.max(hi[i], p[i] + r); } };
    const step = Math.max(1, Math.floor(frames.length / 50));
    for (let f = 0; f < frames.length; f += step) {
      for (const body of frames[f].b) for (const a of body) {
        const s = decode(a);
        if (s.kind === PLANE) { grow(s.p, 0); continue; } // a floor's centre, not its extent
        const r = s.kind === SPHERE ? s.size[0] : Math.max(s.size[0], s.size[1], s.size[2]) / 2;
        grow(s.p, r);
        if (s.kind === COIL || s.kind === LINE) grow(s.q, 0);
      }
    }
    if (!isFinite(lo[0])) { lo = [-1, -1, -1]; hi = [1, 1, 1]; }
    cam.target = [0, 1, 2].map((i) => (lo[i] + hi[i]) / 2);
    const rad = Math.max(0.25, 0.5 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]));
    cam.dist = rad / Math.tan(cam.fov / 2) * 1.15 / (D.camera.zoom || 1);
  }
  function toCamera(p) {
    const x0 = p[0] - cam.target[0], y0 = p[1] - cam.target[1], z0 = p[2] - cam.target[2];
    const cy = Math.cos(cam.yaw), sy = Math.sin(cam.yaw), cp = Math.cos(cam.pitch), sp = Math.sin(cam.pitch);
    const x1 = cy * x0 - sy * z0, z1 = sy * x0 + cy * z0;
    const y2 = cp * y0 - sp * z1, z2 = sp * y0 + cp * z1;
    return [x1, y2, z2];
  }
  function project(c) {
    const w = canvas.width, h = canvas.height;
    const f = 0.5 * Math.min(w, h) / Math.tan(cam.fov / 2);
    const d = Math.max(cam.dist - c[2], 1e-3 * cam.dist);
    return [w / 2 + f * c[0] / d, h / 2 - f * c[1] / d, f / d];
  }
  function css(c, k) {
    const r = Math.round(255 * Math.min(1, c[0] * k)), g = Math.round(255 * Math.min(1, c[1] * k)), b = Math.round(255 * Math.min(1, c[2] * k));
    return "rgba(" + r + "," + g + "," + b + "," + c[3] + ")";
  }
  const LIGHT = (() => { const l = [0.4, 0.8, 0.6], n = Math.hypot(...l); return l.map((x) => x / n); })();

  // ---- drawing ----
  function draw() {
    const w = canvas.width, h = canvas.height;
    ctx.fillStyle = "#f4f4f2"; ctx.fillRect(0, 0, w, h);
    if (frames.length === 0) { state.bodies = 0; state.primitives = 0; return; }
    const fr = frames[state.frame];
    const items = [];
    const labels = [];
    let bodies = 0, prims = 0;
    fr.b.forEach((body, bi) => {
      if (body.length > 0) bodies++;
      let anchor = null;
      for (const a of body) {
        const s = decode(a);
        prims++;
        addItems(s, items);
        if (!anchor) anchor = s.kind === COIL || s.kind === LINE ? [0, 1, 2].map((i) => (s.p[i] + s.q[i]) / 2) : s.p;
      }
      if (anchor) labels.push([D.bodies[bi].name, anchor]);
    });
    items.sort((a, b) => a.z - b.z);
    for (const it of items) it.paint();
    drawAxes();
    if (labelsBox.checked) {
      ctx.font = "12px sans-serif"; ctx.fillStyle = "#222";
      for (const [name, p] of labels) {
        const q = project(toCamera(p));
        ctx.fillText(name, q[0] + 6, q[1] - 6);
      }
    }
    state.bodies = bodies; state.primitives = prims;
  }
  function addItems(s, items) {
    switch (s.kind) {
      case SPHERE: {
        const c = toCamera(s.p), q = project(c), r = s.size[0] * q[2];
        items.push({ z: c[2], paint: () => {
          const g = ctx.createRadialGradient(q[0] - r / 3, q[1] - r / 3, r / 8, q[0], q[1], r);
          g.addColorStop(0, css(s.color, 1.5)); g.addColorStop(1, css(s.color, 0.6));
          ctx.fillStyle = g; ctx.beginPath(); ctx.arc(q[0], q[1], Math.max(r, 1), 0, 2 * Math.PI); ctx.fill();
        } });
        break;
      }
      case BOX: {
        const hx = s.size[0] / 2, hy = s.size[1] / 2, hz = s.size[2] / 2;
        const faces = [[[1, 0, 0], [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]]], [[-1, 0, 0], [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]]],
          [[0, 1, 0], [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]]], [[0, -1, 0], [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]]],
          [[0, 0, 1], [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]]], [[0, 0, -1], [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]]]];
        for (const [n, corners] of faces) {
          const wn = rotate(s.rot, n);
          const pts = corners.map((c) => { const r = rotate(s.rot, [c[0] * hx, c[1] * hy, c[2] * hz]); return [s.p[0] + r[0], s.p[1] + r[1], s.p[2] + r[2]]; });
          const cs = pts.map(toCamera);
          const cn = toCamera([cam.target[0] + wn[0], cam.target[1] + wn[1], cam.target[2] + wn[2]]);
          const ctr = cs.reduce((a, c) => [a[0] + c[0] / 4, a[1] + c[1] / 4, a[2] + c[2] / 4], [0, 0, 0]);
          const view = [-ctr[0], -ctr[1], cam.dist - ctr[2]];
          if (cn[0] * view[0] + cn[1] * view[1] + cn[2] * view[2] <= 0) continue; // back face
          const shade = 0.45 + 0.55 * Math.max(0, wn[0] * LIGHT[0] + wn[1] * LIGHT[1] + wn[2] * LIGHT[2]);
          polygon(items, cs, css(s.color, shade), "rgba(0,0,0,0.35)");
        }
        break;
      }
      case PLANE: {
        const hx = s.size[0] / 2, hz = s.size[2] / 2;
        const cs = [[-1, -1], [1, -1], [1, 1], [-1, 1]].map((c) => { const r = rotate(s.rot, [c[0] * hx, 0, c[1] * hz]); return toCamera([s.p[0] + r[0], s.p[1] + r[1], s.p[2] + r[2]]); });
        const it = polygon(items, cs, css(s.color, 1), "rgba(0,0,0,0.2)");
        it.z = Math.min(...cs.map((c) => c[2])); // floors go behind what stands on them
        break;
      }
      case COIL: case LINE: {
        const pts = s.kind === COIL ? coilPoints(s, D.settings.tiling) : [s.p, s.q];
        const cs = pts.map(toCamera);
        const z = cs.reduce((a, c) => a + c[2], 0) / cs.length;
        items.push({ z: z, paint: () => {
          ctx.strokeStyle = css(s.color, 1); ctx.lineWidth = 2; ctx.beginPath();
          cs.forEach((c, i) => { const q = project(c); if (i === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]); });
          ctx.stroke();
        } });
        break;
      }
    }
  }
  function polygon(items, cs, fill, stroke) {
    const z = cs.reduce((a, c) => a + c[2], 0) / cs.length;
    const it = { z: z, paint: () => {
      ctx.fillStyle = fill; ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.beginPath();
      cs.forEach((c, i) => { const q = project(c); if (i === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]); });
      ctx.closePath(); ctx.fill(); ctx.stroke();
    } };
    items.push(it);
    return it;
  }
  function drawAxes() {
    // A small x (red), y (green), z (blue) triad in the lower left corner.
    const o = [44, canvas.height - 44];
    const axes = [[[1, 0, 0], "#c33", "x"], [[0, 1, 0], "#3a3", "y"], [[0, 0, 1], "#33c", "z"]];
    ctx.lineWidth = 2; ctx.font = "11px sans-serif";
    for (const [a, col, name] of axes) {
      const c = toCamera([cam.target[0] + a[0], cam.target[1] + a[1], cam.target[2] + a[2]]);
      const x = c[0] * 28, y = -c[1] * 28;
      ctx.strokeStyle = col; ctx.fillStyle = col; ctx.beginPath(); ctx.moveTo(o[0], o[1]); ctx.lineTo(o[0] + x, o[1] + y); ctx.stroke();
      ctx.fillText(name, o[0] + x * 1.15, o[1] + y * 1.15);
    }
  }

  // ---- plots ----
  const plotBox = $("plots");
  const plots = [];
  function buildPlots() {
    const S = D.series;
    plotBox.innerHTML = "";
    plots.length = 0;
    if (!S || S.columns.length === 0) { plotBox.textContent = "No recorded fields to plot."; return; }
    const groups = new Map();
    S.columns.forEach((c, j) => { const u = S.units[j] || "1"; if (!groups.has(u)) groups.set(u, []); groups.get(u).push(j); });
    for (const [unit, cols] of groups) {
      const c = document.createElement("canvas");
      c.width = 360; c.height = 170; c.className = "plot";
      plotBox.appendChild(c);
      plots.push({ canvas: c, unit: unit, cols: cols });
    }
  }
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
  function drawPlots() {
    const S = D.series;
    if (!S || frames.length === 0) return;
    const t0 = frames[0].t, t1 = frames[frames.length - 1].t || 1;
    for (const pl of plots) {
      const c = pl.canvas, g = c.getContext("2d");
      const L = 58, R = 8, T = 8, B = 30, W = c.width - L - R, H = c.height - T - B;
      let lo = Infinity, hi = -Infinity;
      for (const fr of frames) for (const j of pl.cols) { const v = fr.v[j]; if (isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
      if (!isFinite(lo)) { lo = -1; hi = 1; }
      // Values close to zero on one side get an axis from zero; a range
      // that crosses zero gets a labelled zero line. Padding never
      // pushes an axis past zero.
      if (lo >= 0 && lo < 0.5 * hi) lo = 0; else if (hi <= 0 && hi > 0.5 * lo) hi = 0;
      if (hi === lo) { hi += 0.5 * Math.max(1e-12, Math.abs(hi)); lo -= 0.5 * Math.max(1e-12, Math.abs(lo)); }
      const pad = 0.05 * (hi - lo);
      if (lo !== 0) lo -= pad;
      if (hi !== 0) hi += pad;
      const X = (t) => L + W * (t - t0) / ((t1 - t0) || 1), Y = (v) => T + H * (hi - v) / (hi - lo);
      g.fillStyle = "#fff"; g.fillRect(0, 0, c.width, c.height);
      g.strokeStyle = "#999"; g.lineWidth = 1; g.strokeRect(L, T, W, H);
      if (lo < 0 && hi > 0) { g.strokeStyle = "#ccc"; g.beginPath(); g.moveTo(L, Y(0)); g.lineTo(L + W, Y(0)); g.stroke(); }
      g.fillStyle = "#333"; g.font = "10px sans-serif";
      g.fillText(fmt(hi), 2, T + 8); g.fillText(fmt(lo), 2, T + H);
      if (lo < 0 && hi > 0 && Y(0) > T + 16 && Y(0) < T + H - 10) g.fillText("0", 2, Y(0) + 3);
      g.fillText(fmt(t0), L, T + H + 12); g.fillText(fmt(t1) + " s", L + W - 40, T + H + 12);
      g.fillText("t (s)", L + W / 2 - 10, T + H + 24);
      g.save(); g.translate(10, T + H / 2 + 20); g.rotate(-Math.PI / 2); g.fillText("[" + pl.unit + "]", 0, 0); g.restore();
      pl.cols.forEach((j, k) => {
        g.strokeStyle = PALETTE[k % PALETTE.length]; g.lineWidth = 1.5; g.beginPath();
        frames.forEach((fr, i) => { const x = X(fr.t), y = Y(fr.v[j]); if (i === 0) g.moveTo(x, y); else g.lineTo(x, y); });
        g.stroke();
        g.fillStyle = PALETTE[k % PALETTE.length]; g.fillText(S.columns[j], L + 6, T + 12 + 11 * k);
      });
      const tc = frames[state.frame].t;
      g.strokeStyle = "#000"; g.lineWidth = 1; g.beginPath(); g.moveTo(X(tc), T); g.lineTo(X(tc), T + H); g.stroke();
    }
  }
  function fmt(x) { return Math.abs(x) >= 1e4 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(2) : (+x.toPrecision(4)).toString(); }

  // ---- controls ----
  function setFrame(i) {
    if (frames.length === 0) return;
    state.frame = Math.max(0, Math.min(frames.length - 1, i | 0));
    slider.value = state.frame;
    state.simTime = frames[state.frame].t;
    timeLabel.textContent = "t = " + fmt(state.simTime) + " s";
    draw(); drawPlots();
  }
  function frameAt(t) {
    let lo = 0, hi = frames.length - 1;
    while (lo < hi) { const m = (lo + hi + 1) >> 1; if (frames[m].t <= t) lo = m; else hi = m - 1; }
    return lo;
  }
  function tick(now) {
    if (state.playing && frames.length > 0) {
      const dt = state.last ? (now - state.last) / 1000 : 0;
      state.simTime += dt * parseFloat(speedSel.value);
      const end = frames[frames.length - 1].t;
      if (state.simTime > end) {
        if (D.live && !D.done) state.simTime = end; else state.simTime = frames[0].t;
      }
      const i = frameAt(state.simTime), t = state.simTime;
      setFrame(i); state.simTime = t;
    }
    state.last = now;
    requestAnimationFrame(tick);
  }
  playBtn.addEventListener("click", () => { state.playing = !state.playing; playBtn.textContent = state.playing ? "Pause" : "Play"; });
  slider.addEventListener("input", () => setFrame(parseInt(slider.value, 10)));
  labelsBox.addEventListener("change", draw);
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = [e.clientX, e.clientY]; });
  window.addEventListener("mouseup", () => { drag = null; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    cam.yaw += (e.clientX - drag[0]) * 0.01;
    cam.pitch = Math.max(-1.5, Math.min(1.5, cam.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY]; draw();
  });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); cam.dist *= Math.exp(e.deltaY * 0.001); draw(); }, { passive: false });
  function resize() {
    const r = canvas.parentElement.getBoundingClientRect();
    canvas.width = Math.max(200, Math.floor(r.width)); canvas.height = Math.max(200, Math.floor(r.height));
    draw();
  }
  window.addEventListener("resize", resize);

  // ---- live frames (cosim view --serve) ----
  function addFrame(fr) {
    const follow = state.frame === frames.length - 1 || frames.length === 0;
    frames.push(fr);
    slider.max = Math.max(0, frames.length - 1);
    if (frames.length === 1) fitCamera();
    if (follow) setFrame(frames.length - 1);
  }
  if (D.live) {
    const es = new EventSource("events");
    es.addEventListener("frame", (e) => { addFrame(JSON.parse(e.data)); status.textContent = "running… " + frames.length + " frames"; });
    es.addEventListener("done", (e) => { D.done = true; status.textContent = e.data; es.close(); drawPlots(); });
    es.addEventListener("error", () => { if (!D.done) status.textContent = "connection closed"; });
  }

  window.cosimView = {
    get frames() { return frames.length; },
    get frame() { return state.frame; },
    get bodies() { return state.bodies; },
    get primitives() { return state.primitives; },
    setFrame: setFrame,
    // anchors returns the pixel position of every drawn body's first
    // primitive (a coil's midpoint), for tests.
    anchors: () => {
      if (frames.length === 0) return [];
      return frames[state.frame].b.map((body) => {
        if (body.length === 0) return null;
        const s = decode(body[0]);
        const p = s.kind === COIL || s.kind === LINE ? [0, 1, 2].map((i) => (s.p[i] + s.q[i]) / 2) : s.p;
        const q = project(toCamera(p));
        return [q[0], q[1]];
      });
    },
    coilPoints: (a, tiling) => coilPoints(decode(a), tiling),
    camera: cam,
  };
  buildPlots();
  fitCamera();
  slider.min = 0; slider.max = Math.max(0, frames.length - 1); slider.value = 0;
  resize();
  setFrame(0);
  requestAnimationFrame(tick);
  window.cosimView.ready = true;
})();
