// The control plane's own database: one JSON file, rewritten atomically on every change.
//
// DATABASE_URL is a SQLAlchemy URL ("sqlite:////tmp/run/candidate.sqlite"); plain node has no
// SQLite driver, so the state lives in a JSON file beside that path. A change is on disk before
// the function that made it returns (writeFileSync + renameSync): a SIGKILL loses nothing that was
// acknowledged. The harness restarts the process with the same DATABASE_URL, so a new process
// continues from here.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// Any other URL (a PostgreSQL database shared by several workers, which this example does not
// support: it takes no leases) gets a file of its own in the temporary folder, named after the URL,
// so that no run ever sees another run's state.
function storePath(databaseUrl) {
  const m = /^sqlite:\/\/\/(.+)$/.exec(databaseUrl || "");
  if (m) return `${m[1]}.node.json`;
  const digest = crypto.createHash("sha256").update(databaseUrl || "").digest("hex").slice(0, 16);
  return path.join(os.tmpdir(), `node-control-plane-${digest}.json`);
}

class Store {
  constructor(databaseUrl) {
    this.file = storePath(databaseUrl);
    this.state = { jobs: {} };
    if (fs.existsSync(this.file)) {
      this.state = JSON.parse(fs.readFileSync(this.file, "utf8"));
    }
  }

  save() {
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.state));
    fs.renameSync(tmp, this.file);
  }

  job(jobId) {
    return this.state.jobs[jobId] || null;
  }

  jobs() {
    return Object.values(this.state.jobs);
  }

  // Accept a job: idempotent on (job_id, task_version); a new version replaces the old one.
  accept(spec) {
    const known = this.state.jobs[spec.job_id];
    if (known && known.spec.task_version === String(spec.task_version)) {
      known.spec.allowed_tools = spec.allowed_tools; // the job's policy as it is now
      this.save();
      return { new: false };
    }
    this.state.jobs[spec.job_id] = {
      spec: { ...spec, task_version: String(spec.task_version) },
      session_id: null,
      outcome: "running",
      phase: "accepted",
      remote: { wordpress_post_id: null, media_ids: [] },
      approval_status: "not_requested",
      answered: {},   // call_id -> true once its tool result was accepted
      ops: {},        // operation_key -> {operation_key, kind, state, remote_id, request_hash, receipt}
      cancelled: false,
      cancel_sent: false,
    };
    this.save();
    return { new: true };
  }
}

module.exports = { Store };
