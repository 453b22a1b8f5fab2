// Helpers for the SDK tests: a fetch that records every ingest body the SDK sends (and forwards it
// to the real server, or answers in its place), and fake ingest services (dead, slow, 429).

export type IngestBody = { apiKey: string; envelopes: any[] };

/** A fetch recording the JSON bodies it carries, then calling `next` (real fetch by default). */
export function recordingFetch(next: (input: any, init?: any) => Promise<Response> = fetch) {
  const bodies: IngestBody[] = [];
  const wrapped = (async (input: any, init?: any) => {
    if (typeof init?.body === "string") bodies.push(JSON.parse(init.body));
    return next(input, init);
  }) as typeof fetch;
  return { fetch: wrapped, bodies, envelopes: () => bodies.flatMap((b) => b.envelopes) };
}

/** An ingest service on a free loopback port answering each request with `answer`. */
export function fakeIngest(answer: (request: Request) => Response | Promise<Response>) {
  const requests: IngestBody[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const text = await request.text();
      try {
        requests.push(JSON.parse(text));
      } catch {}
      return answer(request);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** A loopback URL with nothing listening. */
export function deadUrl(): string {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const url = `http://127.0.0.1:${server.port}`;
  server.stop(true);
  return url;
}
