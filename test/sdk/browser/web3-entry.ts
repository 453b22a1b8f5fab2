// The dapp's own @solana/web3.js, bundled for the browser test page (test/sdk/browser.test.ts).
export { Connection, Keypair, SendTransactionError, SystemProgram, Transaction } from "@solana/web3.js";
