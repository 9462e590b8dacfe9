// cosim viewer: a WebGL 2 renderer of the primitives node.Drawer nodes draw
// (spheres, boxes, planes, coils, lines, cylinders), with a depth buffer,
// lighting, a floor with a grid and scale, world axes, labels that never
// overlap, trails, follow-a-body, screenshots and recordings, and plots of
// the recorded fields. It reads the scene from the JSON block "cosim-data"
// that cosim view embeds (frames are streamed with --serve) and needs no
// network access.
// Written for cosim; no third-party code. The camera model, lighting,
// floor, minimum body size and label rule are those of the Go renderer
// (internal/raster), so both draw a world point on the same pixel.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("cosim-data").textContent);
  const SPHERE = 1, BOX = 2, PLANE = 3, COIL = 4, LINE = 5, CYLINDER = 6;
  const FOV = 0.8, FIT_MARGIN = 0.08, MIN_PIXELS = 5, LABEL_PX = 12;
  const $ = (id) => document.getElementById(id);
  const glCanvas = $("gl"), overlay = $("overlay"), octx = overlay.getContext("2d");
  const slider = $("slider"), playBtn = $("play"), speedSel = $("speed"), timeLabel = $("time");
  const status = $("status"), tip = $("tip");
  const show = { labels: $("labels"), floor: $("floor"), axes: $("axes"), xray: $("xray"), truesize: $("truesize") };
  const frames = D.frames;
  const bodies = D.bodies;
  const state = { frame: 0, playing: false, simTime: 0, last: 0, drawnBodies: 0, primitives: 0, userCamera: false, follow: -1, trails: new Set(), labelBoxes: [] };

  // ---- vectors (node.Rotate and node.CoilPoints mirrored) ----
  const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const scl = (a, k) => [a[0] * k, a[1] * k, a[2] * k];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const len = (a) => Math.sqrt(dot(a, a));
  const mid = (a, b) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
  function rotate(q, p) {
    if (q[0] === 0 && q[1] === 0 && q[2] === 0 && q[3] === 0) return p.slice();
    const v = [q[1], q[2], q[3]], t = scl(cross(v, p), 2), u = cross(v, t);
    return [p[0] + q[0] * t[0] + u[0], p[1] + q[0] * t[1] + u[1], p[2] + q[0] * t[2] + u[2]];
  }
  function leastAxis(n) {
    let k = 0;
    for (let i = 1; i < 3; i++) if (Math.abs(n[i]) < Math.abs(n[k])) k = i;
    const e = [0, 0, 0]; e[k] = 1;
    return e;
  }
  function coilPoints(s, tiling) {
    const P = s.p, Q = s.q, a = sub(Q, P), l = len(a);
    if (l === 0) return [P.slice()];
    const n = scl(a, 1 / l);
    let u = cross(n, leastAxis(n));
    u = scl(u, 1 / len(u));
    const v = cross(n, u), r = s.size[0] / 2, turns = Math.max(s.windings, 1);
    const segs = turns * Math.max(tiling, 3), out = [];
    for (let j = 0; j <= segs; j++) {
      const f = j / segs;
      let c = Math.cos(2 * Math.PI * turns * f), sn = Math.sin(2 * Math.PI * turns * f);
      if (j === 0 || j === segs) { c = 0; sn = 0; }
      out.push([0, 1, 2].map((i) => P[i] + f * a[i] + r * (c * u[i] + sn * v[i])));
    }
    return out;
  }
  // decode reads a primitive as encodePrim (view.go) writes it: the kind,
  // P, the numbers of that kind, the color.
  function decode(a) {
    const s = { kind: a[0], p: a.slice(1, 4), q: [0, 0, 0], size: [0, 0, 0], rot: [0, 0, 0, 0], windings: 0, color: null };
    let r = 4;
    switch (a[0]) {
      case SPHERE: s.size = [a[4], a[4], a[4]]; r = 5; break;
      case BOX: s.size = a.slice(4, 7); s.rot = a.slice(7, 11); r = 11; break;
      case PLANE: s.size = [a[4], 0, a[5]]; s.rot = a.slice(6, 10); r = 10; break;
      case COIL: s.q = a.slice(4, 7); s.size = [a[7], a[7], a[7]]; s.windings = a[8]; r = 9; break;
      default: s.q = a.slice(4, 7); s.size = [a[7], a[7], a[7]]; r = 8;
    }
    s.color = a.slice(r, r + 4);
    return s;
  }

  // ---- camera (raster.Camera mirrored) ----
  const cam = { yaw: D.camera.yaw, pitch: D.camera.pitch, target: [0, 0, 0], dist: 1, fov: FOV };
  function toCamera(c, p) {
    const x0 = p[0] - c.target[0], y0 = p[1] - c.target[1], z0 = p[2] - c.target[2];
    const cy = Math.cos(c.yaw), sy = Math.sin(c.yaw), cp = Math.cos(c.pitch), sp = Math.sin(c.pitch);
    const x1 = cy * x0 - sy * z0, z1 = sy * x0 + cy * z0;
    return [x1, cp * y0 - sp * z1, sp * y0 + cp * z1];
  }
  function fromCamera(c, v) {
    const cy = Math.cos(c.yaw), sy = Math.sin(c.yaw), cp = Math.cos(c.pitch), sp = Math.sin(c.pitch);
    const y0 = cp * v[1] + sp * v[2], z1 = -sp * v[1] + cp * v[2];
    return [cy * v[0] + sy * z1, y0, -sy * v[0] + cy * z1];
  }
  const focal = (c, w, h) => 0.5 * Math.min(w, h) / Math.tan(c.fov / 2);
  // project returns the pixel position (CSS pixels of the view) and the
  // depth of world point p.
  function project(p, c) {
    c = c || cam;
    const w = view.w, h = view.h, q = toCamera(c, p), d = c.dist - q[2], f = focal(c, w, h);
    return [w / 2 + f * q[0] / d, h / 2 - f * q[1] / d, d];
  }
  function eye(c) { return add(c.target, fromCamera(c, [0, 0, c.dist])); }

  // extent is raster.Extent: the box around everything the frames draw.
  function extent(from, to) {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const grow = (p, r) => { for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], p[i] - r); hi[i] = Math.max(hi[i], p[i] + r); } };
    for (let f = from; f < to; f++) for (const body of frames[f].b) for (const a of body) {
      const s = decode(a);
      switch (s.kind) {
        case PLANE: grow(s.p, 0); break;
        case SPHERE: grow(s.p, s.size[0]); break;
        case BOX: grow(s.p, 0.5 * Math.hypot(s.size[0], s.size[1], s.size[2])); break;
        default: grow(s.p, s.size[0] / 2); grow(s.q, s.size[0] / 2);
      }
    }
    return { lo: lo, hi: hi };
  }
  const boxEmpty = (b) => !(b.lo[0] <= b.hi[0]);
  const boxSize = (b) => boxEmpty(b) ? 0 : Math.max(b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]);
  function boxUnion(a, b) {
    return { lo: [0, 1, 2].map((i) => Math.min(a.lo[i], b.lo[i])), hi: [0, 1, 2].map((i) => Math.max(a.hi[i], b.hi[i])) };
  }
  // fit is raster.Fit: the nearest camera at yaw and pitch that sees
  // every corner of box b inside the view with the margin.
  function fit(b, yaw, pitch, zoom, w, h) {
    if (boxEmpty(b)) b = { lo: [-0.25, -0.25, -0.25], hi: [0.25, 0.25, 0.25] };
    const s = boxSize(b);
    if (!(s >= 1e-9) || !isFinite(s)) {
      const c = mid(b.lo, b.hi);
      b = { lo: sub(c, [0.25, 0.25, 0.25]), hi: add(c, [0.25, 0.25, 0.25]) };
    }
    const c = { yaw: yaw, pitch: pitch, fov: FOV, target: mid(b.lo, b.hi), dist: 0 };
    const f = focal(c, w, h), hw = w / 2 * (1 - FIT_MARGIN), hh = h / 2 * (1 - FIT_MARGIN);
    let d = 0;
    for (let i = 0; i < 8; i++) {
      const p = [0, 1, 2].map((k) => (i & (1 << k)) ? b.hi[k] : b.lo[k]);
      const q = toCamera(c, p);
      d = Math.max(d, q[2] + f * Math.abs(q[0]) / hw, q[2] + f * Math.abs(q[1]) / hh, q[2] + 1e-6 * boxSize(b));
    }
    c.dist = d / (zoom > 0 ? zoom : 1);
    return c;
  }
  // niceFloor is raster.NiceFloor: the largest 1, 2 or 5 × 10^k ≤ x.
  function niceFloor(x) {
    if (!(x > 0) || !isFinite(x)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(x))), r = x / p * (1 + 1e-12);
    return r >= 5 ? 5 * p : r >= 2 ? 2 * p : p;
  }
  // floorUnder is raster.FloorUnder.
  function floorUnder(b) {
    if (boxEmpty(b)) b = { lo: [-0.25, -0.25, -0.25], hi: [0.25, 0.25, 0.25] };
    const size = Math.max(boxSize(b), 1e-6), sp = niceFloor(size / 5);
    const fl = { y: b.lo[1] - 0.01 * size, spacing: sp, lo: [0, 0], hi: [0, 0] };
    [0, 2].forEach((i, k) => {
      const c = (b.lo[i] + b.hi[i]) / 2, half = Math.max((b.hi[i] - b.lo[i]) / 2 + 2 * sp, 4 * sp);
      fl.lo[k] = Math.floor((c - half) / sp) * sp;
      fl.hi[k] = Math.ceil((c + half) / sp) * sp;
    });
    return fl;
  }
  let runBox = { lo: [Infinity, Infinity, Infinity], hi: [-Infinity, -Infinity, -Infinity] }, runFloor = floorUnder(runBox), boxFrames = 0;
  function growRun() {
    if (boxFrames < frames.length) { runBox = boxUnion(runBox, extent(boxFrames, frames.length)); boxFrames = frames.length; runFloor = floorUnder(runBox); }
  }
  function fitCamera() {
    growRun();
    const c = fit(runBox, D.camera.yaw, D.camera.pitch, D.camera.zoom || 1, view.w, view.h);
    Object.assign(cam, c);
  }
  const axesShown = () => show.axes.checked && show.floor.checked && runFloor.lo[0] <= 0 && 0 <= runFloor.hi[0] && runFloor.lo[1] <= 0 && 0 <= runFloor.hi[1] && runFloor.y <= 0;

  // ---- label placement (raster.Place mirrored) ----
  function overlaps(a, b, gap) { return a[0] < b[2] + gap && b[0] < a[2] + gap && a[1] < b[3] + gap && b[1] < a[3] + gap; }
  function place(labels, w, h, reserved) {
    const taken = reserved.slice(), out = [];
    for (const l of labels) {
      let got = null;
      if (l.ax >= 0 && l.ax <= w && l.ay >= 0 && l.ay <= h) {
        for (let ring = 0; ring < 2 && !got; ring++) {
          const d = l.r + 4 * [1, 3][ring], e = d * Math.SQRT1_2;
          const cands = [[l.ax + d, l.ay - l.h / 2], [l.ax + e, l.ay - e - l.h], [l.ax - d - l.w, l.ay - l.h / 2], [l.ax + e, l.ay + e],
            [l.ax - e - l.w, l.ay - e - l.h], [l.ax - e - l.w, l.ay + e], [l.ax - l.w / 2, l.ay - d - l.h], [l.ax - l.w / 2, l.ay + d]];
          for (const c of cands) {
            const r = [c[0], c[1], c[0] + l.w, c[1] + l.h];
            if (r[0] < 1 || r[1] < 1 || r[2] > w - 1 || r[3] > h - 1) continue;
            if (taken.some((t) => overlaps(r, t, 2))) continue;
            got = { box: r, leader: ring > 0 };
            break;
          }
        }
      }
      if (got) taken.push(got.box);
      out.push(got);
    }
    return out;
  }

  // ---- WebGL ----
  const view = { w: 300, h: 200, dpr: 1 };
  const gl = glCanvas.getContext("webgl2", { antialias: true, preserveDrawingBuffer: true });
  const VS = `#version 300 es
precision highp float;
layout(location=0) in vec3 aPos;
layout(location=1) in vec3 aNormal;
layout(location=2) in vec4 iA;
layout(location=3) in vec4 iB;
layout(location=4) in vec4 iC;
layout(location=5) in vec4 iColor;
uniform mat4 uView, uProj;
uniform int uKind;
uniform vec3 uEye, uFwd;
uniform float uMinPerDepth, uPixelPerDepth;
out vec3 vNormal; out vec4 vColor;
vec3 rotq(vec4 q, vec3 p) { if (q == vec4(0.0)) return p; vec3 v = q.yzw; vec3 t = 2.0 * cross(v, p); return p + q.x * t + cross(v, t); }
vec3 leastAxis(vec3 n) { vec3 a = abs(n); if (a.x <= a.y && a.x <= a.z) return vec3(1,0,0); if (a.y <= a.z) return vec3(0,1,0); return vec3(0,0,1); }
vec3 helix(vec3 P, vec3 a, vec3 u, vec3 v, float r, float turns, float segs, float j) {
  float f = j / segs; float th = 6.283185307179586 * turns * f;
  float c = cos(th), s = sin(th);
  if (j <= 0.0 || j >= segs) { c = 0.0; s = 0.0; }
  return P + f * a + r * (c * u + s * v);
}
void main() {
  vec3 p, n;
  if (uKind == 1) {
    float d = dot(iA.xyz - uEye, uFwd);
    float r = max(iA.w, uMinPerDepth * d);
    p = iA.xyz + r * aPos; n = aPos;
  } else if (uKind == 2) {
    vec3 s = iB.xyz; float h = 0.5 * max(s.x, max(s.y, s.z));
    float m = uMinPerDepth * dot(iA.xyz - uEye, uFwd);
    if (h < m && h > 0.0) s *= m / h;
    p = iA.xyz + rotq(iC, s * aPos); n = rotq(iC, aNormal);
  } else if (uKind == 3) {
    vec3 P = iA.xyz, a = iB.xyz - iA.xyz; float L = length(a);
    vec3 w = L > 0.0 ? a / L : vec3(0.0, 1.0, 0.0);
    vec3 u = normalize(cross(w, leastAxis(w))), v = cross(w, u);
    float r = max(iA.w, 0.75 * uPixelPerDepth * dot(P + 0.5 * a - uEye, uFwd));
    p = P + r * (aPos.x * u + aPos.y * v) + aPos.z * a;
    n = normalize(aNormal.x * u + aNormal.y * v + aNormal.z * w);
  } else {
    vec3 P = iA.xyz, a = iB.xyz - iA.xyz; float L = length(a);
    vec3 w = L > 0.0 ? a / L : vec3(0.0, 1.0, 0.0);
    vec3 u = normalize(cross(w, leastAxis(w))), v = cross(w, u);
    float r = iA.w, turns = iC.x, segs = iC.y, j = aPos.x, phi = aPos.y;
    vec3 c = helix(P, a, u, v, r, turns, segs, j);
    vec3 T = helix(P, a, u, v, r, turns, segs, min(j + 1.0, segs)) - helix(P, a, u, v, r, turns, segs, max(j - 1.0, 0.0));
    T = length(T) > 0.0 ? normalize(T) : w;
    float th = 6.283185307179586 * turns * j / segs;
    vec3 rad = cos(th) * u + sin(th) * v;
    vec3 N1 = rad - dot(rad, T) * T; N1 = length(N1) > 1e-9 ? normalize(N1) : u;
    vec3 B = cross(T, N1);
    float wire = max(iB.w, 0.6 * uPixelPerDepth * dot(c - uEye, uFwd));
    n = cos(phi) * N1 + sin(phi) * B;
    p = c + wire * n;
  }
  vNormal = n; vColor = iColor;
  gl_Position = uProj * uView * vec4(p, 1.0);
}`;
  // SHADE is the lighting shared by the shaders (raster.shadeColor): a
  // key light, a sky/ground ambient term and a small highlight.
  const SHADE = `
uniform vec3 uLight, uViewV;
vec3 shade(vec3 c, vec3 n) {
  float ndl = max(0.0, dot(n, uLight));
  float amb = 0.34 + 0.12 * (0.5 + 0.5 * n.y);
  vec3 h = normalize(uLight + uViewV);
  float spec = 0.2 * pow(max(0.0, dot(n, h)), 40.0);
  return c * (amb + 0.62 * ndl) + spec;
}`;
  const FS = `#version 300 es
precision highp float;
in vec3 vNormal; in vec4 vColor;
uniform float uAlpha;
uniform int uTwoSided;
out vec4 o;
${SHADE}
void main() {
  vec3 n = normalize(vNormal);
  if (uTwoSided == 1 && dot(n, uViewV) < 0.0) n = -n;
  o = vec4(shade(vColor.rgb, n), uAlpha);
}`;
  const FLOOR_VS = `#version 300 es
precision highp float;
layout(location=0) in vec3 aPos;
uniform mat4 uView, uProj;
out vec3 vWorld;
void main() { vWorld = aPos; gl_Position = uProj * uView * vec4(aPos, 1.0); }`;
  const FLOOR_FS = `#version 300 es
precision highp float;
in vec3 vWorld;
uniform float uSpacing;
uniform vec4 uRect;
out vec4 o;
void main() {
  vec2 g = vWorld.xz / uSpacing;
  vec2 fw = max(fwidth(g), vec2(1e-6));
  vec2 dist = abs(g - floor(g + 0.5)) / fw;
  vec2 k = floor(g + 0.5);
  float minor = 1.0 - min(min(dist.x, dist.y), 1.0);
  float major = max((mod(k.x, 5.0) == 0.0 ? 1.0 - min(dist.x, 1.0) : 0.0), (mod(k.y, 5.0) == 0.0 ? 1.0 - min(dist.y, 1.0) : 0.0));
  vec2 fwW = fwidth(vWorld.xz);
  vec2 e = min(vWorld.xz - uRect.xy, uRect.zw - vWorld.xz) / max(fwW, vec2(1e-9));
  float edge = 1.0 - min(min(e.x, e.y) / 2.0, 1.0);
  vec3 c = vec3(0.90, 0.90, 0.88);
  c = mix(c, vec3(0.74, 0.74, 0.71), minor);
  c = mix(c, vec3(0.60, 0.60, 0.57), major);
  c = mix(c, vec3(0.80, 0.80, 0.78), edge);
  o = vec4(c, 1.0);
}`;
  // Small spheres (a radius under 12 pixels, crowded scenes draw tens of
  // thousands) are drawn as impostors: one point each, its disc shaded and
  // its depth set per pixel as the sphere's.
  const DOT_VS = `#version 300 es
precision highp float;
layout(location=2) in vec4 iA;
layout(location=5) in vec4 iColor;
uniform mat4 uView, uProj;
uniform vec3 uEye, uFwd;
uniform float uMinPerDepth, uFocal, uDpr;
out vec4 vColor; out vec3 vCentre; out float vR;
void main() {
  float d = dot(iA.xyz - uEye, uFwd);
  float r = max(iA.w, uMinPerDepth * d);
  vec4 e = uView * vec4(iA.xyz, 1.0);
  vCentre = e.xyz; vR = r; vColor = iColor;
  gl_Position = uProj * e;
  gl_PointSize = 2.0 * (r * uFocal / max(-e.z, 1e-9)) * uDpr + 1.0;
}`;
  const DOT_FS = `#version 300 es
precision highp float;
in vec4 vColor; in vec3 vCentre; in float vR;
uniform mat4 uProj;
uniform mat3 uCamToWorld;
uniform float uAlpha, uFocal, uDpr;
out vec4 o;
${SHADE}
void main() {
  vec2 q = gl_PointCoord * 2.0 - 1.0;
  q.y = -q.y;
  // The point is one pixel wider than the disc: scale to the disc.
  float size = 2.0 * (vR * uFocal / max(-vCentre.z, 1e-9)) * uDpr + 1.0;
  q *= size / (size - 1.0);
  float r2 = dot(q, q);
  if (r2 > 1.0) discard;
  vec3 nc = vec3(q, sqrt(1.0 - r2));
  vec3 n = normalize(uCamToWorld * nc);
  vec4 clip = uProj * vec4(vCentre + vR * nc, 1.0);
  gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
  o = vec4(shade(vColor.rgb, n), uAlpha);
}`;
  const LINE_FS = `#version 300 es
precision highp float;
uniform vec4 uColor;
out vec4 o;
void main() { o = uColor; }`;
  function program(vs, fs) {
    const mk = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src); gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, mk(gl.VERTEX_SHADER, vs)); gl.attachShader(p, mk(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
    const u = {}, n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
    for (let i = 0; i < n; i++) { const name = gl.getActiveUniform(p, i).name; u[name] = gl.getUniformLocation(p, name); }
    return { p: p, u: u };
  }
  let progMesh, progFloor, progLine, progDot, dotVAO, meshes = {}, instBuf, floorBuf, lineBuf;
  // mesh makes a vertex array of interleaved positions and normals (6
  // floats a vertex) with triangle indices, its instance attributes read
  // from instBuf.
  function mesh(verts, idx) {
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const vb = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, vb); gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(verts), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 24, 0);
    gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 24, 12);
    gl.bindBuffer(gl.ARRAY_BUFFER, instBuf);
    for (let k = 0; k < 4; k++) {
      gl.enableVertexAttribArray(2 + k); gl.vertexAttribPointer(2 + k, 4, gl.FLOAT, false, 64, 16 * k); gl.vertexAttribDivisor(2 + k, 1);
    }
    const ib = gl.createBuffer();
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib); gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(idx), gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    return { vao: vao, n: idx.length };
  }
  function sphereMesh(nl, nt) {
    const v = [], idx = [];
    for (let i = 0; i <= nt; i++) {
      const th = Math.PI * i / nt;
      for (let j = 0; j <= nl; j++) {
        const ph = 2 * Math.PI * j / nl, p = [Math.sin(th) * Math.cos(ph), Math.cos(th), Math.sin(th) * Math.sin(ph)];
        v.push(...p, ...p);
      }
    }
    for (let i = 0; i < nt; i++) for (let j = 0; j < nl; j++) {
      const a = i * (nl + 1) + j, b = a + nl + 1;
      idx.push(a, b, a + 1, a + 1, b, b + 1);
    }
    return mesh(v, idx);
  }
  function boxMesh() {
    const v = [], idx = [];
    const faces = [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]], [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
      [[0, -1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]]];
    faces.forEach(([n, a, b], f) => {
      for (const [s, t] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) v.push(...[0, 1, 2].map((i) => 0.5 * (n[i] + s * a[i] + t * b[i])), ...n);
      idx.push(4 * f, 4 * f + 1, 4 * f + 2, 4 * f, 4 * f + 2, 4 * f + 3);
    });
    return mesh(v, idx);
  }
  function cylinderMesh() {
    const v = [], idx = [], n = 16;
    for (let i = 0; i <= n; i++) {
      const a = 2 * Math.PI * i / n, c = Math.cos(a), s = Math.sin(a);
      v.push(c, s, 0, c, s, 0, c, s, 1, c, s, 0);
    }
    for (let i = 0; i < n; i++) { const a = 2 * i; idx.push(a, a + 1, a + 2, a + 2, a + 1, a + 3); }
    for (const z of [0, 1]) {
      const c0 = v.length / 6;
      v.push(0, 0, z, 0, 0, z ? 1 : -1);
      for (let i = 0; i <= n; i++) { const a = 2 * Math.PI * i / n; v.push(Math.cos(a), Math.sin(a), z, 0, 0, z ? 1 : -1); }
      for (let i = 0; i < n; i++) idx.push(c0, c0 + 1 + i, c0 + 2 + i);
    }
    return mesh(v, idx);
  }
  function coilMesh(segs) {
    const v = [], idx = [], sides = 6;
    for (let j = 0; j <= segs; j++) for (let k = 0; k <= sides; k++) v.push(j, 2 * Math.PI * k / sides, 0, 0, 0, 0);
    for (let j = 0; j < segs; j++) for (let k = 0; k < sides; k++) {
      const a = j * (sides + 1) + k, b = a + sides + 1;
      idx.push(a, b, a + 1, a + 1, b, b + 1);
    }
    return mesh(v, idx);
  }
  function initGL() {
    progMesh = program(VS, FS);
    progFloor = program(FLOOR_VS, FLOOR_FS);
    progLine = program(FLOOR_VS, LINE_FS);
    progDot = program(DOT_VS, DOT_FS);
    instBuf = gl.createBuffer();
    dotVAO = gl.createVertexArray();
    gl.bindVertexArray(dotVAO);
    gl.bindBuffer(gl.ARRAY_BUFFER, instBuf);
    gl.enableVertexAttribArray(2); gl.vertexAttribPointer(2, 4, gl.FLOAT, false, 64, 0);
    gl.enableVertexAttribArray(5); gl.vertexAttribPointer(5, 4, gl.FLOAT, false, 64, 48);
    gl.bindVertexArray(null);
    meshes = { sphere: sphereMesh(24, 14), box: boxMesh(), cylinder: cylinderMesh(), coil: {} };
    floorBuf = gl.createBuffer();
    lineBuf = gl.createBuffer();
  }

  // viewMatrix and projMatrix are the camera's, column-major: eye
  // coordinates are toCamera(p) − (0, 0, dist).
  function viewMatrix(c) {
    const o = toCamera(c, [0, 0, 0]);
    const cx = sub(toCamera(c, [1, 0, 0]), o), cy = sub(toCamera(c, [0, 1, 0]), o), cz = sub(toCamera(c, [0, 0, 1]), o);
    return [cx[0], cx[1], cx[2], 0, cy[0], cy[1], cy[2], 0, cz[0], cz[1], cz[2], 0, o[0], o[1], o[2] - c.dist, 1];
  }
  function projMatrix(c, w, h) {
    const f = focal(c, w, h), near = c.dist * 1e-3, far = c.dist * 100 + 10 * boxSize(runBox);
    return [2 * f / w, 0, 0, 0, 0, 2 * f / h, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0];
  }
  const LIGHT = (() => { const l = [0.35, 0.8, 0.55], n = len(l); return scl(l, 1 / n); })();

  // instances gathers the primitives of a frame into instance data, by
  // pass (opaque, faded, x-ray) and mesh.
  function instances(fr) {
    const out = { opaque: {}, conn: {}, faded: {}, xray: {} };
    const push = (pass, key, a, b, c, col) => {
      const g = out[pass][key] || (out[pass][key] = []);
      g.push(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], c[0], c[1], c[2], c[3], col[0], col[1], col[2], 1);
    };
    let drawn = 0, prims = 0;
    const fpx = focal(cam, view.w, view.h), e = eye(cam), fwd = fromCamera(cam, [0, 0, -1]);
    const depth = (p) => Math.max(dot(sub(p, e), fwd), 1e-9 * cam.dist);
    fr.b.forEach((body, bi) => {
      if (body.length > 0) drawn++;
      const info = bodies[bi] || {};
      const passes = [info.unknown ? "faded" : info.connector ? "conn" : "opaque"];
      if (info.connector && show.xray.checked) passes.push("xray");
      for (const arr of body) {
        const s = decode(arr);
        prims++;
        for (const pass of passes) {
          switch (s.kind) {
            case SPHERE: {
              // Few triangles for a sphere a few pixels wide (crowded
              // scenes draw tens of thousands).
              const px = Math.max(s.size[0] * fpx / depth(s.p), show.truesize.checked ? 0 : MIN_PIXELS);
              push(pass, px < 12 ? "dot" : "sphere", [...s.p, s.size[0]], [0, 0, 0, 0], [0, 0, 0, 0], s.color);
              break;
            }
            case BOX: push(pass, "box", [...s.p, 0], [...s.size, 0], s.rot, s.color); break;
            case PLANE: {
              const t = 2e-3 * Math.max(s.size[0], s.size[2]);
              push(pass, "plane", [...s.p, 0], [s.size[0], t, s.size[2], 0], s.rot, s.color);
              break;
            }
            case LINE: push(pass, "cylinder", [...s.p, s.size[0] / 16], [...s.q, 0], [0, 0, 0, 0], s.color); break;
            case CYLINDER: push(pass, "cylinder", [...s.p, s.size[0] / 2], [...s.q, 0], [0, 0, 0, 0], s.color); break;
            case COIL: {
              // A coil smaller than a pixel or two is not drawn, as the Go
              // renderer does not draw it.
              const k = fpx / depth(mid(s.p, s.q));
              if (len(sub(s.q, s.p)) * k < 1.5 && s.size[0] * k < 1.5) break;
              const turns = Math.max(s.windings, 1), segs = turns * Math.max(D.settings.tiling, 3);
              push(pass, "coil" + segs, [...s.p, s.size[0] / 2], [...s.q, s.size[0] / 16], [turns, segs, 0, 0], s.color);
              break;
            }
          }
        }
      }
    });
    state.drawnBodies = drawn; state.primitives = prims;
    return out;
  }
  function drawGroup(key, data, kind) {
    if (key === "dot") return drawDots(data);
    let m;
    if (key.startsWith("coil")) {
      const segs = parseInt(key.slice(4), 10);
      m = meshes.coil[segs] || (meshes.coil[segs] = coilMesh(segs));
    } else m = key === "plane" ? meshes.box : meshes[key];
    gl.bindBuffer(gl.ARRAY_BUFFER, instBuf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.DYNAMIC_DRAW);
    gl.uniform1i(progMesh.u.uKind, kind);
    gl.uniform1i(progMesh.u.uTwoSided, key === "plane" ? 1 : 0);
    gl.bindVertexArray(m.vao);
    gl.drawElementsInstanced(gl.TRIANGLES, m.n, gl.UNSIGNED_INT, 0, data.length / 16);
    gl.bindVertexArray(null);
  }
  // drawDots draws sphere impostors (one point each) with the mesh
  // program's uniforms as they are set.
  function drawDots(data) {
    const V = viewMatrix(cam), P = projMatrix(cam, view.w, view.h);
    const fCSS = focal(cam, view.w, view.h), fwd = fromCamera(cam, [0, 0, -1]);
    const bx = fromCamera(cam, [1, 0, 0]), by = fromCamera(cam, [0, 1, 0]), bz = fromCamera(cam, [0, 0, 1]);
    const alpha = gl.getUniform(progMesh.p, progMesh.u.uAlpha);
    gl.useProgram(progDot.p);
    gl.uniformMatrix4fv(progDot.u.uView, false, V); gl.uniformMatrix4fv(progDot.u.uProj, false, P);
    gl.uniformMatrix3fv(progDot.u.uCamToWorld, false, [...bx, ...by, ...bz]);
    gl.uniform3fv(progDot.u.uEye, eye(cam)); gl.uniform3fv(progDot.u.uFwd, fwd);
    gl.uniform3fv(progDot.u.uLight, LIGHT); gl.uniform3fv(progDot.u.uViewV, scl(fwd, -1));
    gl.uniform1f(progDot.u.uMinPerDepth, show.truesize.checked ? 0 : MIN_PIXELS / fCSS);
    gl.uniform1f(progDot.u.uFocal, fCSS); gl.uniform1f(progDot.u.uDpr, view.dpr);
    gl.uniform1f(progDot.u.uAlpha, alpha);
    gl.bindBuffer(gl.ARRAY_BUFFER, instBuf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.DYNAMIC_DRAW);
    gl.bindVertexArray(dotVAO);
    gl.drawArrays(gl.POINTS, 0, data.length / 16);
    gl.bindVertexArray(null);
    gl.useProgram(progMesh.p);
  }
  const kindOf = (key) => key === "sphere" || key === "dot" ? 1 : key === "box" || key === "plane" ? 2 : key === "cylinder" ? 3 : 4;
  function render() {
    if (!gl || !progMesh) return;
    gl.viewport(0, 0, glCanvas.width, glCanvas.height);
    gl.clearColor(0xf4 / 255, 0xf4 / 255, 0xf2 / 255, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if (frames.length === 0) return;
    gl.enable(gl.DEPTH_TEST); gl.depthFunc(gl.LESS); gl.depthMask(true); gl.disable(gl.BLEND); gl.disable(gl.CULL_FACE);
    const V = viewMatrix(cam), P = projMatrix(cam, view.w, view.h);
    const e = eye(cam), fwd = scl(fromCamera(cam, [0, 0, -1]), 1);
    const viewV = scl(fwd, -1), fCSS = focal(cam, view.w, view.h);
    // Floor.
    if (show.floor.checked) {
      const f = runFloor;
      gl.useProgram(progFloor.p);
      gl.uniformMatrix4fv(progFloor.u.uView, false, V); gl.uniformMatrix4fv(progFloor.u.uProj, false, P);
      gl.uniform1f(progFloor.u.uSpacing, f.spacing); gl.uniform4f(progFloor.u.uRect, f.lo[0], f.lo[1], f.hi[0], f.hi[1]);
      const q = [f.lo[0], f.y, f.lo[1], f.hi[0], f.y, f.lo[1], f.hi[0], f.y, f.hi[1], f.lo[0], f.y, f.lo[1], f.hi[0], f.y, f.hi[1], f.lo[0], f.y, f.hi[1]];
      gl.bindBuffer(gl.ARRAY_BUFFER, floorBuf); gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(q), gl.DYNAMIC_DRAW);
      gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 12, 0);
      gl.drawArrays(gl.TRIANGLES, 0, 6);
      gl.disableVertexAttribArray(0);
    }
    gl.useProgram(progMesh.p);
    gl.uniformMatrix4fv(progMesh.u.uView, false, V); gl.uniformMatrix4fv(progMesh.u.uProj, false, P);
    gl.uniform3fv(progMesh.u.uEye, e); gl.uniform3fv(progMesh.u.uFwd, fwd);
    gl.uniform3fv(progMesh.u.uLight, LIGHT); gl.uniform3fv(progMesh.u.uViewV, viewV);
    gl.uniform1f(progMesh.u.uMinPerDepth, show.truesize.checked ? 0 : MIN_PIXELS / fCSS);
    gl.uniform1f(progMesh.u.uPixelPerDepth, 1 / fCSS);
    gl.uniform1f(progMesh.u.uAlpha, 1);
    if (axesShown()) {
      const l = runFloor.spacing, cols = [[0.8, 0.15, 0.15], [0.1, 0.6, 0.1], [0.15, 0.25, 0.85]], data = [];
      for (let k = 0; k < 3; k++) { const q = [0, 0, 0]; q[k] = l; data.push(0, 0, 0, l / 40, ...q, 0, 0, 0, 0, 0, ...cols[k], 1); }
      gl.uniform1f(progMesh.u.uPixelPerDepth, 2 / fCSS);
      drawGroup("cylinder", data, 3);
      gl.uniform1f(progMesh.u.uPixelPerDepth, 1 / fCSS);
    }
    const inst = instances(frames[state.frame]);
    for (const key in inst.opaque) drawGroup(key, inst.opaque[key], kindOf(key));
    // Connectors where bodies hide them, faintly (before the connectors
    // themselves, so a coil's far side does not show through its near
    // side), then the connectors.
    gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.depthMask(false); gl.depthFunc(gl.GREATER);
    gl.uniform1f(progMesh.u.uAlpha, 0.4);
    for (const key in inst.xray) drawGroup(key, inst.xray[key], kindOf(key));
    gl.depthFunc(gl.LESS); gl.depthMask(true); gl.disable(gl.BLEND);
    gl.uniform1f(progMesh.u.uAlpha, 1);
    for (const key in inst.conn) drawGroup(key, inst.conn[key], kindOf(key));
    drawTrails(V, P);
    gl.enable(gl.BLEND);
    gl.uniform1f(progMesh.u.uAlpha, 0.35);
    for (const key in inst.faded) drawGroup(key, inst.faded[key], kindOf(key));
    gl.disable(gl.BLEND);
  }
  function drawTrails(V, P) {
    if (state.trails.size === 0) return;
    gl.useProgram(progLine.p);
    gl.uniformMatrix4fv(progLine.u.uView, false, V); gl.uniformMatrix4fv(progLine.u.uProj, false, P);
    for (const bi of state.trails) {
      const pts = [];
      let col = [0.3, 0.3, 0.3];
      for (let f = 0; f <= state.frame; f++) {
        const a = anchorOf(frames[f].b[bi], bi);
        if (a) pts.push(...a.p);
        if (a && f === state.frame) col = a.color;
      }
      if (pts.length < 6) continue;
      gl.uniform4f(progLine.u.uColor, col[0] * 0.7, col[1] * 0.7, col[2] * 0.7, 1);
      gl.bindBuffer(gl.ARRAY_BUFFER, lineBuf); gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(pts), gl.DYNAMIC_DRAW);
      gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 12, 0);
      gl.drawArrays(gl.LINE_STRIP, 0, pts.length / 3);
      gl.disableVertexAttribArray(0);
    }
    gl.useProgram(progMesh.p);
  }

  // anchorOf is raster.anchor: where a body's label points — its first
  // sphere or box, or a connector's longest coil, line or cylinder — with
  // the radius drawn there (pixels) and its color.
  function anchorOf(body, bi) {
    if (!body || body.length === 0) return null;
    const conn = bodies[bi] && bodies[bi].connector;
    if (conn) {
      let best = -1, got = null;
      for (const a of body) {
        const s = decode(a);
        if (s.kind === COIL || s.kind === LINE || s.kind === CYLINDER) {
          const l = len(sub(s.q, s.p));
          if (l > best) { best = l; got = { p: mid(s.p, s.q), r: 0, color: s.color, prim: s }; }
        }
      }
      if (got) return got;
    }
    const s = decode(body[0]);
    if (s.kind === COIL || s.kind === LINE || s.kind === CYLINDER) return { p: mid(s.p, s.q), r: 0, color: s.color, prim: s };
    let r = 0;
    if (!conn) {
      if (s.kind === SPHERE) r = s.size[0];
      if (s.kind === BOX) r = 0.5 * Math.max(s.size[0], s.size[1], s.size[2]);
    }
    return { p: s.p, r: r, color: s.color, prim: s, world: r };
  }
  // drawnRadius is the radius in pixels a body's sphere or box is drawn
  // with at depth d (at least MIN_PIXELS unless true size is asked).
  function drawnRadius(r, d) {
    const px = r * focal(cam, view.w, view.h) / d;
    return show.truesize.checked ? px : Math.max(px, MIN_PIXELS);
  }

  // ---- overlay: labels, axis letters, triad, scale bar, caption ----
  // textWidth measures text in the overlay's label font, remembering the
  // widths (crowded scenes label tens of thousands of nodes).
  const widths = new Map();
  function textWidth(text) {
    let w = widths.get(text);
    if (w === undefined) { w = octx.measureText(text).width; widths.set(text, w); }
    return w;
  }
  function font(px, serif) { return px + "px " + (serif ? '"Liberation Serif", "Times New Roman", serif' : '"Liberation Sans", Arial, Helvetica, sans-serif'); }
  function drawOverlay() {
    const w = view.w, h = view.h;
    octx.setTransform(view.dpr, 0, 0, view.dpr, 0, 0);
    octx.clearRect(0, 0, w, h);
    state.labelBoxes = [];
    if (frames.length === 0) return;
    octx.font = font(LABEL_PX);
    octx.textBaseline = "top";
    const m = octx.measureText("Hg"), th = (m.fontBoundingBoxAscent || 10) + (m.fontBoundingBoxDescent || 3);
    const reserved = [[0, h - 56, 56, h], [w - 150, h - 40, w, h]];
    // Caption: the time, for screenshots and recordings.
    const cap = "t = " + fmtT(frames[state.frame].t) + " s" + (bodies.some((b) => b.unknown) ? " · partial replay: nodes marked (?) lack recorded data" : "");
    const cw = octx.measureText(cap).width;
    octx.fillStyle = "rgba(255,255,255,0.8)"; octx.fillRect(6, 6, cw + 8, th + 4);
    octx.fillStyle = "#222"; octx.fillText(cap, 10, 8);
    reserved.push([6, 6, 6 + cw + 8, 6 + th + 4]);
    if (axesShown()) {
      const cols = ["#cc2626", "#1a991a", "#2640d9"];
      ["x", "y", "z"].forEach((name, k) => {
        const e = [0, 0, 0]; e[k] = runFloor.spacing * 1.12;
        const p = project(e), tw = octx.measureText(name).width;
        octx.fillStyle = cols[k]; octx.fillText(name, p[0] - tw / 2, p[1] - th / 2);
        reserved.push([p[0] - tw / 2, p[1] - th / 2, p[0] + tw / 2, p[1] + th / 2]);
      });
    }
    if (show.axes.checked) drawTriad(th);
    if (show.floor.checked) drawScale(th);
    if (!show.labels.checked) return;
    const order = [];
    for (const conn of [false, true]) frames[state.frame].b.forEach((body, bi) => { if (!!(bodies[bi] && bodies[bi].connector) === conn) order.push(bi); });
    const labels = [], idx = [];
    for (const bi of order) {
      const a = anchorOf(frames[state.frame].b[bi], bi);
      if (!a) continue;
      const p = project(a.p);
      if (!(p[2] > 0)) continue;
      const text = bodies[bi].name + (bodies[bi].unknown ? " (?)" : "");
      labels.push({ ax: p[0], ay: p[1], r: a.r > 0 ? Math.min(drawnRadius(a.r, p[2]), 40) : 0, w: textWidth(text) + 6, h: th + 2, text: text, unknown: !!bodies[bi].unknown });
      idx.push(bi);
    }
    place(labels, w, h, reserved).forEach((pl, i) => {
      if (!pl) return;
      const l = labels[i], b = pl.box;
      if (pl.leader) {
        octx.strokeStyle = "#666"; octx.lineWidth = 1; octx.beginPath(); octx.moveTo(l.ax, l.ay);
        octx.lineTo(Math.max(b[0], Math.min(l.ax, b[2])), Math.max(b[1], Math.min(l.ay, b[3]))); octx.stroke();
      }
      octx.fillStyle = "rgba(255,255,255,0.75)"; octx.fillRect(b[0], b[1], b[2] - b[0], b[3] - b[1]);
      octx.fillStyle = l.unknown ? "#993300" : "#222"; octx.fillText(l.text, b[0] + 3, b[1] + 1);
      state.labelBoxes.push({ name: bodies[idx[i]].name, box: b });
    });
  }
  function drawTriad(th) {
    const ox = 28, oy = view.h - 28, cols = ["#cc2626", "#1a991a", "#2640d9"];
    octx.lineWidth = 2;
    ["x", "y", "z"].forEach((name, k) => {
      const e = [0, 0, 0]; e[k] = 1;
      const c = toCamera({ yaw: cam.yaw, pitch: cam.pitch, target: [0, 0, 0] }, e);
      octx.strokeStyle = cols[k]; octx.fillStyle = cols[k];
      octx.beginPath(); octx.moveTo(ox, oy); octx.lineTo(ox + 18 * c[0], oy - 18 * c[1]); octx.stroke();
      const tw = octx.measureText(name).width;
      octx.fillText(name, ox + 24 * c[0] - tw / 2, oy - 24 * c[1] - th / 2);
    });
  }
  // scaleBar is raster.ScaleBar: a nice length about a fifth of the view
  // wide at the camera's target, in metres and pixels.
  function scaleBar() {
    const ppm = focal(cam, view.w, view.h) / cam.dist, m = niceFloor(0.2 * view.w / ppm);
    return { metres: m, pixels: m * ppm };
  }
  const fmtLen = (m) => (+m.toPrecision(3)).toString() + " m";
  function drawScale(th) {
    const s = scaleBar(), x1 = view.w - 14, y = view.h - 22, x0 = x1 - s.pixels;
    octx.strokeStyle = "#222"; octx.lineWidth = 2;
    octx.beginPath(); octx.moveTo(x0, y); octx.lineTo(x1, y); octx.stroke();
    octx.lineWidth = 1.5;
    octx.beginPath(); octx.moveTo(x0, y - 4); octx.lineTo(x0, y + 4); octx.moveTo(x1, y - 4); octx.lineTo(x1, y + 4); octx.stroke();
    octx.fillStyle = "#222";
    const label = fmtLen(s.metres), tw = octx.measureText(label).width;
    octx.fillText(label, (x0 + x1) / 2 - tw / 2, y - 6 - th);
    const g = "grid " + fmtLen(runFloor.spacing);
    octx.fillStyle = "#666"; octx.fillText(g, x1 - octx.measureText(g).width, y + 5);
  }
  function fmtT(x) { return x !== 0 && Math.abs(x) < 0.1 ? (+x.toPrecision(3)).toString() : x.toFixed(2); }

  // ---- hover: a body's true size ----
  function pick(mx, my) {
    const fr = frames[state.frame];
    let best = null;
    fr.b.forEach((body, bi) => {
      const a = anchorOf(body, bi);
      if (!a) return;
      const p = project(a.p);
      if (!(p[2] > 0)) return;
      let d;
      if (a.r > 0) d = Math.hypot(mx - p[0], my - p[1]) - drawnRadius(a.r, p[2]);
      else {
        const s = a.prim, p0 = project(s.p), p1 = project(s.q);
        const dx = p1[0] - p0[0], dy = p1[1] - p0[1], l2 = dx * dx + dy * dy;
        const t = l2 > 0 ? Math.max(0, Math.min(1, ((mx - p0[0]) * dx + (my - p0[1]) * dy) / l2)) : 0;
        d = Math.hypot(mx - p0[0] - t * dx, my - p0[1] - t * dy) - 4;
      }
      if (d <= 2 && (!best || d < best.d)) best = { d: d, bi: bi, a: a, px: p };
    });
    return best;
  }
  function describe(h) {
    const b = bodies[h.bi], s = h.a.prim, lines = [b.name + " (" + b.type + ")"];
    const f = (x) => (+x.toPrecision(4)).toString();
    if (s.kind === SPHERE) lines.push("sphere, diameter " + f(2 * s.size[0]) + " m");
    if (s.kind === BOX) lines.push("box " + s.size.map(f).join(" × ") + " m");
    if (h.a.r > 0) {
      const px = h.a.r * focal(cam, view.w, view.h) / h.px[2];
      if (!show.truesize.checked && px < MIN_PIXELS) lines.push("drawn enlarged ×" + f(MIN_PIXELS / px) + " to stay visible");
    }
    if (s.kind === COIL || s.kind === LINE || s.kind === CYLINDER) lines.push("length " + f(len(sub(s.q, s.p))) + " m");
    lines.push("at (" + h.a.p.map(f).join(", ") + ") m");
    if (b.unknown) lines.push(b.unknown);
    return lines.join("\n");
  }

  // ---- plots (the look of gonum/plot, which draws cosim plot) ----
  // niceTicks returns the major ticks of an axis from lo to hi: multiples
  // of the largest step 1, 2, 2.5 or 5 × 10^k that gives at least 4 of
  // them within the range (so 4 to 9), with their labels, and the minor
  // step; cosim plot's niceTicker computes the same.
  function niceTicks(lo, hi) {
    if (!(hi > lo)) { const d = Math.max(Math.abs(lo), 1) * 0.5; lo -= d; hi += d; }
    const raw = (hi - lo) / 4, k = Math.floor(Math.log10(raw));
    let step = 0, m = 1;
    for (const c of [5, 2.5, 2, 1]) {
      const s = c * Math.pow(10, k);
      if (s <= raw * (1 + 1e-9)) { step = s; m = c; break; }
    }
    if (step === 0) { step = Math.pow(10, k - 1) * 5; m = 5; }
    const dec = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) + (m === 2.5 ? 1 : 0);
    const big = Math.max(Math.abs(lo), Math.abs(hi));
    const label = (v) => big >= 1e5 || (big < 1e-4 && big > 0) ? v.toExponential(Math.max(0, Math.min(6, Math.round(Math.log10(big / step))))) : v.toFixed(Math.min(dec, 12));
    const ticks = [];
    for (let i = Math.ceil(lo / step - 1e-9); i <= Math.floor(hi / step + 1e-9); i++) {
      const v = i * step;
      ticks.push({ value: Math.abs(v) < step * 1e-9 ? 0 : v, label: label(Math.abs(v) < step * 1e-9 ? 0 : v) });
    }
    return { ticks: ticks, minor: m === 2 || m === 5 ? step / m : m === 2.5 ? step / 5 : step / 5 };
  }
  const PALETTE = ["#f15a60", "#7ac36a", "#5a9bd4", "#faa75b", "#9e67ab", "#ce7058", "#d77fb4"];
  const plotBox = $("plots"), plots = [];
  function buildPlots() {
    const S = D.series;
    plotBox.innerHTML = ""; plots.length = 0;
    if (!S || S.columns.length === 0) { plotBox.textContent = "No recorded fields to plot."; return; }
    const groups = new Map();
    S.columns.forEach((c, j) => { const u = S.units[j] || "1"; if (!groups.has(u)) groups.set(u, []); groups.get(u).push(j); });
    let color = 0;
    for (const [unit, cols] of groups) {
      const wrap = document.createElement("div"); wrap.className = "plot";
      const c = document.createElement("canvas");
      const ro = document.createElement("div"); ro.className = "readout";
      const lg = document.createElement("div"); lg.className = "legend";
      wrap.appendChild(c); wrap.appendChild(ro); wrap.appendChild(lg); plotBox.appendChild(wrap);
      const pl = { canvas: c, readout: ro, unit: unit, cols: cols, colors: cols.map(() => PALETTE[color++ % PALETTE.length]), hidden: new Set(), box: null };
      cols.forEach((j, k) => {
        const it = document.createElement("span");
        it.innerHTML = '<i style="background:' + pl.colors[k] + '"></i>';
        it.appendChild(document.createTextNode(S.columns[j]));
        it.title = "show or hide " + S.columns[j];
        it.addEventListener("click", () => { if (pl.hidden.has(j)) pl.hidden.delete(j); else pl.hidden.add(j); it.classList.toggle("off"); drawPlots(); });
        lg.appendChild(it);
      });
      c.addEventListener("mousemove", (e) => plotHover(pl, e));
      c.addEventListener("mouseleave", () => { pl.hover = null; ro.style.display = "none"; drawPlots(); });
      c.addEventListener("click", (e) => { const t = plotTime(pl, e); if (t !== null) setFrame(frameAt(t)); });
      plots.push(pl);
    }
  }
  function sizePlot(pl) {
    const w = Math.max(240, plotBox.clientWidth || 380), h = 190, dpr = window.devicePixelRatio || 1;
    if (pl.canvas.width !== Math.round(w * dpr)) { pl.canvas.width = Math.round(w * dpr); pl.canvas.height = Math.round(h * dpr); pl.canvas.style.width = w + "px"; pl.canvas.style.height = h + "px"; }
    return { w: w, h: h, dpr: dpr };
  }
  function drawPlots() {
    const S = D.series;
    if (!S || frames.length === 0) return;
    const t0 = frames[0].t, t1 = frames[frames.length - 1].t;
    for (const pl of plots) {
      const sz = sizePlot(pl), g = pl.canvas.getContext("2d");
      g.setTransform(sz.dpr, 0, 0, sz.dpr, 0, 0);
      g.fillStyle = "#fff"; g.fillRect(0, 0, sz.w, sz.h);
      let lo = Infinity, hi = -Infinity;
      for (const fr of frames) for (const j of pl.cols) { if (pl.hidden.has(j)) continue; const v = fr.v[j]; if (isFinite(v) && v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
      if (!isFinite(lo)) { lo = -1; hi = 1; }
      if (hi === lo) { const d = Math.max(Math.abs(hi) * 0.5, 1e-12); lo -= d; hi += d; }
      const pad = 0.04 * (hi - lo); lo -= pad; hi += pad;
      const yt = niceTicks(lo, hi), xt = niceTicks(t0, t1 > t0 ? t1 : t0 + 1);
      g.font = font(11, true); g.textBaseline = "middle";
      const tw = Math.max(...yt.ticks.map((t) => g.measureText(t.label).width));
      // The y label, rotated, left of the widest tick label: they cannot
      // meet.
      const L = 4 + 13 + 4 + tw + 6, R = 18, T = 8, B = 40, W = sz.w - L - R, H = sz.h - T - B;
      const xa = t1 > t0 ? t1 : t0 + 1;
      const X = (t) => L + W * (t - t0) / (xa - t0), Y = (v) => T + H * (hi - v) / (hi - lo);
      pl.box = { L: L, T: T, W: W, H: H, t0: t0, t1: xa };
      g.lineWidth = 0.5; g.strokeStyle = "#c8c8c8";
      g.beginPath();
      for (const t of yt.ticks) { g.moveTo(L, Y(t.value)); g.lineTo(L + W, Y(t.value)); }
      for (const t of xt.ticks) { g.moveTo(X(t.value), T); g.lineTo(X(t.value), T + H); }
      g.stroke();
      if (lo < 0 && hi > 0) { g.strokeStyle = "#808080"; g.lineWidth = 0.75; g.beginPath(); g.moveTo(L, Y(0)); g.lineTo(L + W, Y(0)); g.stroke(); }
      g.save(); g.beginPath(); g.rect(L, T, W, H); g.clip();
      pl.cols.forEach((j, k) => {
        if (pl.hidden.has(j)) return;
        g.strokeStyle = pl.colors[k]; g.lineWidth = 1.5; g.beginPath();
        let started = false;
        frames.forEach((fr) => { const v = fr.v[j]; if (v === null || !isFinite(v)) { started = false; return; } const x = X(fr.t), y = Y(v); if (!started) { g.moveTo(x, y); started = true; } else g.lineTo(x, y); });
        g.stroke();
      });
      g.restore();
      g.strokeStyle = "#000"; g.lineWidth = 1;
      g.beginPath(); g.moveTo(L, T); g.lineTo(L, T + H); g.lineTo(L + W, T + H); g.stroke();
      g.fillStyle = "#000"; g.textAlign = "right";
      g.beginPath();
      for (const t of yt.ticks) { const y = Y(t.value); g.moveTo(L - 5, y); g.lineTo(L, y); g.fillText(t.label, L - 7, y); }
      for (let v = Math.ceil(lo / yt.minor) * yt.minor; v <= hi; v += yt.minor) { const y = Y(v); g.moveTo(L - 2.5, y); g.lineTo(L, y); }
      g.textAlign = "center"; g.textBaseline = "top";
      for (const t of xt.ticks) {
        const x = X(t.value), hw = g.measureText(t.label).width / 2;
        g.moveTo(x, T + H); g.lineTo(x, T + H + 5);
        g.fillText(t.label, Math.min(x, sz.w - 1 - hw), T + H + 7);
      }
      for (let v = Math.ceil(t0 / xt.minor) * xt.minor; v <= xa; v += xt.minor) { const x = X(v); g.moveTo(x, T + H); g.lineTo(x, T + H + 2.5); }
      g.stroke();
      g.font = font(12, true);
      g.fillText("t (s)", L + W / 2, T + H + 22);
      const yl = (S.axes && S.axes[pl.unit]) || "(" + pl.unit + ")";
      g.save(); g.translate(4, T + H / 2); g.rotate(-Math.PI / 2); g.textBaseline = "top"; g.fillText(yl, 0, 0, H); g.restore();
      const tc = frames[state.frame].t;
      g.strokeStyle = "#000"; g.lineWidth = 1; g.beginPath(); g.moveTo(X(tc), T); g.lineTo(X(tc), T + H); g.stroke();
      if (pl.hover) {
        g.strokeStyle = "#888"; g.setLineDash([3, 3]); g.beginPath(); g.moveTo(X(pl.hover.t), T); g.lineTo(X(pl.hover.t), T + H); g.stroke(); g.setLineDash([]);
        pl.cols.forEach((j, k) => { const v = frames[pl.hover.i].v[j]; if (pl.hidden.has(j) || v === null || !isFinite(v)) return; g.fillStyle = pl.colors[k]; g.beginPath(); g.arc(X(pl.hover.t), Y(v), 3, 0, 2 * Math.PI); g.fill(); });
      }
    }
  }
  function plotTime(pl, e) {
    if (!pl.box) return null;
    const r = pl.canvas.getBoundingClientRect(), x = e.clientX - r.left, b = pl.box;
    if (x < b.L || x > b.L + b.W) return null;
    return b.t0 + (x - b.L) / b.W * (b.t1 - b.t0);
  }
  function plotHover(pl, e) {
    const t = plotTime(pl, e);
    if (t === null || frames.length === 0) { pl.hover = null; pl.readout.style.display = "none"; drawPlots(); return; }
    const i = nearestFrame(t), fr = frames[i], S = D.series;
    pl.hover = { i: i, t: fr.t };
    const lines = ["t = " + (+fr.t.toPrecision(6)) + " s"];
    pl.cols.forEach((j) => { if (!pl.hidden.has(j)) lines.push(S.columns[j] + " = " + (fr.v[j] === null ? "—" : (+fr.v[j].toPrecision(6))) + " " + pl.unit); });
    pl.readout.textContent = lines.join("\n");
    const r = pl.canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    pl.readout.style.display = "block";
    pl.readout.style.left = Math.min(x + 12, r.width - pl.readout.offsetWidth - 2) + "px";
    pl.readout.style.top = "10px";
    drawPlots();
  }

  // ---- time ----
  function frameAt(t) {
    let lo = 0, hi = frames.length - 1;
    while (lo < hi) { const m = (lo + hi + 1) >> 1; if (frames[m].t <= t) lo = m; else hi = m - 1; }
    return lo;
  }
  function nearestFrame(t) {
    const i = frameAt(t);
    return i + 1 < frames.length && frames[i + 1].t - t < t - frames[i].t ? i + 1 : i;
  }
  function setFrame(i) {
    if (frames.length === 0) return;
    state.frame = Math.max(0, Math.min(frames.length - 1, i | 0));
    slider.value = state.frame;
    state.simTime = frames[state.frame].t;
    timeLabel.textContent = "t = " + fmtT(state.simTime) + " s";
    if (state.follow >= 0) {
      const a = anchorOf(frames[state.frame].b[state.follow], state.follow);
      if (a) cam.target = a.p.slice();
    }
    redraw();
    drawPlots();
    drawBadges();
  }
  function redraw() { render(); drawOverlay(); if (recorder) composite(); }
  function tick(now) {
    if (state.playing && frames.length > 0) {
      const dt = state.last ? (now - state.last) / 1000 : 0;
      state.simTime += dt * parseFloat(speedSel.value);
      const end = frames[frames.length - 1].t;
      if (state.simTime > end) {
        if (recorder) { state.simTime = end; setFrame(frames.length - 1); stopRecording(); }
        else if (D.live && !D.done) state.simTime = end;
        else state.simTime = frames[0].t;
      }
      const t = state.simTime;
      setFrame(frameAt(t)); state.simTime = t;
    }
    state.last = now;
    requestAnimationFrame(tick);
  }
  function setPlaying(p) { state.playing = p; playBtn.textContent = p ? "Pause" : "Play"; }

  // ---- badges: nodes with no place in the world (sources) ----
  function drawBadges() {
    const box = $("badges");
    if (!D.others || D.others.length === 0) { box.style.display = "none"; return; }
    const fr = frames[state.frame], S = D.series;
    box.innerHTML = "Not drawn (no place in the world): ";
    for (const o of D.others) {
      const s = document.createElement("span");
      let text = o.name + " (" + o.type + ")";
      if (fr && S) {
        const vals = [];
        S.columns.forEach((c, j) => { if (c.startsWith(o.name + ".") && fr.v[j] !== null) vals.push(c.slice(o.name.length + 1) + " = " + (+fr.v[j].toPrecision(4)) + (S.units[j] && S.units[j] !== "1" ? " " + S.units[j] : "")); });
        if (vals.length) text += ": " + vals.join(", ");
      }
      s.textContent = text;
      box.appendChild(s);
    }
  }

  // ---- screenshot and recording ----
  let recorder = null, chunks = [], compCanvas = null;
  function composite() {
    if (!compCanvas) compCanvas = document.createElement("canvas");
    compCanvas.width = glCanvas.width; compCanvas.height = glCanvas.height;
    const c = compCanvas.getContext("2d");
    c.drawImage(glCanvas, 0, 0); c.drawImage(overlay, 0, 0);
    return compCanvas;
  }
  function download(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob); a.download = name;
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  const baseName = () => (D.title || "scene").replace(/[^A-Za-z0-9_.-]+/g, "-");
  function screenshot() {
    redraw();
    composite().toBlob((b) => download(b, baseName() + "-t" + fmtT(frames[state.frame].t) + ".png"), "image/png");
  }
  function startRecording() {
    if (typeof MediaRecorder === "undefined") { status.textContent = "this browser cannot record video"; return; }
    composite();
    const stream = compCanvas.captureStream(30);
    recorder = new MediaRecorder(stream, { mimeType: MediaRecorder.isTypeSupported("video/webm;codecs=vp9") ? "video/webm;codecs=vp9" : "video/webm" });
    chunks = [];
    recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
    recorder.onstop = () => { download(new Blob(chunks, { type: "video/webm" }), baseName() + ".webm"); recorder = null; $("rec").textContent = "Record"; };
    recorder.start();
    $("rec").textContent = "Stop";
    setFrame(0); state.simTime = frames[0].t; setPlaying(true);
  }
  function stopRecording() { if (recorder) { recorder.stop(); setPlaying(false); } }

  // ---- controls ----
  playBtn.addEventListener("click", () => setPlaying(!state.playing));
  slider.addEventListener("input", () => setFrame(parseInt(slider.value, 10)));
  for (const k in show) show[k].addEventListener("change", redraw);
  $("reset").addEventListener("click", () => { state.userCamera = false; fitCamera(); setFollow(-1); redraw(); });
  $("shot").addEventListener("click", screenshot);
  $("rec").addEventListener("click", () => recorder ? stopRecording() : startRecording());
  const followSel = $("follow"), trailBox = $("trails");
  bodies.forEach((b, bi) => {
    const o = document.createElement("option"); o.value = bi; o.textContent = b.name; followSel.appendChild(o);
    const l = document.createElement("label"), cb = document.createElement("input");
    cb.type = "checkbox"; cb.addEventListener("change", () => { if (cb.checked) state.trails.add(bi); else state.trails.delete(bi); redraw(); });
    l.appendChild(cb); l.appendChild(document.createTextNode(" " + b.name)); trailBox.appendChild(l);
  });
  function setFollow(bi) { state.follow = bi; followSel.value = bi; if (bi < 0) fitCamera(); setFrame(state.frame); }
  followSel.addEventListener("change", () => setFollow(parseInt(followSel.value, 10)));
  window.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range" || e.target.tagName === "SELECT") return;
    if (e.key === " ") { e.preventDefault(); setPlaying(!state.playing); }
    if (e.key === "ArrowRight") setFrame(state.frame + 1);
    if (e.key === "ArrowLeft") setFrame(state.frame - 1);
  });
  let drag = null;
  glCanvas.addEventListener("contextmenu", (e) => e.preventDefault());
  glCanvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey }; glCanvas.style.cursor = "grabbing"; });
  window.addEventListener("mouseup", () => { drag = null; glCanvas.style.cursor = "grab"; });
  window.addEventListener("mousemove", (e) => {
    if (drag) {
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      state.userCamera = true;
      if (drag.pan) {
        const k = cam.dist / focal(cam, view.w, view.h);
        cam.target = add(cam.target, fromCamera(cam, [-dx * k, dy * k, 0]));
      } else {
        cam.yaw += dx * 0.01;
        cam.pitch = Math.max(-1.55, Math.min(1.55, cam.pitch + dy * 0.01));
      }
      drag.x = e.clientX; drag.y = e.clientY;
      redraw();
      return;
    }
    const r = glCanvas.getBoundingClientRect();
    const mx = e.clientX - r.left, my = e.clientY - r.top;
    if (mx < 0 || my < 0 || mx > r.width || my > r.height || frames.length === 0) { tip.style.display = "none"; return; }
    const h = pick(mx, my);
    if (!h) { tip.style.display = "none"; return; }
    tip.textContent = describe(h);
    tip.style.display = "block";
    tip.style.left = Math.min(mx + 14, r.width - tip.offsetWidth - 4) + "px";
    tip.style.top = Math.min(my + 14, r.height - tip.offsetHeight - 4) + "px";
  });
  glCanvas.addEventListener("wheel", (e) => { e.preventDefault(); state.userCamera = true; cam.dist *= Math.exp(e.deltaY * 0.001); redraw(); }, { passive: false });
  glCanvas.addEventListener("dblclick", () => { state.userCamera = false; fitCamera(); redraw(); });
  function resize() {
    const r = glCanvas.parentElement.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    view.w = Math.max(200, Math.floor(r.width)); view.h = Math.max(150, Math.floor(r.height)); view.dpr = dpr;
    for (const c of [glCanvas, overlay]) { c.width = Math.round(view.w * dpr); c.height = Math.round(view.h * dpr); }
    if (!state.userCamera && state.follow < 0) fitCamera();
    redraw(); drawPlots();
  }
  window.addEventListener("resize", resize);

  // ---- live frames (cosim view --serve) ----
  function addFrame(fr) {
    const atEnd = state.frame === frames.length - 1 || frames.length === 0;
    frames.push(fr);
    slider.max = Math.max(0, frames.length - 1);
    growRun();
    if (!state.userCamera && state.follow < 0) fitCamera();
    if (atEnd) setFrame(frames.length - 1);
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
    get bodies() { return state.drawnBodies; },
    get primitives() { return state.primitives; },
    get webgl() { return !!progMesh; },
    setFrame: setFrame,
    times: () => frames.map((f) => f.t),
    // camera returns the camera and the view's size in CSS pixels.
    camera: () => ({ yaw: cam.yaw, pitch: cam.pitch, target: cam.target.slice(), dist: cam.dist, fov: cam.fov, width: view.w, height: view.h }),
    // setCamera sets yaw and pitch (radians) and frames the run again.
    setCamera: (yaw, pitch) => { D.camera.yaw = yaw; D.camera.pitch = pitch; state.userCamera = false; fitCamera(); redraw(); },
    // show sets what is drawn: labels, floor, axes, xray, truesize.
    show: (o) => { for (const k in o) show[k].checked = !!o[k]; redraw(); },
    anchors: () => frames.length === 0 ? [] : frames[state.frame].b.map((body, bi) => { const a = anchorOf(body, bi); if (!a) return null; const p = project(a.p); return [p[0], p[1]]; }),
    labelBoxes: () => state.labelBoxes.map((l) => ({ name: l.name, box: l.box.slice() })),
    floor: () => Object.assign({}, runFloor),
    scale: scaleBar,
    project: (p) => project(p),
    niceTicks: niceTicks,
    coilPoints: (a, tiling) => coilPoints(decode(a), tiling),
    describe: (mx, my) => { const h = pick(mx, my); return h ? describe(h) : ""; },
    screenshot: () => { redraw(); return composite().toDataURL("image/png"); },
    follow: setFollow,
    trail: (bi, on) => { if (on) state.trails.add(bi); else state.trails.delete(bi); redraw(); },
  };
  buildPlots();
  slider.min = 0; slider.max = Math.max(0, frames.length - 1); slider.value = 0;
  let glOK = false;
  if (gl) {
    try { initGL(); glOK = true; } catch (e) { console.error("cosim view: WebGL setup failed: " + e.message); }
  }
  if (!glOK) $("nogl").style.display = "flex";
  resize();
  setFrame(0);
  requestAnimationFrame(tick);
  window.cosimView.ready = true;
})();
