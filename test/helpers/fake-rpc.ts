// A loopback JSON-RPC endpoint that can be switched between behaving, down (connection refused),
// slow (answers after the client gave up) and answering garbage, for the resource-fault tests. When
// it behaves it says every signature is unknown at block height 1,000,000, so an attempt whose
// lastValidBlockHeight is lower resolves as dropped (at its first look-up when 5 or more blocks lower, else at its second).
import type { Server } from "bun";

export type FakeRpcMode = "ok" | "down" | "slow" | "garbage" | "wrong-shape";

export async function startFakeRpc() {
  let mode: FakeRpcMode = "ok";
  let server: Server<undefined> | null = null;
  let port = 0;
  const calls: string[] = [];
  const answer = (body: any) => {
    if (body.method === "getBlockHeight") return 1_000_000;
    if (body.method === "getSignatureStatuses")
      return { context: { slot: 1 }, value: (body.params[0] as string[]).map(() => null) };
    return null;
  };
  const serve = () => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      async fetch(request) {
        const body = (await request.json()) as any;
        for (const call of Array.isArray(body) ? body : [body]) calls.push(call.method);
        if (mode === "slow") await Bun.sleep(3_000);
        if (mode === "garbage")
          return new Response("<html>502 upstream</html>{", { headers: { "content-type": "application/json" } });
        const reply = (call: any) => ({
          jsonrpc: "2.0",
          id: call.id,
          result: mode === "wrong-shape" ? "garbage" : answer(call),
        });
        return Response.json(Array.isArray(body) ? body.map(reply) : reply(body));
      },
    });
    port = server.port!;
  };
  serve();
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    async set(next: FakeRpcMode) {
      if (next === "down" && server) {
        await server.stop(true);
        server = null;
      } else if (next !== "down" && !server) serve();
      mode = next;
    },
    async stop() {
      await server?.stop(true);
    },
  };
}
