// `bun run localnet` as a process: prints its URL, serves JSON-RPC, stops cleanly on SIGTERM, and
// refuses a bad setting with a message naming it.

import { describe, expect, test } from "bun:test";

const ENTRY = new URL("../../../devkit/bin/localnet.ts", import.meta.url).pathname;

async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!pattern.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  } finally {
    reader.releaseLock();
  }
  return text;
}

describe("localnet main", () => {
  test("serves on LOCALNET_PORT (0 = free), answers getHealth, exits 0 on SIGTERM", async () => {
    const child = Bun.spawn(["bun", "run", ENTRY], {
      env: { ...process.env, LOCALNET_PORT: "0", LOCALNET_BLOCK_TIME_MS: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const banner = await readUntil(child.stdout, /localnet JSON-RPC (http:\/\/\S+)/);
      const url = banner.match(/localnet JSON-RPC (http:\/\/\S+)/)![1];
      expect(url).toStartWith("http://127.0.0.1:");
      const response = await fetch(url, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
      });
      expect(await response.json()).toEqual({ jsonrpc: "2.0", result: "ok", id: 1 });
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
      expect(await readUntil(child.stdout, /SIGTERM: stopping localnet/)).toContain("SIGTERM: stopping localnet");
    } finally {
      child.kill();
    }
  });

  test("a bad setting stops start-up with exit code 2 and names the setting", async () => {
    const child = Bun.spawn(["bun", "run", ENTRY], {
      env: { ...process.env, LOCALNET_PORT: "eighty" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(2);
    expect(await new Response(child.stderr).text()).toContain("invalid setting LOCALNET_PORT");
  });
});
