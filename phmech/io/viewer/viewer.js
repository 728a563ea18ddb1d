// The phmech run viewer: the pictures embedded as JSON (#phmech-data) drawn with three.js.
// State for scripts: #frame (frame drawn), #checksum (of the drawn screen points), #errors.
// The address picks the start: ?frame=K or #t=SECONDS, ?play=1, ?yaw=DEG&pitch=DEG, ?speed=X;
// ?ui=0 shows the scene alone (no bar, legend or labels: for pictures).
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";

const D = JSON.parse(document.getElementById("phmech-data").textContent);
const nF = D.times.length, deg = Math.PI / 180, size = D.size;
const args = new URLSearchParams(window.location.search);
const hash = new URLSearchParams(window.location.hash.replace(/^#/, ""));
const $ = (id) => document.getElementById(id);
if (args.get("ui") === "0") { document.body.classList.add("bare"); }

// -- axes: planar models in the x-y plane seen from +z with y up; spatial ones with z up --
const UP = D.planar ? new THREE.Vector3(0, 1, 0) : new THREE.Vector3(0, 0, 1);
const FRONT = D.planar ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(0, -1, 0);
const SIDE = new THREE.Vector3().crossVectors(UP, FRONT);
const home = D.planar ? { yaw: 0, pitch: 0 } : { yaw: -35 * deg, pitch: 25 * deg };
const center = new THREE.Vector3(...D.center);
const lo = new THREE.Vector3(...D.lo), hi = new THREE.Vector3(...D.hi);

const stage = $("stage");
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
stage.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf7f8fa);
const camera = new THREE.PerspectiveCamera(35, 1, size * 1e-3, size * 100);
camera.up.copy(UP);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8899aa, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
scene.add(sun, sun.target);

// -- colours of a field --
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
const DIVERGING = [[49, 54, 149], [116, 173, 209], [247, 247, 247], [244, 109, 67], [165, 0, 38]];
const F = D.field, ramp = F && F.min < 0 && F.max > 0 ? DIVERGING : VIRIDIS;
function fieldColour(v, out) {
  let s;
  if (ramp === DIVERGING) { const m = Math.max(-F.min, F.max); s = 0.5 + 0.5 * v / m; }
  else { s = F.max > F.min ? (v - F.min) / (F.max - F.min) : 0.5; }
  s = Math.min(1, Math.max(0, s)) * (ramp.length - 1);
  const i = Math.min(ramp.length - 2, Math.floor(s)), f = s - i, a = ramp[i], b = ramp[i + 1];
  return out.setRGB((a[0] + f * (b[0] - a[0])) / 255, (a[1] + f * (b[1] - a[1])) / 255,
    (a[2] + f * (b[2] - a[2])) / 255, THREE.SRGBColorSpace);
}

// -- the bodies: bars, tubes, boxes, spheres and surfaces, updated per frame --
const unitY = new THREE.Vector3(0, 1, 0);
const cylinder = new THREE.CylinderGeometry(1, 1, 1, 16, 1, false);
const box = new THREE.BoxGeometry(1, 1, 1);
const ball = new THREE.SphereGeometry(1, 20, 14);
const tmpA = new THREE.Vector3(), tmpB = new THREE.Vector3(), tmpC = new THREE.Color();

function material(color) {
  return new THREE.MeshStandardMaterial({ color: color, roughness: 0.55, metalness: 0.1 });
}

function place(mesh, a, b, r) {            // a cylinder or bar of radius r from a to b
  const d = tmpB.subVectors(b, a), len = d.length();
  mesh.position.copy(a).addScaledVector(d, 0.5);
  if (len > 0) { mesh.quaternion.setFromUnitVectors(unitY, d.divideScalar(len)); }
  mesh.scale.set(r, Math.max(len, 1e-9 * size), r);
}

const point = (P, i, v) => v.set(P[3 * i], P[3 * i + 1], P[3 * i + 2]);

const drawn = D.bodies.map((b) => {
  const group = new THREE.Group(), r = b.radius, base = material(b.color), item = { b, group, links: [], knots: [] };
  const coloured = Array.isArray(b.field);
  if (b.kind === "surface") {
    const geo = new THREE.BufferGeometry();
    const n = b.frames[0].length / 3;
    geo.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    geo.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    geo.setIndex(b.triangles);
    const mat = new THREE.MeshStandardMaterial({ color: coloured ? 0xffffff : b.color, vertexColors: coloured,
      side: THREE.DoubleSide, roughness: 0.7, metalness: 0.0, polygonOffset: true, polygonOffsetFactor: 1 });
    item.surface = new THREE.Mesh(geo, mat);
    group.add(item.surface);
    // the surface's outline (the edges of one triangle only): its border stays visible where the
    // field's colour is near the ground's (a clamped plate's edge, white on the diverging scale)
    const count = new Map(), T = b.triangles;
    for (let t = 0; t < T.length; t += 3) {
      for (let e = 0; e < 3; e++) {
        const a = T[t + e], c = T[t + (e + 1) % 3], key = a < c ? a + "," + c : c + "," + a;
        count.set(key, (count.get(key) || 0) + 1);
      }
    }
    item.border = [];
    count.forEach((m, key) => { if (m === 1) { item.border.push(...key.split(",").map(Number)); } });
    const line = new THREE.BufferGeometry();
    line.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * item.border.length), 3));
    item.outline = new THREE.LineSegments(line, new THREE.LineBasicMaterial({ color: 0x4a5560 }));
    group.add(item.outline);
  }
  const S = b.segments;
  for (let s = 0; s < S.length; s += 2) {
    const mesh = new THREE.Mesh(b.shape === "bar" ? box : cylinder, coloured ? material(b.color) : base);
    item.links.push([mesh, S[s], S[s + 1]]);
    group.add(mesh);
  }
  const knots = b.kind === "line" ? [...new Set(S)] : b.vertices;
  knots.forEach((v) => {
    const lone = b.kind === "vertex";
    const mesh = new THREE.Mesh(lone ? box : ball, coloured ? material(b.color) : base);
    const k = lone ? 4 * r : (b.kind === "network" ? 2.5 * r : r);
    mesh.scale.set(k, k, k);
    item.knots.push([mesh, v]);
    group.add(mesh);
  });
  scene.add(group);
  return item;
});
// the number of outline segments of each surface, for scripts
document.body.setAttribute("data-outline", drawn.filter((item) => item.surface)
  .map((item) => String(item.border.length / 2)).join(" "));

// -- joints: spheres at their points; joints to the ground on a grey pedestal --
const jointR = D.joint_radius;
const jointMat = new THREE.MeshStandardMaterial({ color: 0x333333, roughness: 0.4, metalness: 0.3 });
const groundMat = new THREE.MeshStandardMaterial({ color: 0x8a8a8a, roughness: 0.8 });
const joints = D.joints.map((j) => {
  const group = new THREE.Group(), pin = new THREE.Mesh(ball, jointMat);
  pin.scale.setScalar(jointR);
  group.add(pin);
  if (j.grounded) {
    const foot = new THREE.Mesh(box, groundMat);
    foot.scale.set(3 * jointR, 1.2 * jointR, 3 * jointR);
    foot.quaternion.setFromUnitVectors(unitY, UP);
    foot.position.copy(UP).multiplyScalar(-1.6 * jointR);
    group.add(foot);
  }
  scene.add(group);
  return { j, group };
});

// -- the ground: a grid below (spatial) or behind (planar) the mechanism, a length scale --
function niceStep(x) {
  const e = Math.pow(10, Math.floor(Math.log10(x))), m = x / e;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * e;
}
const step = niceStep(size / 8), cells = 2 * Math.ceil(0.9 * size / step) + 2;
const grid = new THREE.GridHelper(cells * step, cells, 0x6f7a85, 0xa3acb6);
const ground = new THREE.Mesh(new THREE.PlaneGeometry(cells * step, cells * step), new THREE.MeshStandardMaterial(
  { color: 0xf4f5f7, roughness: 1.0, side: THREE.DoubleSide, polygonOffset: true, polygonOffsetFactor: 2,
    polygonOffsetUnits: 2 }));
const floor = new THREE.Group();
floor.add(grid);
ground.rotation.x = -Math.PI / 2;              // the plane into the grid's x-z plane
floor.add(ground);
floor.quaternion.setFromUnitVectors(unitY, D.planar ? FRONT : UP);
const snap = (x) => Math.round(x / step) * step;
const gap = Math.max(2 * jointR, 0.03 * size);
if (D.planar) { floor.position.set(snap(center.x), snap(center.y), lo.z - gap); }
else { floor.position.set(snap(center.x), snap(center.y), lo.z - gap); }
scene.add(floor);

// -- camera: fit the trajectory's box; orbit, pan, zoom --
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
controls.target.copy(center);
// points to fit the view to: at most about 4000 of the trajectory's drawn points and the joints
const sample = [];
(function () {
  const all = D.bodies.map((b) => b.frames).concat(D.joints.map((j) => [j.frames]));
  const total = all.reduce((n, frames) => n + frames.reduce((m, P) => m + P.length / 3, 0), 0);
  const every = Math.max(1, Math.ceil(total / 4000));
  let c = 0;
  all.forEach((frames) => frames.forEach((P) => {
    for (let i = 0; i < P.length / 3; i++, c++) {
      if (c % every === 0) { sample.push(point(P, i, new THREE.Vector3())); }
    }
  }));
})();

function view(yaw, pitch) {
  pitch = Math.max(-89.9 * deg, Math.min(89.9 * deg, pitch));   // the up axis stays out of the view direction
  const dir = new THREE.Vector3().addScaledVector(FRONT, Math.cos(pitch) * Math.cos(yaw))
    .addScaledVector(SIDE, Math.cos(pitch) * Math.sin(yaw)).addScaledVector(UP, Math.sin(pitch)).normalize();
  // the nearest distance at which every drawn point (a sample of the trajectory, grown by the
  // drawn radii) is in view
  const right = new THREE.Vector3().crossVectors(UP, dir).normalize();
  const up = new THREE.Vector3().crossVectors(dir, right);
  const t = Math.tan(0.5 * camera.fov * deg), margin = 3 * D.joint_radius;
  const half = tmpA.subVectors(hi, lo).multiplyScalar(0.5).addScalar(margin);
  let dist = 0;
  const o = new THREE.Vector3();
  sample.forEach((p) => {
    o.subVectors(p, center);
    const depth = o.dot(dir) + margin;
    dist = Math.max(dist, depth + (Math.abs(o.dot(right)) + margin) / (t * camera.aspect),
      depth + (Math.abs(o.dot(up)) + margin) / t);
  });
  dist = Math.max(1.04 * dist, 0.2 * size / t);
  const radius = half.length();
  controls.target.copy(center);
  camera.position.copy(center).addScaledVector(dir, dist);
  camera.lookAt(center);
  sun.position.copy(camera.position).addScaledVector(UP, radius * 2).addScaledVector(SIDE, radius);
  sun.target.position.copy(center);
  controls.update();
}
let yaw0 = home.yaw, pitch0 = home.pitch;
if (args.has("yaw")) { yaw0 = parseFloat(args.get("yaw")) * deg; }
if (args.has("pitch")) { pitch0 = parseFloat(args.get("pitch")) * deg; }

// -- one frame --
let k = 0;
const cursor = new THREE.Vector3();
function setFrame(i) {
  k = ((i % nF) + nF) % nF;
  drawn.forEach((item) => {
    const b = item.b, P = b.frames[k], r = b.radius, V = b.field ? b.field[k] : null;
    if (item.surface) {
      const pos = item.surface.geometry.attributes.position, col = item.surface.geometry.attributes.color;
      pos.array.set(P);
      pos.needsUpdate = true;
      if (V) {
        for (let p = 0; p < V.length; p++) { fieldColour(V[p], tmpC); col.setXYZ(p, tmpC.r, tmpC.g, tmpC.b); }
        col.needsUpdate = true;
      }
      item.surface.geometry.computeVertexNormals();
      item.surface.geometry.computeBoundingSphere();
      const edge = item.outline.geometry.attributes.position;
      item.border.forEach((v, i) => { edge.setXYZ(i, P[3 * v], P[3 * v + 1], P[3 * v + 2]); });
      edge.needsUpdate = true;
      item.outline.geometry.computeBoundingSphere();
    }
    const w = b.kind === "network" ? 0.45 * r : r;
    item.links.forEach(([mesh, a, c]) => {
      place(mesh, point(P, a, tmpA), point(P, c, cursor), b.shape === "bar" ? 0.886 * 2 * w : w);
      if (V) { fieldColour(0.5 * (V[a] + V[c]), mesh.material.color); }
    });
    item.knots.forEach(([mesh, v]) => {
      point(P, v, mesh.position);
      if (V) { fieldColour(V[v], mesh.material.color); }
    });
  });
  joints.forEach(({ j, group }) => { group.position.set(j.frames[3 * k], j.frames[3 * k + 1], j.frames[3 * k + 2]); });
  // the colour drawn first for each body (its first bar, ball or point), for scripts
  document.body.setAttribute("data-colours", drawn.map((item) => {
    const mesh = item.links.length ? item.links[0][0] : item.knots.length ? item.knots[0][0] : null;
    if (item.surface && item.b.field) {
      const c = item.surface.geometry.attributes.color;
      const m = Math.floor(c.count / 2);                 // a vertex inside the surface
      return "#" + tmpC.setRGB(c.getX(m), c.getY(m), c.getZ(m)).getHexString();
    }
    return mesh ? "#" + mesh.material.color.getHexString() : "";
  }).join(" "));
  $("slider").value = String(k);
  $("frame").textContent = String(k);
  $("time").textContent = "t = " + D.times[k].toPrecision(6) + " s";
  document.body.setAttribute("data-frame", String(k));
  render();
}

function checksum() {
  let sum = 0;
  const W = renderer.domElement.width, H = renderer.domElement.height;
  D.bodies.forEach((b) => {
    const P = b.frames[k];
    for (let i = 0; i < P.length / 3; i++) {
      point(P, i, cursor).project(camera);
      sum += (0.5 + 0.5 * cursor.x) * W * (1 + i % 7) + (0.5 - 0.5 * cursor.y) * H * (1 + i % 5);
    }
  });
  return sum;
}

function scaleBar() {
  const dist = camera.position.distanceTo(controls.target);
  const perMetre = renderer.domElement.height / (2 * dist * Math.tan(0.5 * camera.fov * deg));
  const len = niceStep(120 / perMetre);
  $("sb-rule").style.width = (len * perMetre).toFixed(1) + "px";
  $("sb-label").textContent = len.toPrecision(2).replace(/\.?0+$/, "") + " m (grid " +
    step.toPrecision(2).replace(/\.?0+$/, "") + " m)";
}

function render() {
  renderer.render(scene, camera);
  $("checksum").textContent = checksum().toFixed(3);
  scaleBar();
}

// -- the page around the scene: legend, colour bar, time, playing --
function legend() {
  const el = $("legend");
  const stops = F ? ramp.map((c, i) => "rgb(" + c.join(",") + ") " + (100 * i / (ramp.length - 1)) + "%") : [];
  D.bodies.forEach((b) => {
    const row = document.createElement("div"), swatch = document.createElement("i");
    const coloured = F && Array.isArray(b.field);      // drawn in the field's colours, not its own
    swatch.style.background = coloured ? "linear-gradient(to right, " + stops.join(", ") + ")" : b.color;
    row.appendChild(swatch);
    row.appendChild(document.createTextNode(b.name + " (" + b.kind + (coloured ? ", coloured by " + F.name : "")
      + ")"));
    el.appendChild(row);
  });
  if (D.joints.length) { el.appendChild(document.createTextNode(D.joints.length + " joints (dark spheres)")); }
  if (D.scale !== 1) {
    const row = document.createElement("div");
    row.textContent = "deformation drawn x" + D.scale;
    el.appendChild(row);
  }
  if (F) {
    $("cb-ramp").style.background = "linear-gradient(to top, " + stops.join(", ") + ")";
    $("cb-name").textContent = F.name + (F.unit ? " [" + F.unit + "]" : "");
    const lim = ramp === DIVERGING ? Math.max(-F.min, F.max) : null;
    $("cb-max").textContent = (lim === null ? F.max : lim).toPrecision(3);
    $("cb-min").textContent = (lim === null ? F.min : -lim).toPrecision(3);
    $("colorbar").style.display = "block";
  }
}

let timer = null, speed = parseFloat(args.get("speed") || "1") || 1, clock = 0, last = null;
$("speed").value = String(speed);
function tick(now) {
  if (timer === null) { return; }
  if (last !== null) {
    clock += speed * (now - last) / 1000;
    const frameSpan = 1 / D.fps;
    if (clock >= frameSpan) { const n = Math.floor(clock / frameSpan); clock -= n * frameSpan; setFrame(k + n); }
  }
  last = now;
  timer = requestAnimationFrame(tick);
}
function play(on) {
  if (timer !== null) { cancelAnimationFrame(timer); timer = null; }
  if (on) { last = null; clock = 0; timer = requestAnimationFrame(tick); }
  $("play").textContent = on ? "Pause" : "Play";
}

function fit() {
  const W = Math.max(200, stage.clientWidth), H = Math.max(150, stage.clientHeight);
  renderer.setSize(W, H);
  camera.aspect = W / H;
  camera.updateProjectionMatrix();
  if (!moved) { view(yaw0, pitch0); }
  render();
}

$("slider").max = String(nF - 1);
$("play").addEventListener("click", () => play(timer === null));
$("slider").addEventListener("input", () => { play(false); setFrame(parseInt($("slider").value, 10)); });
$("speed").addEventListener("change", () => { speed = parseFloat($("speed").value); });
window.addEventListener("keydown", (ev) => {
  if (ev.key === " " && ev.target.tagName !== "SELECT") { ev.preventDefault(); play(timer === null); }
});
let moved = false;                       // the camera moved by hand: a resize keeps it
controls.addEventListener("start", () => { moved = true; });
renderer.domElement.addEventListener("dblclick", () => {
  moved = false; yaw0 = home.yaw; pitch0 = home.pitch; view(yaw0, pitch0); render();
});
controls.addEventListener("change", render);
window.addEventListener("resize", fit);
if (window.ResizeObserver) { new ResizeObserver(fit).observe(stage); }

function startFrame() {
  const t = hash.get("t") ?? args.get("t");
  if (t !== null && t !== "") {
    const v = parseFloat(t);
    let best = 0;
    D.times.forEach((x, i) => { if (Math.abs(x - v) < Math.abs(D.times[best] - v)) { best = i; } });
    return best;
  }
  return Math.min(nF - 1, Math.max(0, parseInt(args.get("frame") || "0", 10) || 0));
}

legend();
const W0 = Math.max(200, stage.clientWidth), H0 = Math.max(150, stage.clientHeight);
renderer.setSize(W0, H0);
camera.aspect = W0 / H0;
camera.updateProjectionMatrix();
view(yaw0, pitch0);
setFrame(startFrame());
document.documentElement.setAttribute("data-ready", "1");
if (args.get("play") === "1") { play(true); }
