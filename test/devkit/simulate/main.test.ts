// `bun run simulate` as a process: starts its own chain, runs the mix, submits to TXRAY_ENDPOINT
// with TXRAY_API_KEY and prints the summary; refuses to run without a key or against a chain that
// is not a txray localnet.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";

const ENTRY = new URL("../../../devkit/bin/simulate.ts", import.meta.url).pathname;

let ingest: Server<undefined>;
const bodies: { apiKey: string; envelopes: unknown[] }[] = [];

beforeAll(() => {
  ingest = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/v1/ingest") return new Response("not found", { status: 404 });
      const body = (await request.json()) as { apiKey: string; envelopes: unknown[] };
      bodies.push(body);
      return Response.json({ accepted: body.envelopes.length }, { status: 202 });
    },
  });
});
afterAll(async () => {
  await ingest.stop(true);
});

async function run(args: string[], env: Record<string, string>) {
  const child = Bun.spawn(["bun", "run", ENTRY, ...args], {
    env: { ...process.env, SOLANA_RPC_URL: "", TXRAY_API_KEY: "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

describe("simulate main", () => {
  test("runs the mix on its own chain and submits every envelope", async () => {
    const { code, stdout, stderr } = await run(
      ["--attempts", "12", "--seed", "3", "--port", "0", "--block-time-ms", "0", "--exit"],
      {
        TXRAY_ENDPOINT: `http://127.0.0.1:${ingest.port}`,
        TXRAY_API_KEY: "txr_live_simulator_test",
      },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("attempts 12: landed ");
    expect(stdout).toContain(`submitted to http://127.0.0.1:${ingest.port}: accepted 12 in 1 batches (0 retries)`);
    expect(bodies).toHaveLength(1);
    expect(bodies[0].apiKey).toBe("txr_live_simulator_test");
    expect(bodies[0].envelopes).toHaveLength(12);
  });

  test("refuses to run without TXRAY_API_KEY (unless --dry-run) or against a non-localnet RPC", async () => {
    const noKey = await run(["--attempts", "1", "--exit"], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("TXRAY_API_KEY is not set");
    const notLocal = await run(["--attempts", "1", "--dry-run"], { SOLANA_RPC_URL: `http://127.0.0.1:${ingest.port}` });
    expect(notLocal.code).toBe(2);
    expect(notLocal.stderr).toContain("is not a txray localnet");
  });
});
