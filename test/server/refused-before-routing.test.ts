// A body declared above every route's limit is refused with 413 before routing (src/api/app.ts); a
// POST /v1/ingest refused so still counts in txray_ingest_batches_rejected_total{status="413"},
// and a refusal on another path does not.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parsePrometheusText } from "../helpers/prometheus-text";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
beforeAll(async () => {
  t = await testServer();
});
afterAll(async () => {
  await t.stop();
});

const rejected413 = async () => {
  const families = parsePrometheusText(await (await fetch(`${t.url}/metrics`)).text());
  return (
    families
      .get("txray_ingest_batches_rejected_total")
      ?.samples.filter((sample) => sample.labels.status === "413")
      .reduce((sum, sample) => sum + sample.value, 0) ?? 0
  );
};

test("an ingest batch refused before routing for its size is counted as rejected with 413", async () => {
  const before = await rejected413();
  const body = "x".repeat(2 * 1024 * 1024); // above both the ingest and the MCP limit
  const post = (path: string) =>
    fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const ingest = await post("/v1/ingest");
  expect(ingest.status).toBe(413);
  expect((await ingest.json()).error.code).toBe("payload_too_large");
  expect((await post("/mcp")).status).toBe(413);
  expect(await rejected413()).toBe(before + 1);
});
