// A small control plane in plain node (no framework, no npm package), written from docs/contract.md:
//
//   node examples/node-control-plane/server.js
//
// It serves the process driver's control API on CANDIDATE_LISTEN:
//   GET  /health               200 {"ok": true, "capabilities": [], "clock": "harness"}   (no webhooks)
//   POST /jobs                 accept a Job (idempotent on job_id + task_version)
//   POST /jobs/{id}/cancel     the acknowledgement: the cancellation is on disk before it is sent
//   GET  /jobs/{id}            the JobReport (404 for a job it does not know)
// and works the jobs in the background: one pass every scenario second. It waits only on the
// harness (a request, or the harness's clock service at HARNESS_CLOCK_URL: GET /wait?for=S), so it
// says it takes its time from the harness ("clock": "harness"), and the harness skips the time it
// is idle; without HARNESS_CLOCK_URL it sleeps HARNESS_TIME_SCALE times faster than the wall clock.
// See plane.js for what it does, and for the one safeguard it deliberately lacks.
"use strict";

const http = require("node:http");
const { Store } = require("./store");
const { Plane } = require("./plane");

const env = process.env;
const scale = Number(env.HARNESS_TIME_SCALE || 1);
const clockUrl = env.HARNESS_CLOCK_URL;
const clock = {
  scale,
  // On the harness's clock when it has one (wake: end early when the harness posts a job or a cancel).
  sleep: (scenarioSeconds, wake = false) => clockUrl
    ? fetch(`${clockUrl}/wait?for=${scenarioSeconds}${wake ? "&wake=1" : ""}`).then((r) => r.arrayBuffer())
    : new Promise((resolve) => setTimeout(resolve, (scenarioSeconds * 1000) / scale)),
};
const store = new Store(env.DATABASE_URL);
const plane = new Plane(env, store, clock);

function send(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"));
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}

async function route(req, res) {
  const parts = req.url.split("?")[0].split("/").filter(Boolean).map(decodeURIComponent);
  if (req.method === "GET" && parts.length === 1 && parts[0] === "health") {
    return send(res, 200, { ok: true, capabilities: [], ...(clockUrl ? { clock: "harness" } : {}) });
  }
  if (req.method === "POST" && parts.length === 1 && parts[0] === "jobs") {
    const job = await readJson(req);
    if (!job.job_id || job.task_version === undefined || !Array.isArray(job.allowed_tools)) {
      return send(res, 400, { error: "a Job needs job_id, task_version and allowed_tools" });
    }
    const { new: isNew } = store.accept(job);
    return send(res, 200, { job_id: job.job_id, task_version: String(job.task_version), accepted: true, new: isNew });
  }
  const job = parts[0] === "jobs" && parts.length >= 2 ? store.job(parts[1]) : null;
  if (req.method === "POST" && parts.length === 3 && parts[2] === "cancel") {
    if (!job) return send(res, 404, { error: `no job ${parts[1]}` });
    job.cancelled = true;
    store.save(); // durable before the acknowledgement leaves
    return send(res, 200, { job_id: parts[1], cancelled: true });
  }
  if (req.method === "GET" && parts.length === 2) {
    return job ? send(res, 200, plane.report(job)) : send(res, 404, { error: `no job ${parts[1]}` });
  }
  return send(res, 404, { error: `no route ${req.method} ${req.url}` });
}

const [host, port] = (env.CANDIDATE_LISTEN || "127.0.0.1:8700").split(/:(?=\d+$)/);
http.createServer((req, res) => {
  route(req, res).catch((err) => send(res, 500, { error: String(err) }));
}).listen(Number(port), host, () => {
  console.log(`node control plane listening on ${host}:${port} (time scale ${scale})`);
});

async function work() {
  for (;;) {
    try {
      await plane.step();
    } catch (err) {
      console.error(`step failed: ${err.message}`); // a session call failed: try again on the next pass
    }
    await clock.sleep(1, true);
  }
}
work();
