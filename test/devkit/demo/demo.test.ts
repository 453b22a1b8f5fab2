// `bun run demo` as a user runs it: spawned on free ports with a fresh data directory, it must print
// the dashboard URL, the server behind it must have envelopes in the lake and list programs (and
// serve the web app); soon after its start (72–98 s on the 2-core reference box, 156 s on the same box
// in an hour its memory was several times slower: the test allows three minutes, as a slower CI
// machine needs) the app program's broken release reads by
// name (its IDL, registered at start) in the routes and the MCP tool, the bot segment holds the
// bot's failures and nobody is "mixed", and the Landing Score of the demo's own traffic is served
// at /landing-score/ with the demo's programs named; SIGINT must stop it cleanly (exit 0, nothing
// left on its ports, its temporary data directory removed).

import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "bun";

/** What the demo must show within POPULATED_WITHIN_MS (null: shown; else what is missing yet). */
async function missing(url: string, app: string): Promise<string | null> {
  const top = (await (await fetch(`${url}/v1/top-issues/${app}?window=1d&limit=20`)).json()) as any;
  const all = top.segments ? [...top.segments.human, ...top.segments.mixed, ...top.segments.bot] : [];
  if (!all.some((i: any) => i.title === "UnsupportedInstruction in PostMemo"))
    return `the app's failure by name (top issues: ${all.map((i: any) => i.title).join(", ")})`;
  if (top.segments.mixed.length > 0) return "no mixed payers";
  if (top.segments.bot.length === 0) return "the bot's failures in the bot segment";
  const snapshot = (await fetch(`${url}/landing-score/latest.json`).then(
    (r) => (r.ok ? r.json() : null),
    () => null,
  )) as any;
  if (!snapshot || snapshot.date !== new Date().toISOString().slice(0, 10) || snapshot.programs.length < 3)
    return "today's Landing Score with the demo's programs";
  return null;
}

const POPULATED_WITHIN_MS = 180_000;

test(
  "bun run demo reaches a populated dashboard, then stops on SIGINT",
  async () => {
    const started = Date.now();
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
      const { value, done } = await Promise.race([
        reader.read(),
        Bun.sleep(deadline - Date.now()).then(() => ({ value: undefined, done: true })),
      ]);
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

      const app = /\/p\/([1-9A-HJ-NP-Za-km-z]{32,44})\?window=1d/.exec(output)?.[1];
      expect(app, output).toBeDefined();
      let lacking: string | null = "everything";
      while (Date.now() - started < POPULATED_WITHIN_MS && (lacking = await missing(url!, app!)) !== null)
        await Bun.sleep(500);
      expect({ populatedInTime: lacking }).toEqual({ populatedInTime: null });
      // By name on every surface: the route's title, the issue page's, the MCP tool's text.
      const top = (await (await fetch(`${url}/v1/top-issues/${app}?window=1d&limit=20`)).json()) as any;
      const broken = [...top.segments.human, ...top.segments.bot].find(
        (i: any) => i.title === "UnsupportedInstruction in PostMemo",
      );
      const issue = (await (await fetch(`${url}/v1/issue/${broken.fingerprint}?window=1d`)).json()) as any;
      expect(issue).toMatchObject({
        title: "UnsupportedInstruction in PostMemo",
        errCode: 12,
        errName: "UnsupportedInstruction",
        errMessage: "This release does not understand the instruction it was sent",
      });
      expect(issue.introducedBy).not.toBeNull();
      expect(issue.representative.callStack.find((f: any) => f.failing)).toMatchObject({
        program: app,
        instruction: "PostMemo",
      });
      const mcp = new Client({ name: "demo-test", version: "0" });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const answer = await mcp.callTool({ name: "issue", arguments: { fingerprint: broken.fingerprint } });
      expect((answer.content as { text: string }[])[0].text).toStartWith("UnsupportedInstruction in PostMemo");
      await mcp.close();
      // The bot's failures are the bot segment's, with the bot's wallet adapter only.
      for (const botIssue of top.segments.bot) {
        const detail = (await (await fetch(`${url}/v1/issue/${botIssue.fingerprint}?window=1d`)).json()) as any;
        expect(detail.breakdowns.walletAdapters.find((s: any) => s.key === "keypair")?.count).toBeGreaterThanOrEqual(
          botIssue.count,
        );
      }
      // The Landing Score page the home page links to, the demo's programs by name.
      const board = await fetch(`${url}/landing-score/`);
      expect(board.status).toBe(200);
      const html = await board.text();
      for (const name of ["txray demo app", "System Program", "SPL Token"]) expect(html).toContain(name);
      const dataDir = /data (\/[^\s]+) \(removed on exit\)/.exec(output)?.[1];
      expect(dataDir).toBeDefined();

      child.kill("SIGINT");
      const code = await Promise.race([child.exited, Bun.sleep(30_000).then(() => "timeout")]);
      await drain;
      expect(code, output).toBe(0);
      expect(output).toContain("demo stopped");
      expect(
        await fetch(`${url}/v1/status`).then(
          () => "answered",
          () => "refused",
        ),
      ).toBe("refused");
      expect(existsSync(dataDir!)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  },
  POPULATED_WITHIN_MS + 60_000,
);
