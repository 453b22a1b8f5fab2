// CORS on POST /v1/ingest, which the browser SDK calls from the dapp's origin: answers carry
// Access-Control-Allow-Origin and expose Retry-After (the SDK's backoff reads it), and an OPTIONS
// preflight is answered for clients that send JSON or x-api-key.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
beforeAll(async () => {
  t = await testServer();
});
afterAll(async () => {
  await t.stop();
});

test("OPTIONS /v1/ingest: 204 allowing POST with content-type and x-api-key from any origin", async () => {
  const response = await fetch(`${t.url}/v1/ingest`, {
    method: "OPTIONS",
    headers: {
      origin: "https://dapp.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, x-api-key",
    },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect(response.headers.get("access-control-allow-methods")).toContain("POST");
  expect(response.headers.get("access-control-allow-headers")).toContain("x-api-key");
});

test("answers and errors of POST /v1/ingest carry CORS headers and expose Retry-After", async () => {
  const accepted = await fetch(`${t.url}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://dapp.example" },
    body: JSON.stringify({ apiKey: t.key("cors"), envelopes: [] }),
  });
  expect(accepted.status).toBe(202);
  expect(accepted.headers.get("access-control-allow-origin")).toBe("*");
  expect(accepted.headers.get("access-control-expose-headers")).toContain("retry-after");
  const refused = await fetch(`${t.url}/v1/ingest`, { method: "POST", body: JSON.stringify({ envelopes: [] }) });
  expect(refused.status).toBe(401);
  expect(refused.headers.get("access-control-allow-origin")).toBe("*");
});
