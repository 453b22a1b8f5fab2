// The ingest benchmark's ceiling: a bare Bun.serve handler that only reads and parses the same body
// and answers 202, so `ratio` shows what validation, auth, rate limiting and the durable spool cost.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = JSON.parse(await request.text()) as { envelopes: unknown[] };
    return new Response(JSON.stringify({ accepted: body.envelopes.length }), {
      status: 202,
      headers: { "content-type": "application/json" },
    });
  },
});
console.error(
  JSON.stringify({ message: "txray listening", url: `http://127.0.0.1:${server.port}` }).replace(
    /^\{/,
    '{"level":"info",',
  ),
);
