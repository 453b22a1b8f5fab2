// Links to a transaction on the public explorers (Solana Explorer, Solscan), for the tx page and the
// why answer, on the cluster EXPLORER_CLUSTER names. A local chain has no public explorer: `auto`
// turns the links off when SOLANA_RPC_URL is on this machine.

export type Cluster = "mainnet-beta" | "devnet" | "testnet";
export type ExplorerLinks = { solanaExplorer: string; solscan: string };

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1", "0.0.0.0"]);

/** The cluster of a setting (`auto` decided from the RPC URL); null when links are off. */
export function explorerCluster(setting: Cluster | "auto" | "off", rpcUrl: string): Cluster | null {
  if (setting === "off") return null;
  if (setting !== "auto") return setting;
  const host = new URL(rpcUrl).hostname.toLowerCase();
  if (LOCAL_HOSTS.has(host) || host.startsWith("127.")) return null;
  if (host.includes("devnet")) return "devnet";
  if (host.includes("testnet")) return "testnet";
  return "mainnet-beta";
}

export function explorerLinks(cluster: Cluster, sig: string): ExplorerLinks {
  const query = cluster === "mainnet-beta" ? "" : `?cluster=${cluster}`;
  return {
    solanaExplorer: `https://explorer.solana.com/tx/${sig}${query}`,
    solscan: `https://solscan.io/tx/${sig}${query}`,
  };
}
