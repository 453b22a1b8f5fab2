// `bun run demo` as a user runs it: spawned on free ports with a fresh data directory, it must print
// the dashboard URL within two minutes, the server behind it must have envelopes in the lake and
// list programs (and serve the web app), and SIGINT must stop it cleanly (exit 0, nothing left on
// its ports, its temporary data directory removed).

import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { spawn } from "bun";

test("bun run demo reaches a populated dashboard, then stops on SIGINT", async () => {
  const child = spawn(["bun", "run", "devkit/bin/demo.ts"], {
    cwd: new URL("../../..", import.meta.url).pathname,
    env: { ...process.env, API_PORT: "0", LOCALNET_PORT: "0", TXRAY_DATA_DIR: "", TXRAY_LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 120_000;
  let url: string | null = null;
  while (!url && Date.now() < deadline) {
    const { value, done } = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => ({ value: undefined, done: true }))]);
    if (done) break;
    output += decoder.decode(value);
    url = /dashboard ready: (http:\/\/[^\s]+)\//.exec(output)?.[1] ?? null;
  }
  const drain = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      output += decoder.decode(value);
    }
  })();
  try {
    expect(url, output).not.toBeNull();
    const status = (await (await fetch(`${url}/v1/status`)).json()) as any;
    expect(status.lake.envelopes).toBeGreaterThan(0);
    const eco = (await (await fetch(`${url}/v1/ecosystem?window=1d`)).json()) as any;
    expect(eco.programs.length).toBeGreaterThan(0);
    expect(eco.programs[0].attempts).toBeGreaterThan(0);
    const page = await fetch(`${url}/`);
    expect(page.headers.get("content-type")).toContain("text/html");
    const dataDir = /data (\/[^\s]+) \(removed on exit\)/.exec(output)?.[1];
    expect(dataDir).toBeDefined();

    child.kill("SIGINT");
    const code = await Promise.race([child.exited, Bun.sleep(30_000).then(() => "timeout")]);
    await drain;
    expect(code, output).toBe(0);
    expect(output).toContain("demo stopped");
    expect(await fetch(`${url}/v1/status`).then(() => "answered", () => "refused")).toBe("refused");
    expect(existsSync(dataDir!)).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 180_000);
