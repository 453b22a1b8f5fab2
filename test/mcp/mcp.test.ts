// The MCP tool twins: an SDK Client over stdio (`bun run src/bin/mcp.ts` as a child process on the
// same data directory) and over Streamable HTTP (/mcp on a real loopback server) lists the tools and
// gets, for every question, exactly the object the HTTP route answers; errors come back as tool
// errors carrying the route's code; a key scopes answers like ?scope=account. The official MCP
// Inspector's CLI lists the tools on both transports without a schema portability warning.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { QUESTIONS } from "../../src/contract/questions";
import { recordSchedule } from "../../src/control";
import {
  type AnswersWorld,
  END_MS,
  makeAnswersWorld,
  randomAddress,
  serveWorld,
  type WorldServer,
} from "../helpers/answers-world";

let world: AnswersWorld;
let server: WorldServer;
let stdio: Client;
let http: Client;
let stdioStderr = "";
/** The Inspector's home directory (it keeps a catalog and client settings there), apart from the user's and the data's. */
const inspectorHome = mkdtempSync(join(tmpdir(), "txray-inspector-"));

const root = new URL("../..", import.meta.url).pathname;
/** The deployment's tables interval, as its scheduler records it; the stdio process's own environment says otherwise. */
const DEPLOYMENT_TABLES_INTERVAL_MS = 777_000;

async function httpClient(headers: Record<string, string> = {}) {
  const client = new Client({ name: "txray-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  return client;
}

beforeAll(async () => {
  world = await makeAnswersWorld();
  server = await serveWorld(world);
  recordSchedule(server.ctx.control, { tables: DEPLOYMENT_TABLES_INTERVAL_MS }, END_MS);
  const transport = new StdioClientTransport({
    command: "bun",
    args: ["run", "src/bin/mcp.ts"],
    cwd: root,
    env: {
      ...(process.env as Record<string, string>),
      ...world.env,
      TXRAY_LOG_LEVEL: "info",
      TABLES_INTERVAL_MS: "5000",
    },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => (stdioStderr += String(chunk)));
  stdio = new Client({ name: "txray-test", version: "0" });
  await stdio.connect(transport);
  http = await httpClient();
}, 60_000);

afterAll(async () => {
  await stdio?.close();
  await http?.close();
  await server?.stop();
  world?.dispose();
  rmSync(inspectorHome, { recursive: true, force: true });
});

/** Each question with arguments, and the route path that asks the same. */
function cases() {
  const { program, wallet, sigs, fingerprint } = world;
  return [
    { tool: "issue", args: { fingerprint, window: "30d" }, path: `/v1/issue/${fingerprint}?window=30d` },
    { tool: "issue", args: { fingerprint }, path: `/v1/issue/${fingerprint}` },
    { tool: "why", args: { sig: sigs.failed }, path: `/v1/why/${sigs.failed}` },
    { tool: "why", args: { sig: sigs.landed }, path: `/v1/why/${sigs.landed}` },
    { tool: "why", args: { sig: sigs.chain }, path: `/v1/why/${sigs.chain}` },
    { tool: "transaction", args: { sig: sigs.chain }, path: `/v1/tx/${sigs.chain}` },
    { tool: "diagnose_drop", args: { sig: sigs.dropped }, path: `/v1/diagnose-drop/${sigs.dropped}` },
    { tool: "diagnose_drop", args: { sig: sigs.failed }, path: `/v1/diagnose-drop/${sigs.failed}` },
    { tool: "baseline", args: { program }, path: `/v1/baseline/${program}` },
    { tool: "baseline", args: { program, window: "30d" }, path: `/v1/baseline/${program}?window=30d` },
    { tool: "release_diff", args: { program, window: "30d" }, path: `/v1/release-diff/${program}?window=30d` },
    {
      tool: "top_issues",
      args: { program, window: "30d", limit: 5 },
      path: `/v1/top-issues/${program}?window=30d&limit=5`,
    },
    { tool: "top_issues", args: { program, segment: "bot" }, path: `/v1/top-issues/${program}?segment=bot` },
    { tool: "cu_headroom", args: { program, window: "1d" }, path: `/v1/cu-headroom/${program}?window=1d` },
    {
      tool: "wallet_history",
      args: { program, wallet, window: "30d", limit: 3 },
      path: `/v1/wallet/${program}/${wallet}?window=30d&limit=3`,
    },
    { tool: "provider_report", args: { program }, path: `/v1/provider-report/${program}` },
    { tool: "ecosystem", args: { window: "30d", limit: 5 }, path: `/v1/ecosystem?window=30d&limit=5` },
    { tool: "status", args: {}, path: `/v1/status` },
  ];
}

test("the cases call every tool", () => {
  expect([...new Set(cases().map((c) => c.tool))].sort()).toEqual(QUESTIONS.map((q) => q.name).sort());
});

const INSPECTOR = new URL(
  "../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
  import.meta.url,
).pathname;

/**
 * The MCP Inspector's CLI mode (`mcp-inspector --cli …`), one JSON answer on stdout.
 */
async function inspector(args: string[]) {
  const child = Bun.spawn([process.execPath, INSPECTOR, "--cli", ...args, "--format", "json"], {
    cwd: root,
    env: { ...process.env, HOME: inspectorHome },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stderr, answer: stdout ? JSON.parse(stdout) : null };
}

describe("the MCP Inspector CLI", () => {
  // The SDK Client below calls every tool on both transports; the Inspector lists on both and calls over HTTP.
  test("lists every tool over stdio and HTTP with no portability warning, and calls one", async () => {
    const stdioServer = [...Object.entries(world.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]), "--cwd", root];
    const stdioCommand = ["bun", "run", "src/bin/mcp.ts"];
    const httpTarget = `${server.url}/mcp`;
    // One stdio server (each is a process with its own DuckDB) and the HTTP list and call, at once.
    const [stdioList, httpList, httpCall] = await Promise.all([
      inspector([...stdioServer, ...stdioCommand, "--method", "tools/list", "--strict"]),
      inspector([httpTarget, "--method", "tools/list", "--strict"]),
      inspector([
        httpTarget,
        ...["--method", "tools/call", "--tool-name", "why"],
        ...["--tool-args-json", JSON.stringify({ sig: world.sigs.failed })],
      ]),
    ]);
    for (const [name, list] of [
      ["stdio", stdioList],
      ["http", httpList],
    ] as const) {
      expect({ name, code: list.code, warnings: list.stderr.match(/Warning: .*/g) ?? [] }).toEqual({
        name,
        code: 0,
        warnings: [],
      });
      const tools = list.answer.result.tools as { name: string }[];
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [...QUESTIONS.map((q) => q.name), "issue_list", "set_issue_state"].sort(),
      );
    }
    expect(stdioList.answer.result.tools).toEqual(httpList.answer.result.tools);
    expect({ code: httpCall.code, isError: httpCall.answer.result.isError ?? false }).toEqual({
      code: 0,
      isError: false,
    });
    expect(httpCall.answer.result.structuredContent.errName).toBe("SlippageToleranceExceeded");
  }, 60_000);
});

describe.each([["stdio"], ["http"]])("MCP over %s", (transport) => {
  const client = () => (transport === "stdio" ? stdio : http);

  test("lists every tool with descriptions and input/output schemas", async () => {
    const { tools } = await client().listTools();
    const triage = ["issue_list", "set_issue_state"]; // docs/api.md#issue-states
    expect(tools.map((t) => t.name).sort()).toEqual([...QUESTIONS.map((q) => q.name), ...triage].sort());
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "why",
        "diagnose_drop",
        "baseline",
        "release_diff",
        "top_issues",
        "cu_headroom",
        "wallet_history",
        "provider_report",
        "status",
      ]),
    );
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(tool.name !== "set_issue_state"); // the one tool that writes
    }
    const wallet = tools.find((t) => t.name === "wallet_history")!;
    expect(wallet.inputSchema.required).toEqual(["program", "wallet"]);
    expect((wallet.inputSchema.properties as any).window.enum).toEqual(["1d", "7d", "30d"]);
    expect((wallet.inputSchema.properties as any).limit.type).toBe("integer");
  });

  test("every tool answers exactly what its route answers", async () => {
    for (const { tool, args, path } of cases()) {
      const route = await server.get(path);
      expect({ path, status: route.status }).toEqual({ path, status: 200 });
      const result = await client().callTool({ name: tool, arguments: args });
      expect({ tool, isError: result.isError ?? false }).toEqual({ tool, isError: false });
      // Status measures disk use per process (cached 30 s), and each process's chain reading includes its
      // own latest requests: over stdio the tool runs in another process.
      const sameAnswer = (body: any) =>
        tool === "status" && body?.disk
          ? {
              ...body,
              disk: { ...body.disk, measuredAt: 0 },
              chain: body.chain && { ...body.chain, lastOkAt: 0, since: 0 },
            }
          : body;
      expect(sameAnswer(result.structuredContent)).toEqual(sameAnswer(route.body));
      const text = (result.content as { type: string; text: string }[])[0];
      expect(text.type).toBe("text");
      expect(text.text.length).toBeGreaterThan(10);
    }
  });

  test("a text rendering that says what the object says", async () => {
    const result = await client().callTool({ name: "why", arguments: { sig: world.sigs.failed } });
    const text = (result.content as { text: string }[])[0].text;
    expect(text).toContain("SlippageToleranceExceeded");
    expect(text).toContain("6001");
    expect(text).toContain("104,305");
  });

  test("errors are tool errors carrying the route's code and message", async () => {
    const { program, sigs } = world;
    const errorCases = [
      { tool: "why", args: { sig: "not-a-signature" }, path: "/v1/why/not-a-signature", code: "bad_request" },
      { tool: "why", args: { sig: sigs.unknown }, path: `/v1/why/${sigs.unknown}`, code: "not_found" },
      { tool: "why", args: { sig: sigs.pending }, path: `/v1/why/${sigs.pending}`, code: "pending" },
      {
        tool: "diagnose_drop",
        args: { sig: sigs.pending },
        path: `/v1/diagnose-drop/${sigs.pending}`,
        code: "pending",
      },
      {
        tool: "baseline",
        args: { program, window: "2d" },
        path: `/v1/baseline/${program}?window=2d`,
        code: "bad_request",
      },
      { tool: "baseline", args: { program: randomAddress() }, path: null, code: "not_found" },
      {
        tool: "top_issues",
        args: { program, limit: 0 },
        path: `/v1/top-issues/${program}?limit=0`,
        code: "bad_request",
      },
      {
        tool: "wallet_history",
        args: { program, wallet: world.wallet, cursor: "garbage" },
        path: `/v1/wallet/${program}/${world.wallet}?cursor=garbage`,
        code: "bad_request",
      },
      {
        tool: "release_diff",
        args: { program, deploy: 12345 },
        path: `/v1/release-diff/${program}?deploy=12345`,
        code: "not_found",
      },
      {
        tool: "baseline",
        args: { program, scope: "account" },
        // stdio cannot carry a key, so its message says what works there instead of naming a header.
        path: transport === "http" ? `/v1/baseline/${program}?scope=account` : null,
        code: "unauthorized",
        message: transport === "stdio" ? /stdio cannot carry/ : undefined,
      },
      { tool: "baseline", args: {}, path: null, code: "bad_request" },
    ];
    for (const { tool, args, path, code, message } of errorCases) {
      const result = await client().callTool({ name: tool, arguments: args });
      expect({ tool, args, isError: result.isError }).toEqual({ tool, args, isError: true });
      const error = (result._meta as any)["txray/error"];
      expect({ tool, code: error.code }).toEqual({ tool, code });
      expect((result.content as { text: string }[])[0].text).toStartWith(`${code} (HTTP ${error.status}): `);
      if (path) {
        const route = await server.get(path);
        expect(route.status).toBe(error.status);
        expect(route.body.error).toEqual({ code: error.code, message: error.message });
      }
      if (message) expect(error.message).toMatch(message);
      if (code === "pending") expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("MCP over HTTP with a key", () => {
  test("scope account answers the key's account only, like ?scope=account", async () => {
    const { program } = world;
    const scopedA = await httpClient({ authorization: `Bearer ${world.keys.a}` });
    const scopedB = await httpClient({ "x-api-key": world.keys.b });
    try {
      for (const [client, key] of [
        [scopedA, world.keys.a],
        [scopedB, world.keys.b],
      ] as const) {
        const result = await client.callTool({
          name: "baseline",
          arguments: { program, window: "30d", scope: "account" },
        });
        const route = await server.get(`/v1/baseline/${program}?window=30d&scope=account`, { "x-api-key": key });
        expect(result.structuredContent).toEqual(route.body);
      }
      const a = (await scopedA.callTool({ name: "baseline", arguments: { program, window: "30d", scope: "account" } }))
        .structuredContent as any;
      const b = (await scopedB.callTool({ name: "baseline", arguments: { program, window: "30d", scope: "account" } }))
        .structuredContent as any;
      const all = (await scopedA.callTool({ name: "baseline", arguments: { program, window: "30d" } }))
        .structuredContent as any;
      expect(a.rates.attempts).not.toBe(b.rates.attempts);
      expect(a.rates.attempts + b.rates.attempts).toBe(all.rates.attempts);
    } finally {
      await scopedA.close();
      await scopedB.close();
    }
  });

  test("an invalid key is refused with 401 and a Bearer challenge; GET has no stream (405)", async () => {
    const bad = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer txr_read_${"x".repeat(32)}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bad.status).toBe(401);
    // A plain Bearer challenge: no resource_metadata, so MCP clients do not start OAuth discovery.
    const challenge = bad.headers.get("www-authenticate") ?? "";
    expect(challenge).toStartWith('Bearer realm="txray", error="invalid_token"');
    expect(challenge).not.toContain("resource_metadata");
    expect((await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    expect(((await bad.json()) as any).error).toEqual({ code: "unauthorized", message: "invalid or revoked API key" });
    const get = await fetch(`${server.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });
});

test("/mcp refuses a hostile Origin or Host with 403 (DNS rebinding); its own origin and no Origin pass", async () => {
  const post = (headers: Record<string, string | undefined>) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(headers as Record<string, string>),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
  const port = new URL(server.url).port;
  for (const headers of [
    { origin: "http://evil.example" },
    { origin: "null" },
    { host: `evil.example:${port}` },
    { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
    { origin: "http://evil.example", authorization: `Bearer txr_read_${"x".repeat(32)}` },
  ]) {
    const refused = await post(headers);
    expect({ headers, status: refused.status }).toEqual({ headers, status: 403 });
    expect(((await refused.json()) as any).error.code).toBe("forbidden");
  }
  expect((await fetch(`${server.url}/mcp`, { headers: { origin: "http://evil.example" } })).status).toBe(403);
  expect((await post({ origin: server.url })).status).toBe(200);
  expect((await post({ host: `localhost:${port}` })).status).toBe(200);
});

test("stdio status reports the deployment's tables interval, not its own environment's", async () => {
  const result = await stdio.callTool({ name: "status", arguments: {} });
  const serving = (result.structuredContent as any).freshness.serving;
  expect(serving).toMatchObject({ refreshEveryMs: DEPLOYMENT_TABLES_INTERVAL_MS, refreshEverySource: "scheduler" });
});

test("stdio: logs go to stderr, never stdout (the protocol stream)", () => {
  expect(stdioStderr).toContain("txray mcp on stdio");
});
