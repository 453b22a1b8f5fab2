// GET /metrics (Prometheus text, behind METRICS_TOKEN here), GET /healthz and GET /readyz: their
// families, counts that move with requests, no signature or key in a label, readiness failing for a
// named cause and recovering, and none of them rate limited.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { chainHealth } from "../../src/chain/rpc";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { makeEnvelope, randomAddress, randomSignature } from "../helpers/envelopes";
import { type ParsedFamily, parsePrometheusText } from "../helpers/prometheus-text";
import { type TestServer, testServer } from "../helpers/server";

const TOKEN = "metrics-token-for-tests-0123";
let t: TestServer;

beforeAll(async () => {
  // A public budget of 5 a minute: /v1/status runs out of it, the operator's routes never do.
  t = await testServer({ METRICS_TOKEN: TOKEN, PUBLIC_RATE_PER_MINUTE: "5" });
});
afterAll(async () => {
  await t.stop();
});

const scrape = async () => {
  const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await response.text();
  return { text, families: parsePrometheusText(text) };
};
const value = (family: ParsedFamily | undefined, labels: Record<string, string> = {}, name = family?.name) =>
  family?.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0) ?? 0;

describe("GET /healthz and GET /readyz", () => {
  test("answer 200 and are never rate limited, while /v1/status is", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => fetch(`${t.url}/${i % 2 === 0 ? "healthz" : "readyz"}`)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(await answers[0].json()).toEqual({ ok: true });
    expect(answers[0].headers.get("ratelimit-limit")).toBeNull();
    const status = await Promise.all(Array.from({ length: 8 }, () => fetch(`${t.url}/v1/status`)));
    expect(status.map((r) => r.status)).toContain(429);
  });

  test("/readyz answers 503 naming an unwritable spool directory, and 200 again once it is back", async () => {
    const dir = t.ctx.paths.spool(t.ctx.config.TXRAY_NODE_ID);
    renameSync(dir, `${dir}.away`);
    try {
      const notReady = await t.get("/readyz");
      expect(notReady.status).toBe(503);
      expect(notReady.body.error.code).toBe("unavailable");
      // A stable code and a short phrase: the path and the error's text go to the log, not to anyone who asks.
      expect(notReady.body.error.message).toBe("not ready: the spool directory is not writable (spool_not_writable)");
      expect(notReady.body.error.message).not.toContain(dir);
      expect(notReady.headers.get("retry-after")).toBe("5");
      expect((await t.get("/healthz")).status).toBe(200);
    } finally {
      renameSync(`${dir}.away`, dir);
    }
    expect((await t.get("/readyz")).status).toBe(200);
  });
});

describe("GET /metrics", () => {
  test("asks for METRICS_TOKEN: 401 without it or with another one", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer another-token-0123456789" },
      { authorization: TOKEN },
    ]) {
      const response = await fetch(`${t.url}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as any).error.code).toBe("unauthorized");
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  test("every family has its HELP and TYPE; ingest counts and request durations move; no signature or key in a label", async () => {
    const before = await scrape();
    const key = t.key("acme");
    const program = randomAddress();
    const sig = randomSignature();
    const envelopes = [makeEnvelope({ program, sig }), makeEnvelope({ program })];
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    expect((await t.ingest({ apiKey: "txr_live_not-a-key", envelopes })).status).toBe(401);
    expect((await t.ingest("{not json")).status).toBe(400);
    expect((await fetch(`${t.url}/v1/top-issues/${program}?key=${key}`)).status).toBeOneOf([200, 404, 429]);
    expect((await fetch(`${t.url}/no/such/${sig}`)).status).toBe(404);
    // The resolver's thread records its RPC outcomes in the control database; /metrics counts them.
    chainHealth(t.ctx, "resolve").note({ ok: false, failure: "timeout", method: "getSignatureStatuses" });
    chainHealth(t.ctx, "resolve").note({ ok: true, method: "getSignatureStatuses" });
    const after = await scrape();

    const expected: Record<string, string> = {
      txray_ingest_envelopes_accepted_total: "counter",
      txray_ingest_batches_rejected_total: "counter",
      txray_http_request_duration_seconds: "histogram",
      txray_spool_backlog_bytes: "gauge",
      txray_lake_envelopes: "gauge",
      txray_resolver_lag_seconds: "gauge",
      txray_resolver_open_attempts: "gauge",
      txray_resolver_awaiting_intake_envelopes: "gauge",
      txray_serving_stale: "gauge",
      txray_serving_age_seconds: "gauge",
      txray_job_last_run_timestamp_seconds: "gauge",
      txray_job_last_run_success: "gauge",
      txray_job_last_duration_seconds: "gauge",
      txray_job_consecutive_failures: "gauge",
      txray_resolver_rpc_budget_calls_per_second: "gauge",
      txray_resolver_rpc_budget_available_calls: "gauge",
      txray_resolver_sends_deferred_by_budget: "gauge",
      txray_disk_bytes: "gauge",
      process_resident_memory_bytes: "gauge",
      nodejs_heap_size_used_bytes: "gauge",
      nodejs_heap_size_total_bytes: "gauge",
      nodejs_external_memory_bytes: "gauge",
      txray_duckdb_memory_bytes: "gauge",
      txray_lake_last_flush_age_seconds: "gauge",
      txray_rpc_requests_total: "counter",
      txray_alert_deliveries_last24h: "gauge",
      txray_alert_deliveries_pending: "gauge",
      txray_chain_unreachable: "gauge",
      txray_chain_failures_last_minute: "gauge",
    };
    for (const [name, type] of Object.entries(expected)) {
      const family = after.families.get(name);
      expect(family?.type, name).toBe(type);
      expect(family!.help.length, name).toBeGreaterThan(10);
    }

    const accepted = after.families.get("txray_ingest_envelopes_accepted_total");
    expect(value(accepted) - value(before.families.get("txray_ingest_envelopes_accepted_total"))).toBe(2);
    const rejected = after.families.get("txray_ingest_batches_rejected_total");
    expect(value(rejected, { status: "401" })).toBe(1);
    expect(value(rejected, { status: "400" })).toBe(1);
    expect(value(after.families.get("txray_spool_backlog_bytes"))).toBeGreaterThan(0);
    expect(value(after.families.get("process_resident_memory_bytes"))).toBeGreaterThan(1e6);
    const heapUsed = value(after.families.get("nodejs_heap_size_used_bytes"));
    expect(heapUsed).toBeGreaterThan(1e6);
    expect(value(after.families.get("nodejs_heap_size_total_bytes"))).toBeGreaterThan(1e6); // Bun's may be below heapUsed
    // An idle DuckDB holds nothing (0): the figure is there, answered in time.
    expect(after.families.get("txray_duckdb_memory_bytes")!.samples).toHaveLength(1);
    const rpc = after.families.get("txray_rpc_requests_total");
    const rpcBefore = before.families.get("txray_rpc_requests_total");
    for (const result of ["timeout", "ok"]) {
      const labels = { source: "resolve", method: "getSignatureStatuses", result };
      expect(value(rpc, labels) - value(rpcBefore, labels)).toBe(1);
    }

    const durations = after.families.get("txray_http_request_duration_seconds")!;
    const count = (labels: Record<string, string>) =>
      value(durations, labels, "txray_http_request_duration_seconds_count");
    expect(count({ method: "POST", route: "/v1/ingest", status: "202" })).toBe(1);
    expect(count({ method: "POST", route: "/v1/ingest", status: "401" })).toBe(1);
    expect(count({ method: "GET", route: "/v1/top-issues/:program" })).toBe(1);
    expect(count({ method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(count({ method: "GET", route: "/healthz", status: "200" })).toBeGreaterThanOrEqual(15);
    expect(count({ method: "GET", route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1);

    const routes = new Set(durations.samples.map((s) => s.labels.route));
    for (const route of routes) expect(route === "unmatched" || route.startsWith("/")).toBe(true);
    for (const secret of [key, sig, program, TOKEN]) expect(after.text).not.toContain(secret);
  });

  test("is not rate limited", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.status),
      ),
    );
    expect(answers).toEqual(Array(20).fill(200));
  });
});

describe("GET /readyz, once the lake has data", () => {
  test("503 while the serving tables were never built, naming them", async () => {
    expect((await runJob(t.ctx, flushJob, { spool: t.server.spool! })).ok).toBe(true);
    const notReady = await t.get("/readyz");
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.message).toContain(
      "the serving tables are missing: the lake has data but the tables job has not built the serving tables yet (serving_tables_missing)",
    );
    const { families } = await scrape();
    expect(value(families.get("txray_lake_envelopes"))).toBe(2);
    expect(value(families.get("txray_job_last_run_success"), { job: "flush" })).toBe(1);
    expect(value(families.get("txray_job_consecutive_failures"), { job: "flush" })).toBe(0);
  });

  test("503 naming the control plane when it does not answer", async () => {
    // Last test of the file: the server's control database is closed for good.
    t.ctx.control.close();
    const notReady = await t.get("/readyz");
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.message).toBe(
      "not ready: the control plane does not answer (control_plane_unavailable)",
    );
    expect(notReady.headers.get("retry-after")).toBe("5");
    expect((await t.get("/healthz")).status).toBe(200);
  });
});
