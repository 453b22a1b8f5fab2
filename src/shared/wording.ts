// Words around figures, shared by every text that leaves the server (MCP, Slack, alerts): a count
// with its noun in the right number, and a p-value that never reads as zero.

/** "1 wallet", "2 wallets", "1,204 wallets". */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

/** "p < 0.0001" below the smallest value two significant digits show honestly, "p = 0.032" otherwise. */
export function formatPValue(p: number): string {
  return p < 0.0001 ? "p < 0.0001" : `p = ${p.toPrecision(2)}`;
}
