// EXPLORER_CLUSTER: `auto` turns the explorer links off for a chain on this machine and picks the
// cluster an RPC host names; an explicit cluster wins; links carry `?cluster=` off mainnet.
import { expect, test } from "bun:test";
import { explorerCluster, explorerLinks } from "../../src/shared/explorer-links";

test("auto: off on loopback, devnet/testnet by host, else mainnet-beta; explicit settings win", () => {
  expect(explorerCluster("auto", "http://127.0.0.1:8899")).toBeNull();
  expect(explorerCluster("auto", "http://localhost:8899")).toBeNull();
  expect(explorerCluster("auto", "http://[::1]:8899")).toBeNull();
  expect(explorerCluster("auto", "https://api.devnet.solana.com")).toBe("devnet");
  expect(explorerCluster("auto", "https://api.testnet.solana.com")).toBe("testnet");
  expect(explorerCluster("auto", "https://mainnet.helius-rpc.com/?api-key=x")).toBe("mainnet-beta");
  expect(explorerCluster("devnet", "http://127.0.0.1:8899")).toBe("devnet");
  expect(explorerCluster("off", "https://api.mainnet-beta.solana.com")).toBeNull();
});

test("links name the cluster off mainnet", () => {
  expect(explorerLinks("mainnet-beta", "abc")).toEqual({
    solanaExplorer: "https://explorer.solana.com/tx/abc",
    solscan: "https://solscan.io/tx/abc",
  });
  expect(explorerLinks("devnet", "abc")).toEqual({
    solanaExplorer: "https://explorer.solana.com/tx/abc?cluster=devnet",
    solscan: "https://solscan.io/tx/abc?cluster=devnet",
  });
});
