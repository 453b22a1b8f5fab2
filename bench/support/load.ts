// A closed-loop HTTP load generator: `connections` concurrent loops POSTing prebuilt bodies for a
// fixed time. Used by the ingest benchmark against both the real server and the ceiling.
export type LoadResult = { requests: number; ok: number; seconds: number; latencies: number[] };

export async function postLoad(
  url: string,
  bodies: string[],
  options: { connections: number; seconds: number; okStatus: number },
): Promise<LoadResult> {
  const end = performance.now() + options.seconds * 1000;
  let requests = 0;
  let ok = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async (_, c) => {
      let i = c;
      while (performance.now() < end) {
        const body = bodies[i++ % bodies.length];
        const t0 = performance.now();
        const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        requests++;
        if (response.status === options.okStatus) ok++;
      }
    }),
  );
  return { requests, ok, seconds: (performance.now() - started) / 1000, latencies };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
