// A real HTTP receiver on a free loopback port standing in for a webhook endpoint or Slack's
// incoming webhooks: records every request (path, headers, raw body) and answers with what the
// test's `respond` says (default 200 "ok"). Stops with stop().

export type ReceivedRequest = { path: string; headers: Headers; body: string; at: number };
export type Receiver = {
  url: string;
  received: ReceivedRequest[];
  /** Waits until at least `n` requests arrived (or the timeout), returning them. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): void;
};

export function startReceiver(
  respond: (request: ReceivedRequest, index: number) => Response | Promise<Response> = () => new Response("ok"),
): Receiver {
  const received: ReceivedRequest[] = [];
  // Each waitFor's check, run again whenever a request arrives.
  const waiting = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const entry = {
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: await request.text(),
        at: Date.now(),
      };
      received.push(entry);
      for (const check of waiting) check();
      return await respond(entry, received.length - 1);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    waitFor(n, timeoutMs = 20_000) {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(check);
          resolve(received);
        };
        const check = () => {
          if (received.length >= n) done();
        };
        const timer = setTimeout(done, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    stop: () => server.stop(true),
  };
}
