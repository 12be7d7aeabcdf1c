// The job logic: one session per job version, the agent's tool calls executed on WordPress,
// a side-effect ledger, and the JobReport the harness samples.
//
// Written from docs/contract.md. It is careful about most things (it finds its session by
// metadata before creating one, answers each call once, never goes back a phase, executes only
// allowed tools, stops on a cancellation) but it has one deliberate flaw, so that the harness has
// something to catch: it does NOT reconcile. When a write's answer is lost (a timeout, a reset,
// a 5xx) it marks the operation UNKNOWN and simply sends the same write again, so a lost
// response makes a second draft or a second image.
"use strict";

const crypto = require("node:crypto");

const PHASES = ["accepted", "session_started", "media_uploaded", "draft_created", "post_updated", "seo_set",
  "verified", "awaiting_approval"];
const TOOL_PHASE = { wp_upload_media: "media_uploaded", wp_create_draft: "draft_created",
  wp_update_post: "post_updated", wp_set_seo: "seo_set", wp_get_post: "verified" };
const STRING = { type: "string" };
const INTEGER = { type: "integer" };
const TOOLS = {
  wp_upload_media: ["Upload one image to the WordPress media library.",
    { filename: STRING, content_base64: STRING, mime_type: STRING, alt_text: STRING }, ["filename", "content_base64", "mime_type"]],
  wp_create_draft: ["Create the article as a WordPress draft.",
    { title: STRING, content: STRING, excerpt: STRING, slug: STRING }, ["title", "content"]],
  wp_update_post: ["Update fields of the draft.",
    { post_id: INTEGER, excerpt: STRING, featured_media: INTEGER, content: STRING }, ["post_id"]],
  wp_set_seo: ["Set the Rank Math SEO title, description and focus keyword.",
    { post_id: INTEGER, title: STRING, description: STRING, focus_keyword: STRING }, ["post_id", "title", "description", "focus_keyword"]],
  wp_get_post: ["Read the post back.", { post_id: INTEGER }, ["post_id"]],
  wp_append_block: ["Append a block to the post, once.", { post_id: INTEGER, block_id: STRING, html: STRING }, ["post_id", "block_id", "html"]],
  wp_publish: ["Publish the post (needs an approval).", { post_id: INTEGER }, ["post_id"]],
};
const ATTEMPTS = 3;

class Plane {
  constructor(env, store, clock) {
    this.env = env;
    this.store = store;
    this.clock = clock;
    this.timeoutMs = Math.max(30 / clock.scale, 2) * 1000; // 30 scenario seconds, at least 2 real ones
  }

  // -- the JobReport --------------------------------------------------------------------------
  report(job) {
    return {
      job_id: job.spec.job_id, task_version: job.spec.task_version, session_id: job.session_id,
      worker_id: this.env.WORKER_ID, outcome: job.outcome,
      checkpoint: { phase: job.phase, artifacts: [], remote: job.remote, next_allowed_actions: [],
        approval_status: job.approval_status },
      operations: Object.values(job.ops).map(({ receipt, ...op }) => op),
      resume_attempts: 0,
    };
  }

  // -- one pass over every job that is not finished ------------------------------------------
  async step() {
    for (const job of this.store.jobs()) {
      if (job.cancelled) {
        await this.settleCancel(job);
      } else if (job.outcome === "running") {
        await this.stepJob(job);
      }
    }
  }

  async settleCancel(job) {
    if (job.outcome !== "cancelled") {
      job.outcome = "cancelled";
      this.store.save();
    }
    if (job.session_id && !job.cancel_sent) { // the only thing still allowed: cancel the agent's turn
      await this.sessions("POST", `/agents/sessions/${job.session_id}/events`,
        { events: [{ type: "agent.session.input.cancel" }] }, `${job.session_id}/cancel`);
      job.cancel_sent = true;
      this.store.save();
    }
  }

  async stepJob(job) {
    if (!job.session_id) {
      await this.findOrCreateSession(job);
      return;
    }
    const session = await this.sessions("GET", `/agents/sessions/${job.session_id}`);
    if (session.status === "requires_action") {
      for (const action of session.required_actions || []) {
        if (action.type === "function_call" && !job.answered[action.call_id] && !job.cancelled) {
          await this.answer(job, session.id, action);
        }
      }
    } else if (session.status === "idle") {
      this.finish(job, job.phase === "verified" ? "needs_human" : "failed");
    } else if (session.status === "failed") {
      this.finish(job, "failed");
    } // in_progress: the agent is thinking; look again on the next pass
  }

  async findOrCreateSession(job) {
    const { job_id, task_version } = job.spec;
    const q = `metadata[job_id]=${encodeURIComponent(job_id)}&metadata[task_version]=${encodeURIComponent(task_version)}`;
    const found = await this.sessions("GET", `/agents/sessions?${q}&order=asc&limit=100`);
    let session = (found.data || [])[0];
    if (!session) {
      const tools = job.spec.allowed_tools.filter((name) => TOOLS[name]).map((name) => ({
        type: "function", name, description: TOOLS[name][0],
        parameters: { type: "object", properties: TOOLS[name][1], required: TOOLS[name][2] },
      }));
      session = await this.sessions("POST", "/agents/sessions", {
        environment: { type: "none" },
        agent: { model: "gpt-5.1", instructions: "You are a careful editorial agent.", tools },
        input: `Write and stage the WordPress article of job ${job_id}, version ${task_version}.`,
        metadata: { job_id, task_version },
      });
    }
    job.session_id = session.id;
    this.advance(job, "session_started");
  }

  async answer(job, sessionId, action) {
    const args = typeof action.arguments === "string" ? JSON.parse(action.arguments) : action.arguments;
    let result;
    if (!job.spec.allowed_tools.includes(action.name)) {
      result = { success: false, error: `tool ${action.name} is not allowed for this job` };
    } else {
      result = await this.runTool(job, action.name, args || {});
    }
    if (job.cancelled) return; // cancelled meanwhile: the agent gets no answer
    const event = { type: "agent.session.input.tool_result", turn_id: action.turn_id, call_id: action.call_id,
      success: result.success };
    if (result.success) event.output = JSON.stringify(result.output);
    else event.error = result.error;
    await this.sessions("POST", `/agents/sessions/${sessionId}/events`, { events: [event] },
      `${sessionId}/${action.call_id}`);
    job.answered[action.call_id] = true;
    this.store.save();
  }

  // -- tools: the side effects ----------------------------------------------------------------
  async runTool(job, name, args) {
    if (name === "wp_get_post") return this.read(job, args);
    if (!["wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo"].includes(name)) {
      return { success: false, error: `tool ${name} is not implemented by this control plane` };
    }
    const key = `${job.spec.job_id}/v${job.spec.task_version}/${role(name, args)}`;
    const known = job.ops[key];
    if (known && known.state === "CONFIRMED") return { success: true, output: known.receipt };
    const request = wpRequest(name, args, key);
    const op = job.ops[key] || (job.ops[key] = { operation_key: key, kind: name, state: "PREPARED", remote_id: null,
      request_hash: crypto.createHash("sha256").update(request.hash).digest("hex"), receipt: null });
    let last = "not attempted";
    for (let attempt = 1; attempt <= ATTEMPTS && !job.cancelled; attempt++) {
      op.state = "SENT";
      this.store.save();
      let response;
      try {
        response = await this.wordpress(request);
      } catch (err) { // timeout or reset: it may have happened. The flaw: we do not look it up, we resend
        op.state = "UNKNOWN";
        this.store.save();
        last = `transport error: ${err.cause?.code || err.name}`;
        await this.clock.sleep(attempt);
        continue;
      }
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        const receipt = output(name, body, args);
        Object.assign(op, { state: "CONFIRMED", remote_id: String(receipt.post_id ?? receipt.media_id), receipt });
        this.record(job, name, receipt);
        this.store.save();
        return { success: true, output: receipt };
      }
      last = `HTTP ${response.status} ${body.code || ""}`.trim();
      if (response.status < 500 && ![408, 429].includes(response.status)) { // definite: nothing was written
        op.state = "FAILED";
        this.store.save();
        return { success: false, error: last };
      }
      op.state = "UNKNOWN"; // 408, 429, 5xx: unknown; the flaw again: no lookup before the retry
      this.store.save();
      await this.clock.sleep(Number(response.headers.get("retry-after")) || attempt);
    }
    return { success: false, error: last };
  }

  async read(job, args) { // a read changes nothing: no ledger entry, and sending it again is harmless
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const response = await this.wordpress(wpRequest("wp_get_post", args, null));
        const body = await response.json().catch(() => ({}));
        if (!response.ok) return { success: false, error: `HTTP ${response.status} ${body.code || ""}`.trim() };
        const receipt = output("wp_get_post", body, args);
        this.record(job, "wp_get_post", receipt);
        return { success: true, output: receipt };
      } catch (err) {
        await this.clock.sleep(attempt);
      }
    }
    return { success: false, error: "WordPress did not answer the read" };
  }

  record(job, name, receipt) {
    if (name === "wp_upload_media" && !job.remote.media_ids.includes(receipt.media_id)) {
      job.remote.media_ids.push(receipt.media_id);
    }
    if (name === "wp_create_draft") job.remote.wordpress_post_id = receipt.post_id;
    if (name === "wp_get_post" && (receipt.post_id !== job.remote.wordpress_post_id || receipt.status !== "draft")) return;
    if (TOOL_PHASE[name]) this.advance(job, TOOL_PHASE[name]);
  }

  advance(job, phase) { // a phase never moves backwards
    if (PHASES.indexOf(phase) > PHASES.indexOf(job.phase)) job.phase = phase;
    this.store.save();
  }

  finish(job, outcome) {
    job.outcome = outcome;
    if (outcome === "needs_human") {
      job.phase = "awaiting_approval";
      job.approval_status = "awaiting";
    }
    this.store.save();
  }

  // -- HTTP -----------------------------------------------------------------------------------
  async sessions(method, path, body, idempotencyKey) {
    const headers = { Authorization: `Bearer ${this.env.OPENAI_API_KEY}`, "OpenAI-Beta": "agents=v1" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    const response = await fetch(this.env.OPENAI_BASE_URL + path, { method, headers,
      body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : {};
  }

  wordpress(request) {
    const auth = Buffer.from(`${this.env.WORDPRESS_USERNAME}:${this.env.WORDPRESS_APP_PASSWORD}`).toString("base64");
    const headers = { Authorization: `Basic ${auth}`, ...(request.json ? { "Content-Type": "application/json" } : {}) };
    let body = request.json ? JSON.stringify(request.json) : undefined;
    if (request.form) {
      body = new FormData();
      for (const [k, v] of Object.entries(request.form.fields)) body.append(k, v);
      body.append("file", new Blob([request.form.bytes], { type: request.form.type }), request.form.filename);
    }
    return fetch(`${this.env.WORDPRESS_URL}/wp-json${request.path}`, { method: request.method, headers, body,
      signal: AbortSignal.timeout(this.timeoutMs) });
  }
}

function role(name, args) {
  return { wp_upload_media: `media:${args.filename}`, wp_create_draft: "article", wp_update_post: "article:update",
    wp_set_seo: "article:seo" }[name];
}

function wpRequest(name, args, key) {
  const id = Number(args.post_id);
  switch (name) {
    case "wp_upload_media":
      return { method: "POST", path: "/wp/v2/media", hash: `${args.filename}:${args.content_base64}`,
        form: { fields: { alt_text: args.alt_text || "", "meta[operation_key]": key }, filename: args.filename,
          type: args.mime_type, bytes: Buffer.from(args.content_base64, "base64") } };
    case "wp_create_draft": {
      const json = { title: args.title, content: args.content, excerpt: args.excerpt || "", slug: args.slug || "",
        status: "draft", meta: { operation_key: key } };
      return { method: "POST", path: "/wp/v2/posts", json, hash: JSON.stringify(json) };
    }
    case "wp_update_post": {
      const json = {};
      for (const field of ["excerpt", "featured_media", "content"]) if (args[field] !== undefined) json[field] = args[field];
      return { method: "POST", path: `/wp/v2/posts/${id}`, json, hash: JSON.stringify(json) };
    }
    case "wp_set_seo": {
      const json = { objectType: "post", objectID: id, meta: { rank_math_title: args.title,
        rank_math_description: args.description, rank_math_focus_keyword: args.focus_keyword } };
      return { method: "POST", path: "/rankmath/v1/updateMeta", json, hash: JSON.stringify(json) };
    }
    default: // wp_get_post
      return { method: "GET", path: `/wp/v2/posts/${id}?context=edit`, hash: String(id) };
  }
}

function output(name, body, args) {
  switch (name) {
    case "wp_upload_media": return { media_id: body.id, source_url: body.source_url };
    case "wp_create_draft": return { post_id: body.id, link: body.link };
    case "wp_update_post": return { post_id: body.id };
    case "wp_set_seo": return { post_id: Number(args.post_id), ok: true };
    default: return { post_id: body.id, status: body.status, title: body.title && body.title.raw };
  }
}

module.exports = { Plane };
