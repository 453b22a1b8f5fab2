// /openapi.json against the server that serves it: every route the app serves is documented with
// its parameters, and every route's real answers (and its error answers) validate against the
// documented schemas, checked twice: with the zod schemas and with the JSON Schema in the document
// (Ajv, draft 2020-12), so neither can drift from what the server sends.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { ErrorBodySchema, IngestAcceptedSchema, ProgramsSchema } from "../../src/analytics/queries/schemas";
import { QUESTIONS } from "../../src/contract/questions";
import { createAccountKey } from "../../src/control";
import {
  type AnswersWorld,
  makeAnswersWorld,
  randomAddress,
  serveWorld,
  type WorldServer,
} from "../helpers/answers-world";
import { makeEnvelope } from "../helpers/envelopes";
import { testServer } from "../helpers/server";

let world: AnswersWorld;
let server: WorldServer;
let doc: any;
let ajv: Ajv2020;
/** The same document with every object closed: what a body sends beyond the documented fields fails it. */
let strictAjv: Ajv2020;
let snapshots: string;

beforeAll(async () => {
  world = await makeAnswersWorld();
  snapshots = mkdtempSync(join(tmpdir(), "txray-snapshots-"));
  mkdirSync(join(snapshots, "landing-score"));
  for (const name of ["index.html", "latest.json", "2025-11-20.json", "2025-11-20.parquet"])
    writeFileSync(join(snapshots, "landing-score", name), name.endsWith(".html") ? "<!doctype html>" : "{}");
  server = await serveWorld(world, {
    SLACK_SIGNING_SECRET: "secret",
    TXRAY_SNAPSHOTS_DIR: snapshots,
    ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8",
  });
  const response = await server.get("/openapi.json");
  expect(response.status).toBe(200);
  doc = response.body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: "openapi", components: doc.components });
  strictAjv = new Ajv2020({ strict: false, allErrors: true });
  strictAjv.addSchema({ $id: "openapi", components: closed(structuredClone(doc.components)) });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  world?.dispose();
  if (snapshots) rmSync(snapshots, { recursive: true, force: true });
});

const toOpenApi = (path: string) => path.replace(/:(\w+)/g, "{$1}");

const validators = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** Closes every object schema that lists its properties and allows any others (zod's looseObject). */
function closed(node: any): any {
  if (Array.isArray(node)) for (const item of node) closed(item);
  else if (typeof node === "object" && node !== null) {
    const open = node.additionalProperties === undefined || Object.keys(node.additionalProperties).length === 0;
    if (node.properties && open) node.additionalProperties = false;
    for (const value of Object.values(node)) closed(value);
  }
  return node;
}

/** Validates a body against the documented response of (method, path, status); returns the errors. */
function documented(method: string, path: string, status: number, body: unknown, strict = false): string[] {
  const operation = doc.paths[path]?.[method];
  if (!operation) return [`${method} ${path} is not documented`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${path} does not document status ${status}`];
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) return [`${method} ${path} ${status} has no JSON schema`];
  const ref = schema.$ref ? { $ref: `openapi${schema.$ref}` } : schema;
  const key = `${strict} ${method} ${path} ${status}`;
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = (strict ? strictAjv : ajv).compile(ref)));
  return validate(body)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

describe("/openapi.json", () => {
  test("is OpenAPI 3.1 and documents every route the server serves, with its path parameters", () => {
    expect(doc.openapi).toBe("3.1.0");
    const served = (server.app.routes as { method: string; path: string }[]).map((r) => ({
      method: r.method.toLowerCase(),
      path: toOpenApi(r.path),
    }));
    expect(served.length).toBeGreaterThanOrEqual(18);
    for (const { method, path } of served) {
      expect({ method, path, documented: Boolean(doc.paths[path]?.[method]) }).toEqual({
        method,
        path,
        documented: true,
      });
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const parameters = (doc.paths[path][method].parameters ?? [])
        .filter((p: any) => p.in === "path")
        .map((p: any) => p.name);
      expect(parameters).toEqual(names);
    }
    // And nothing documented that is not served.
    const documentedOps = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(documentedOps.sort()).toEqual(served.map((s) => `${s.method} ${s.path}`).sort());
  });

  test("docs/api.md names every route the server serves", () => {
    const docs = require("node:fs").readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8") as string;
    for (const route of server.app.routes as { path: string }[]) {
      const stem = route.path.split("/:")[0];
      expect({ route: route.path, documented: docs.includes(stem) }).toEqual({ route: route.path, documented: true });
    }
  });

  test("each question's query parameters, response schema and error statuses are documented", () => {
    for (const q of QUESTIONS) {
      const op = doc.paths[toOpenApi(q.path)].get;
      expect(op.operationId).toBe(q.name);
      expect(op.parameters.filter((p: any) => p.in === "query").map((p: any) => p.name)).toEqual(q.queryParams);
      expect(op.responses["200"].content["application/json"].schema.$ref).toStartWith("#/components/schemas/");
      expect(Object.keys(op.responses)).toContain("429");
    }
    expect(
      doc.paths["/v1/baseline/{program}"].get.parameters.find((p: any) => p.name === "window").schema.enum,
    ).toEqual(["1d", "7d", "30d"]);
    expect(doc.components.schemas.Rates.properties.ci95).toBeDefined();
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain("pending");
    for (const q of QUESTIONS.filter((q) => q.example)) {
      expect(q.response.safeParse(q.example).success).toBe(true);
      expect(
        documented(
          "get",
          toOpenApi(q.path),
          200,
          doc.paths[toOpenApi(q.path)].get.responses["200"].content["application/json"].example,
        ),
      ).toEqual([]);
    }
  });

  test("limits, patterns, servers, security, retry headers and the default error are declared", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: any) => p.name === name);
    expect(param("/v1/top-issues/{program}", "limit").schema).toMatchObject({ minimum: 1, maximum: 500 });
    const sig = new RegExp(param("/v1/why/{sig}", "sig").schema.pattern);
    const program = new RegExp(param("/v1/baseline/{program}", "program").schema.pattern);
    expect([sig.test(world.sigs.failed), program.test(world.program), program.test(world.sigs.failed)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(doc.components.schemas.ReleaseDiff.properties.rateChanges.required).toEqual([
      "landingRate",
      "failureRate",
      "dropRate",
      "preflightRate",
    ]);
    const status = doc.components.schemas.Status.properties;
    expect(status.freshness.properties.serving.properties.stale).toEqual({ type: "boolean" });
    expect(Object.keys(doc.paths["/v1/status"].get.responses)).toEqual(expect.arrayContaining(["503", "default"]));
    for (const [path, operations] of Object.entries(doc.paths) as [string, any][])
      for (const [method, operation] of Object.entries(operations) as [string, any][]) {
        const where = `${method} ${path}`;
        expect({ where, security: Array.isArray(operation.security) }).toEqual({ where, security: true });
        expect({ where, default: operation.responses.default?.content["application/json"].schema }).toEqual({
          where,
          default: { $ref: "#/components/schemas/Error" },
        });
        const limited = operation.responses["429"];
        if (limited) expect(Object.keys(limited.headers)).toContain("Retry-After");
        if (limited)
          expect(Object.keys(operation.responses["200"]?.headers ?? limited.headers)).toContain("RateLimit-Remaining");
      }
    expect(doc.paths["/v1/baseline/{program}"].get.security).toEqual([{}, { apiKey: [] }]);
    expect(doc.paths["/v1/why/{sig}"].get.security).toEqual([]);
    expect(doc.paths["/metrics"].get.security).toEqual([{}, { metricsToken: [] }]);
    expect(Object.keys(doc.paths["/readyz"].get.responses["503"].headers)).toEqual(["Retry-After"]);
  });

  test("the checks can fail: a body missing a field or with a renamed one does not validate", async () => {
    const body = (await server.get(`/v1/baseline/${world.program}`)).body;
    const { rates, ...withoutRates } = body;
    expect(documented("get", "/v1/baseline/{program}", 200, withoutRates)).not.toEqual([]);
    expect(
      documented("get", "/v1/baseline/{program}", 200, { ...body, rates: { ...rates, attempts: "12" } }),
    ).not.toEqual([]);
    expect(QUESTIONS.find((q) => q.name === "baseline")!.response.safeParse(withoutRates).success).toBe(false);
    expect(documented("get", "/v1/baseline/{program}", 200, { ...body, extraField: 1 })).toEqual([]); // fields may be added
    // The closed reading names what the document leaves out, at any depth.
    expect(documented("get", "/v1/baseline/{program}", 200, body, true)).toEqual([]);
    expect(documented("get", "/v1/baseline/{program}", 200, { ...body, rates: { ...rates, extra: 1 } }, true)).toEqual([
      expect.stringContaining("/rates must NOT have additional properties"),
    ]);
  });
});

describe("real answers validate against the documented schemas", () => {
  test("every question's answers (zod schema and the document's JSON Schema)", async () => {
    const { program, wallet, sigs } = world;
    const asks: [string, string][] = [
      ["why", `/v1/why/${sigs.failed}`],
      ["why", `/v1/why/${sigs.landed}`],
      ["why", `/v1/why/${sigs.dropped}`],
      ["why", `/v1/why/${sigs.chain}`],
      ["transaction", `/v1/tx/${sigs.chain}`],
      ["diagnose_drop", `/v1/diagnose-drop/${sigs.dropped}`],
      ["diagnose_drop", `/v1/diagnose-drop/${sigs.landed}`],
      ["status", `/v1/status`],
    ];
    for (const window of ["1d", "7d", "30d"])
      for (const p of [program, world.otherProgram])
        asks.push(
          ["baseline", `/v1/baseline/${p}?window=${window}`],
          ["top_issues", `/v1/top-issues/${p}?window=${window}&limit=500`],
          ["cu_headroom", `/v1/cu-headroom/${p}?window=${window}`],
          ["provider_report", `/v1/provider-report/${p}?window=${window}`],
          ["release_diff", `/v1/release-diff/${p}?window=${window}`],
          ["wallet_history", `/v1/wallet/${p}/${wallet}?window=${window}&limit=500`],
        );
    asks.push(["baseline", `/v1/baseline/${program}?window=30d&scope=account`]);
    const top = (await server.get(`/v1/top-issues/${program}?window=30d&limit=3`)).body;
    for (const issue of [...top.segments.human, ...top.segments.bot].slice(0, 3))
      asks.push(
        ["issue", `/v1/issue/${issue.fingerprint}?window=7d`],
        ["issue", `/v1/issue/${issue.fingerprint}?window=30d&scope=account`],
      );
    let validated = 0;
    for (const [name, path] of asks) {
      const question = QUESTIONS.find((q) => q.name === name)!;
      const response = await server.get(path, path.includes("scope=account") ? { "x-api-key": world.keys.a } : {});
      if (response.status === 404 && name === "release_diff") continue; // a program without a deploy
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      const parsed = question.response.safeParse(response.body);
      expect({ path, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ path, issues: [] });
      expect({ path, errors: documented("get", toOpenApi(question.path), 200, response.body) }).toEqual({
        path,
        errors: [],
      });
      // And the document names every field the server sends, so a generated client can read it.
      expect({ path, undocumented: documented("get", toOpenApi(question.path), 200, response.body, true) }).toEqual({
        path,
        undocumented: [],
      });
      validated++;
    }
    expect(validated).toBeGreaterThan(30);
    // 44 real requests, each answered from DuckDB and validated twice: 0.7 s alone, over bun's 5 s
    // default inside the whole suite on a loaded 2-core machine. No timing is asserted.
  }, 60_000);

  test("error answers: the documented Error shape under a documented status", async () => {
    const { program, wallet, sigs } = world;
    const errors: [string, string, Record<string, string>?][] = [
      ["/v1/why/{sig}", `/v1/why/not-a-sig`],
      ["/v1/why/{sig}", `/v1/why/${sigs.unknown}`],
      ["/v1/why/{sig}", `/v1/why/${sigs.pending}`],
      ["/v1/diagnose-drop/{sig}", `/v1/diagnose-drop/${sigs.pending}`],
      ["/v1/diagnose-drop/{sig}", `/v1/diagnose-drop/${sigs.unknown}`],
      ["/v1/baseline/{program}", `/v1/baseline/${program}?window=2d`],
      ["/v1/baseline/{program}", `/v1/baseline/${randomAddress()}`],
      ["/v1/baseline/{program}", `/v1/baseline/${program}?scope=account`],
      [
        "/v1/baseline/{program}",
        `/v1/baseline/${program}?scope=account`,
        { "x-api-key": `txr_read_${"x".repeat(32)}` },
      ],
      ["/v1/top-issues/{program}", `/v1/top-issues/${program}?segment=robots`],
      ["/v1/release-diff/{program}", `/v1/release-diff/${program}?deploy=12345`],
      ["/v1/cu-headroom/{program}", `/v1/cu-headroom/abc`],
      ["/v1/provider-report/{program}", `/v1/provider-report/${program}?window=1w`],
      ["/v1/wallet/{program}/{wallet}", `/v1/wallet/${program}/${wallet}?cursor=garbage`],
      ["/v1/programs", `/v1/programs`],
      ["/v1/issue/{fingerprint}", `/v1/issue/not-a-fingerprint`],
      ["/v1/issue/{fingerprint}", `/v1/issue/v1:0000000000000000`],
      ["/v1/issue/{fingerprint}", `/v1/issue/v1:0000000000000000?scope=account`],
    ];
    for (const [documentedPath, path, headers] of errors) {
      const response = await server.get(path, headers);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(ErrorBodySchema.safeParse(response.body).success).toBe(true);
      expect({ path, errors: documented("get", documentedPath, response.status, response.body) }).toEqual({
        path,
        errors: [],
      });
    }
  });

  test("ingest, programs, 503 before the tables are built, 429, /mcp's 405", async () => {
    const fresh = await testServer({ PUBLIC_RATE_PER_MINUTE: "3" });
    try {
      const key = fresh.key("acme");
      const accepted = await fresh.ingest({ envelopes: [makeEnvelope()] }, { "x-api-key": key });
      expect(accepted.status).toBe(202);
      expect(IngestAcceptedSchema.safeParse(accepted.body).success).toBe(true);
      expect(documented("post", "/v1/ingest", 202, accepted.body)).toEqual([]);
      const bad = await fresh.ingest({ envelopes: [{ ...makeEnvelope(), sentAt: "soon" }] }, { "x-api-key": key });
      expect(documented("post", "/v1/ingest", bad.status, bad.body)).toEqual([]);
      const programs = await fresh.get("/v1/programs", { "x-api-key": key });
      expect(programs.status).toBe(200);
      expect(ProgramsSchema.safeParse(programs.body).success).toBe(true);
      expect(documented("get", "/v1/programs", 200, programs.body)).toEqual([]);
      const unbuilt = await fresh.get(`/v1/baseline/${world.program}`);
      expect(unbuilt.status).toBe(503);
      expect(documented("get", "/v1/baseline/{program}", 503, unbuilt.body)).toEqual([]);
      let limited = await fresh.get("/openapi.json");
      for (let i = 0; i < 5 && limited.status !== 429; i++) limited = await fresh.get("/openapi.json");
      expect(limited.status).toBe(429);
      expect(documented("get", "/openapi.json", 429, limited.body)).toEqual([]);
      // /mcp spends the same per-IP budget as the read routes.
      const mcp = await fetch(`${fresh.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(mcp.status).toBe(429);
      expect(documented("post", "/mcp", 429, await mcp.json())).toEqual([]);
    } finally {
      await fresh.stop();
    }
    const get = await fetch(`${server.url}/mcp`);
    expect(get.status).toBe(405);
    expect(documented("get", "/mcp", 405, await get.json())).toEqual([]);
  });
});

test("the published Landing Score files are readable from any origin (public data)", async () => {
  for (const name of ["", "latest.json", "2025-11-20.json", "2025-11-20.parquet"]) {
    const response = await fetch(`${server.url}/landing-score/${name}`, {
      headers: { origin: "https://elsewhere.example" },
    });
    expect({ name, status: response.status, allowOrigin: response.headers.get("access-control-allow-origin") }).toEqual(
      {
        name,
        status: 200,
        allowOrigin: "*",
      },
    );
  }
});

describe("every documented operation, asked for real", () => {
  /**
   * Sends the request, then checks the answer against the operation's documented response: its status is
   * documented, its content type is one of the documented ones, a JSON body validates (with no field the
   * document leaves out), and the documented headers are sent.
   */
  async function conforms(method: string, path: string, url: string, init: RequestInit = {}) {
    const response = await fetch(server.url + url, { method: method.toUpperCase(), redirect: "manual", ...init });
    const where = `${method} ${url}`;
    const documentedAnswer = doc.paths[path]?.[method]?.responses[String(response.status)];
    expect({ where, status: response.status, documented: Boolean(documentedAnswer) }).toEqual({
      where,
      status: response.status,
      documented: true,
    });
    const type = response.headers.get("content-type")?.split(";")[0] ?? null;
    if (documentedAnswer.content) {
      const types = Object.keys(documentedAnswer.content);
      expect({ where, type, documented: types.includes(type ?? "") }).toEqual({ where, type, documented: true });
    }
    for (const header of Object.keys(documentedAnswer.headers ?? {}))
      expect({ where, header, sent: response.headers.has(header) }).toEqual({ where, header, sent: true });
    const body = type === "application/json" ? await response.json() : await response.text();
    if (type === "application/json")
      expect({ where, errors: documented(method, path, response.status, body, true) }).toEqual({ where, errors: [] });
    return { status: response.status, body: body as any, headers: response.headers };
  }

  test("each answers a documented status, type, body and headers", async () => {
    const { program, wallet, sigs, fingerprint } = world;
    // An account key of the world's account A: ingest and alert rules take no read-only key.
    const key = { "x-api-key": createAccountKey(server.ctx.control, "team-a", "live", Date.now()).key };
    const json = (body: unknown, headers: Record<string, string> = {}) => ({
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const asked = new Set<string>();
    const ask = async (method: string, path: string, url: string, init?: RequestInit) => {
      asked.add(`${method} ${path}`);
      return conforms(method, path, url, init);
    };
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      for (const [path, url] of [
        ["/v1/why/{sig}", `/v1/why/${sigs.failed}`],
        ["/v1/tx/{sig}", `/v1/tx/${sigs.chain}`],
        ["/v1/diagnose-drop/{sig}", `/v1/diagnose-drop/${sigs.dropped}`],
        ["/v1/baseline/{program}", `/v1/baseline/${program}`],
        ["/v1/release-diff/{program}", `/v1/release-diff/${program}`],
        ["/v1/top-issues/{program}", `/v1/top-issues/${program}?limit=2`],
        ["/v1/issue/{fingerprint}", `/v1/issue/${fingerprint}`],
        ["/v1/cu-headroom/{program}", `/v1/cu-headroom/${program}`],
        ["/v1/wallet/{program}/{wallet}", `/v1/wallet/${program}/${wallet}?limit=2`],
        ["/v1/provider-report/{program}", `/v1/provider-report/${program}`],
        ["/v1/ecosystem", "/v1/ecosystem"],
        ["/v1/status", "/v1/status"],
        ["/v1/programs", "/v1/programs"],
      ])
        await ask("get", path, url, { headers: key });
      expect((await ask("options", "/v1/ingest", "/v1/ingest")).status).toBe(204);
      expect((await ask("post", "/v1/ingest", "/v1/ingest", json({ envelopes: [makeEnvelope()] }, key))).status).toBe(
        202,
      );
      const rule = {
        program,
        rule: "new_issue",
        destination: {
          type: "webhook",
          url: `http://127.0.0.1:${receiver.port}/hook`,
          secret: "s3cr3t-0123456789abcdef",
        },
      };
      const created = await ask("post", "/v1/alerts", "/v1/alerts", json(rule, key));
      expect(created.status).toBe(201);
      expect((await ask("get", "/v1/alerts", "/v1/alerts", { headers: key })).status).toBe(200);
      const test = await ask("post", "/v1/alerts/{id}/test", `/v1/alerts/${created.body.id}/test`, { headers: key });
      expect(test.status).toBe(200);
      expect((await ask("delete", "/v1/alerts/{id}", `/v1/alerts/${created.body.id}`, { headers: key })).status).toBe(
        200,
      );
      expect((await ask("get", "/v1/issues/{program}", `/v1/issues/${program}?limit=2`, { headers: key })).status).toBe(
        200,
      );
      const issueState = `/v1/issue/${fingerprint}/state`;
      expect(
        (await ask("post", "/v1/issue/{fingerprint}/state", issueState, json({ state: "resolved" }, key))).status,
      ).toBe(200);
      expect((await ask("get", "/v1/issue/{fingerprint}/state", issueState, { headers: key })).status).toBe(200);
    } finally {
      receiver.stop(true);
    }
    const mcpMessage = json(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { accept: "application/json, text/event-stream" },
    );
    expect((await ask("post", "/mcp", "/mcp", mcpMessage)).status).toBe(200);
    const refused = await ask("post", "/mcp", "/mcp", {
      ...mcpMessage,
      headers: { ...mcpMessage.headers, authorization: `Bearer txr_read_${"x".repeat(32)}` },
    });
    expect(refused.status).toBe(401);
    for (const method of ["get", "delete"]) expect((await ask(method, "/mcp", "/mcp")).status).toBe(405);
    expect((await ask("post", "/chat/slack", "/chat/slack", { body: "command=/txray&text=help" })).status).toBe(401);
    for (const path of [
      "/openapi.json",
      "/docs",
      "/docs/redoc.standalone.js",
      "/docs/api.md",
      "/favicon.svg",
      "/favicon.ico",
    ])
      expect((await ask("get", path, path)).status).toBe(200);
    const pages: [string, string][] = [
      ["/", "/"],
      ["/p/{program}", `/p/${program}`],
      ["/tx/{sig}", `/tx/${sigs.failed}`],
      ["/w/{program}/{wallet}", `/w/${program}/${wallet}`],
      ["/i/{fingerprint}", `/i/${fingerprint}`],
      ["/issues/{program}", `/issues/${program}`],
      ["/alerts", "/alerts"],
    ];
    let index = "";
    for (const [path, url] of pages) index = (await ask("get", path, url)).body;
    const asset = /\/assets\/([^"']+)/.exec(index)![1];
    expect((await ask("get", "/assets/{name}", `/assets/${asset}`)).status).toBe(200);
    expect((await ask("get", "/landing-score/", "/landing-score/")).status).toBe(200);
    expect((await ask("get", "/landing-score/{name}", "/landing-score/latest.json")).status).toBe(200);
    expect((await ask("get", "/landing-score/{name}", "/landing-score/programs.json")).status).toBe(404);
    expect((await ask("get", "/healthz", "/healthz")).status).toBe(200);
    expect((await ask("get", "/readyz", "/readyz")).status).toBe(200);
    expect((await ask("get", "/metrics", "/metrics")).status).toBe(200);

    const documentedOps = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(documentedOps.filter((op) => !asked.has(op))).toEqual([]);
  }, 30_000);
});
