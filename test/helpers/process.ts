// Runs txray as a real child process (bun run src/bin/server.ts) on a free loopback port, for tests that
// must kill it (-9) or exercise start-up exactly as a user would.
import { type Subprocess, spawn } from "bun";

export type ServerProcess = { url: string; process: Subprocess; stderr: () => string };

/** `command`: how it is started (by default the server's file; `["bun", "run", "start"]` as the README says). */
export async function startServerProcess(
  env: Record<string, string>,
  { command = ["bun", "run", "src/bin/server.ts"] }: { command?: string[] } = {},
): Promise<ServerProcess> {
  const child = spawn(command, {
    cwd: new URL("../..", import.meta.url).pathname,
    env: {
      ...process.env,
      API_HOST: "127.0.0.1",
      API_PORT: "0",
      TXRAY_SCHEDULER: "off",
      TXRAY_LOG_LEVEL: "info",
      ...env,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  let output = "";
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 15_000;
  let url: string | null = null;
  while (!url) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}`);
    output += decoder.decode(value);
    const match = /"message":"txray listening","url":"([^"]+)"/.exec(output);
    if (match) url = match[1];
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      output += decoder.decode(value);
    }
  })();
  return { url, process: child, stderr: () => output };
}
