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
      return await respond(entry, received.length - 1);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    async waitFor(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n && Date.now() < deadline) await Bun.sleep(20);
      return received;
    },
    stop: () => server.stop(true),
  };
}
