// LocalChain: one LiteSVM instance plus what a validator adds around it — blocks and a window of
// valid blockhashes, a ledger of landed transactions with mainnet-shaped metadata, a faucet,
// and program (re)deploys under the upgradeable loader. Everything RPC-facing is built on it; it
// has no HTTP. LiteSVM executes (real System / SPL Token / Token-2022 / ATA / Compute Budget
// programs, real logs and errors); LiteSVM's own blockhash check is off because it only knows its
// latest hash — validity against the 150-block window is enforced here instead.

import { createHash } from "node:crypto";
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from "@solana/web3.js";
import {
  Account,
  Clock,
  FailedTransactionMetadata,
  LiteSvm,
  type SimulatedTransactionInfo,
  type TransactionMetadata,
} from "litesvm/dist/internal";
import { decodeBase58, encodeBase58 } from "../../src/shared/base58.ts";
import { type Block, BlockClock, SLOTS_PER_EPOCH, STATUS_CACHE_SLOTS } from "./blocks.ts";
import { fromLiteSvmError, type TransactionErrorJson } from "./errors.ts";
import { computeBudgetOf, messageFee } from "./fees.ts";
import type { ReturnData, TokenBalance, TxRecord, UiInnerInstruction } from "./ledger.ts";
import { Ledger } from "./ledger.ts";
import {
  decodeLoaderState,
  encodeProgramAccount,
  encodeProgramDataAccount,
  PROGRAM_DATA_HEADER,
  programDataAddress,
  UPGRADEABLE_LOADER,
} from "./loader.ts";
import {
  decodeMintDecimals,
  decodeTokenAccount,
  isTokenProgram,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  uiTokenAmount,
} from "./tokens.ts";
import {
  isWritableIndex,
  type ParsedMessage,
  type ParsedTransaction,
  parseMessage,
  parseTransaction,
  withBlockhash,
} from "./wire.ts";

export const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const ADDRESS_LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111";
const LOOKUP_TABLE_META_SIZE = 56;
/** Slots after which a landed transaction counts as rooted (finalized, confirmations null). */
export const FINALITY_DEPTH = 32;

export interface ChainOptions {
  /** Seeds the genesis hash, faucet, deployer and generated program ids (default 1). */
  seed?: number;
  /** Slot of the first block (default 1000). */
  initialSlot?: number;
  /** Block height of the first block (default 900): slot ≠ height, as on mainnet. */
  initialBlockHeight?: number;
  /** Wall clock in ms (default Date.now); blockTime is derived from it. */
  now?: () => number;
  /** Lamports the faucet starts with (default 4 000 000 SOL). */
  faucetLamports?: bigint;
}

export interface AccountView {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export interface ExecutionResult {
  signature: string;
  /** True when the transaction was committed to the ledger (success or on-chain failure). */
  landed: boolean;
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  returnData: ReturnData | null;
  slot: number;
}

export interface SimulateOptions {
  sigVerify?: boolean;
  replaceRecentBlockhash?: boolean;
  /** Addresses whose post-simulation state to return. */
  accounts?: string[];
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  returnData: ReturnData | null;
  innerInstructions: { index: number; instructions: UiInnerInstruction[] }[];
  accountKeys: string[];
  accounts: (AccountView | null)[] | null;
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
}

export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  err: TransactionErrorJson | null;
  confirmationStatus: "processed" | "confirmed" | "finalized";
}

export type ProgramTemplate = "memo" | "spl-token" | "spl-token-2022" | "associated-token";

export interface DeployOptions {
  /** The program's ELF; default: the template's ELF. */
  elf?: Uint8Array;
  /** Which built-in program's ELF to deploy when no `elf` is given (default "memo"). */
  template?: ProgramTemplate;
  /** Upgrade authority (default: the chain's deployer key); null makes the program immutable. */
  authority?: string | null;
}

export interface DeployResult {
  programId: string;
  programDataAddress: string;
  /** Slot recorded in ProgramData: the slot the program was last modified. */
  slot: number;
  authority: string | null;
}

const TEMPLATE_PROGRAMS: Record<ProgramTemplate, string> = {
  memo: MEMO_PROGRAM,
  "spl-token": TOKEN_PROGRAM,
  "spl-token-2022": TOKEN_2022_PROGRAM,
  "associated-token": ASSOCIATED_TOKEN_PROGRAM,
};

const sha256 = (text: string) => createHash("sha256").update(text).digest();
const keyBytes = (address: string) => {
  const bytes = decodeBase58(address);
  if (bytes?.length !== 32) throw new Error(`invalid address: ${address}`);
  return bytes;
};

export class LocalChain {
  readonly svm: LiteSvm;
  readonly clock: BlockClock;
  readonly ledger = new Ledger();
  readonly genesisHash: string;
  readonly faucet: Keypair;
  readonly deployer: Keypair;
  private readonly seed: number;
  private readonly now: () => number;
  private genesisUnix = 0n;
  private readonly txListeners = new Set<(record: TxRecord) => void>();
  private generatedPrograms = 0;
  private airdrops = 0;

  constructor(options: ChainOptions = {}) {
    this.seed = options.seed ?? 1;
    this.now = options.now ?? Date.now;
    this.svm = new LiteSvm();
    this.svm.setBlockhashCheck(false);
    this.svm.setSigverify(true);
    this.svm.setTransactionHistory(1_000_000n);
    this.genesisHash = encodeBase58(sha256(`txray-localnet/genesis/${this.seed}`));
    this.faucet = Keypair.fromSeed(sha256(`txray-localnet/faucet/${this.seed}`));
    this.deployer = Keypair.fromSeed(sha256(`txray-localnet/deployer/${this.seed}`));
    this.svm.setAccount(
      this.faucet.publicKey.toBytes(),
      new Account(
        options.faucetLamports ?? 4_000_000_000_000_000n,
        new Uint8Array(0),
        keyBytes(SYSTEM_PROGRAM),
        false,
        0n,
      ),
    );
    this.clock = new BlockClock({
      initialSlot: options.initialSlot ?? 1000,
      initialBlockHeight: options.initialBlockHeight ?? 900,
      genesisBlockhash: this.svm.latestBlockhash(),
      nextBlockhash: () => {
        this.svm.expireBlockhash();
        return this.svm.latestBlockhash();
      },
      now: this.now,
    });
    this.genesisUnix = BigInt(Math.floor(this.clock.latest.timeMs / 1000));
    this.syncClockSysvar(this.clock.latest);
    this.clock.onBlock((block) => this.syncClockSysvar(block));
  }

  // ---- blocks -------------------------------------------------------------------------------

  get slot(): number {
    return this.clock.slot;
  }
  get blockHeight(): number {
    return this.clock.blockHeight;
  }
  get epoch(): number {
    return Math.floor(this.clock.slot / SLOTS_PER_EPOCH);
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return { blockhash: this.clock.blockhash, lastValidBlockHeight: this.clock.lastValidBlockHeight };
  }

  advanceBlocks(count = 1): Block {
    return this.clock.produce(count);
  }

  private syncClockSysvar(block: Block): void {
    // Epoch 0 for any realistic run (432 000 slots), so the epoch started at genesis.
    const epoch = BigInt(Math.floor(block.slot / SLOTS_PER_EPOCH));
    const unix = BigInt(Math.floor(block.timeMs / 1000));
    this.svm.setClock(new Clock(BigInt(block.slot), this.genesisUnix, epoch, epoch + 1n, unix));
  }

  // ---- accounts -----------------------------------------------------------------------------

  getAccount(address: string): AccountView | null {
    const account = this.svm.getAccount(keyBytes(address));
    if (!account) return null;
    return {
      lamports: account.lamports(),
      data: account.data(),
      owner: encodeBase58(account.owner()),
      executable: account.executable(),
    };
  }

  getBalance(address: string): bigint {
    return this.svm.getBalance(keyBytes(address)) ?? 0n;
  }

  setAccount(address: string, account: AccountView): void {
    this.svm.setAccount(
      keyBytes(address),
      new Account(account.lamports, account.data, keyBytes(account.owner), account.executable, 0n),
    );
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength));
  }

  // ---- transactions -------------------------------------------------------------------------

  onTransaction(listener: (record: TxRecord) => void): () => void {
    this.txListeners.add(listener);
    return () => this.txListeners.delete(listener);
  }

  /**
   * Executes a signed transaction the way a leader would. Load-stage failures (bad blockhash,
   * unfunded fee payer, bad signature, duplicate) return landed=false and leave no trace.
   */
  submit(bytes: Uint8Array): ExecutionResult {
    const tx = parseTransaction(bytes);
    const signature = tx.signatures[0];
    const slot = this.clock.slot;
    const notLanded = (err: TransactionErrorJson): ExecutionResult => ({
      signature,
      landed: false,
      err,
      logs: [],
      unitsConsumed: 0,
      returnData: null,
      slot,
    });
    if (this.ledger.has(signature)) return notLanded("AlreadyProcessed");
    if (!this.lifetimeValid(tx.message)) return notLanded("BlockhashNotFound");
    const loaded = this.resolveLookups(tx.message);
    const accountKeys = loaded
      ? [...tx.message.staticKeys, ...loaded.writable, ...loaded.readonly]
      : tx.message.staticKeys;
    const preBalances = accountKeys.map((key) => this.getBalance(key));
    const preTokenBalances = this.tokenBalances(accountKeys);

    const result =
      tx.message.version === "legacy"
        ? this.svm.sendLegacyTransaction(bytes)
        : this.svm.sendVersionedTransaction(bytes);
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    const err = failed ? fromLiteSvmError(result.err()) : null;
    // LiteSVM keeps exactly what the runtime commits: executed transactions, failed or not.
    const landed = this.svm.getTransaction(decodeBase58(signature)!) !== null;
    const logs = meta.logs();
    const unitsConsumed = Number(meta.computeUnitsConsumed());
    const returnData = toReturnData(meta);
    if (!landed) return { signature, landed, err, logs, unitsConsumed, returnData, slot };

    const loadedAddresses = loaded ?? { writable: [], readonly: [] };
    const record: TxRecord = {
      signature,
      slot,
      blockTimeMs: this.clock.latest.timeMs,
      transaction: tx,
      accountKeys,
      loadedAddresses,
      err,
      fee: messageFee(tx.message),
      preBalances,
      postBalances: accountKeys.map((key) => this.getBalance(key)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(accountKeys),
      logMessages: logs,
      innerInstructions: toInnerInstructions(meta),
      computeUnitsConsumed: unitsConsumed,
      returnData,
      cuPriceMicroLamports: computeBudgetOf(tx.message).cuPriceMicroLamports,
      writableAccounts: accountKeys.filter((_, i) => isWritableIndex(tx.message, i, loadedAddresses.writable.length)),
    };
    this.ledger.add(record);
    for (const listener of this.txListeners) listener(record);
    return { signature, landed, err, logs, unitsConsumed, returnData, slot };
  }

  /** Runs a transaction without committing anything (simulateTransaction / preflight). */
  simulate(bytes: Uint8Array, options: SimulateOptions = {}): SimulationResult {
    let tx = parseTransaction(bytes);
    let replacementBlockhash: SimulationResult["replacementBlockhash"] = null;
    if (options.replaceRecentBlockhash) {
      replacementBlockhash = this.latestBlockhash();
      bytes = withBlockhash(tx, decodeBase58(replacementBlockhash.blockhash)!);
      tx = parseTransaction(bytes);
    }
    const loaded = this.resolveLookups(tx.message);
    const accountKeys = loaded
      ? [...tx.message.staticKeys, ...loaded.writable, ...loaded.readonly]
      : tx.message.staticKeys;
    const early = (err: TransactionErrorJson): SimulationResult => ({
      err,
      logs: [],
      unitsConsumed: 0,
      returnData: null,
      innerInstructions: [],
      accountKeys,
      accounts: null,
      replacementBlockhash,
    });
    const sigVerify = options.sigVerify ?? false;
    if (sigVerify && this.ledger.has(tx.signatures[0])) return early("AlreadyProcessed");
    if (!this.lifetimeValid(tx.message)) return early("BlockhashNotFound");

    this.svm.setSigverify(sigVerify);
    let result: SimulatedTransactionInfo | FailedTransactionMetadata;
    try {
      result =
        tx.message.version === "legacy"
          ? this.svm.simulateLegacyTransaction(bytes)
          : this.svm.simulateVersionedTransaction(bytes);
    } finally {
      this.svm.setSigverify(true);
    }
    const failed = result instanceof FailedTransactionMetadata;
    const meta = result.meta();
    let accounts: SimulationResult["accounts"] = null;
    if (options.accounts) {
      const post = new Map<string, AccountView>();
      if (!failed) {
        for (const item of (result as SimulatedTransactionInfo).postAccounts()) {
          const account = item.account();
          post.set(encodeBase58(item.address), {
            lamports: account.lamports(),
            data: account.data(),
            owner: encodeBase58(account.owner()),
            executable: account.executable(),
          });
        }
      }
      accounts = options.accounts.map((address) => post.get(address) ?? this.getAccount(address));
    }
    return {
      err: failed ? fromLiteSvmError((result as FailedTransactionMetadata).err()) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData: toReturnData(meta),
      innerInstructions: toInnerInstructions(meta),
      accountKeys,
      accounts,
      replacementBlockhash,
    };
  }

  /** getFeeForMessage: null when the message's blockhash is no longer valid. */
  feeForMessage(messageBytes: Uint8Array): bigint | null {
    const message = parseMessage(messageBytes);
    if (!this.lifetimeValid(message)) return null;
    return messageFee(message);
  }

  signatureStatus(signature: string, searchTransactionHistory: boolean): SignatureStatus | null {
    const record = this.ledger.get(signature);
    if (!record) return null;
    const age = this.clock.slot - record.slot;
    if (!searchTransactionHistory && age > STATUS_CACHE_SLOTS) return null;
    const finalized = age >= FINALITY_DEPTH;
    return {
      slot: record.slot,
      confirmations: finalized ? null : age,
      err: record.err,
      confirmationStatus: finalized ? "finalized" : "confirmed",
    };
  }

  /**
   * Per recent slot, the fee a transaction locking all `addresses` would have had to beat:
   * max(lowest price in the block, lowest price among transactions write-locking each address).
   */
  recentPrioritizationFees(addresses: string[]): { slot: number; prioritizationFee: number }[] {
    const out: { slot: number; prioritizationFee: number }[] = [];
    const newest = this.clock.slot;
    const oldest = Math.max(this.clock.firstAvailableSlot, newest - 149);
    for (let slot = oldest; slot <= newest; slot++) {
      const records = this.ledger.inSlot(slot);
      let fee = 0n;
      if (records.length > 0) {
        fee = records.reduce(
          // biome-ignore lint/complexity/useMathMinMax: prices are bigints, which Math.min does not take
          (min, r) => (r.cuPriceMicroLamports < min ? r.cuPriceMicroLamports : min),
          records[0].cuPriceMicroLamports,
        );
        for (const address of addresses) {
          const locking = records.filter((r) => r.writableAccounts.includes(address));
          if (locking.length === 0) continue;
          const min = locking.reduce(
            // biome-ignore lint/complexity/useMathMinMax: prices are bigints, which Math.min does not take
            (m, r) => (r.cuPriceMicroLamports < m ? r.cuPriceMicroLamports : m),
            locking[0].cuPriceMicroLamports,
          );
          if (min > fee) fee = min;
        }
      }
      out.push({ slot, prioritizationFee: Number(fee) });
    }
    return out;
  }

  // ---- faucet -------------------------------------------------------------------------------

  /** requestAirdrop: a real System transfer from the faucet, so it has a signature and a ledger entry. */
  airdrop(address: string, lamports: bigint): ExecutionResult {
    const to = new PublicKey(address);
    const build = (memo: boolean) => {
      const tx = new Transaction({ feePayer: this.faucet.publicKey, recentBlockhash: this.clock.blockhash });
      tx.add(SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: to, lamports }));
      // Two identical airdrops in one block would share a signature; a memo keeps them distinct.
      if (memo) {
        tx.add(
          new TransactionInstruction({
            programId: new PublicKey(MEMO_PROGRAM),
            keys: [],
            data: Buffer.from(`airdrop ${++this.airdrops}`),
          }),
        );
      }
      tx.sign(this.faucet);
      return new Uint8Array(tx.serialize());
    };
    let bytes = build(false);
    if (this.ledger.has(parseTransaction(bytes).signatures[0])) bytes = build(true);
    return this.submit(bytes);
  }

  // ---- deploys ------------------------------------------------------------------------------

  /**
   * Deploys (or redeploys) a program under the BPF upgradeable loader: writes ProgramData with the
   * current slot, then the Program account, then produces one block so the new code is live from
   * the next slot (as after a real deploy) and a later redeploy always records a later slot.
   */
  deployProgram(programId?: string, options: DeployOptions = {}): DeployResult {
    const id =
      programId ??
      Keypair.fromSeed(sha256(`txray-localnet/program/${this.seed}/${this.generatedPrograms++}`)).publicKey.toBase58();
    const elf = options.elf ?? this.templateElf(options.template ?? "memo");
    const authority = options.authority === undefined ? this.deployer.publicKey.toBase58() : options.authority;
    const programData = programDataAddress(id);
    const slot = this.clock.slot;
    const dataBytes = encodeProgramDataAccount(slot, authority, elf);
    this.setAccount(programData, {
      lamports: this.minimumBalanceForRentExemption(dataBytes.length),
      data: dataBytes,
      owner: UPGRADEABLE_LOADER,
      executable: false,
    });
    this.setAccount(id, {
      lamports: this.minimumBalanceForRentExemption(36),
      data: encodeProgramAccount(programData),
      owner: UPGRADEABLE_LOADER,
      executable: true,
    });
    this.advanceBlocks(1);
    return { programId: id, programDataAddress: programData, slot, authority };
  }

  /** The ELF of a program LiteSVM ships (upgradeable: from its ProgramData; loader v2: the account itself). */
  templateElf(template: ProgramTemplate): Uint8Array {
    const account = this.getAccount(TEMPLATE_PROGRAMS[template]);
    if (!account) throw new Error(`template program ${template} is not loaded`);
    if (account.owner !== UPGRADEABLE_LOADER) return account.data.slice();
    const state = decodeLoaderState(account.data);
    if (state?.type !== "program") throw new Error(`template program ${template} has no program data`);
    const data = this.getAccount(state.programData);
    if (!data) throw new Error(`template program ${template} has no program data account`);
    return data.data.slice(PROGRAM_DATA_HEADER);
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Recent-blockhash window, or a durable nonce whose stored value matches the blockhash. */
  private lifetimeValid(message: ParsedMessage): boolean {
    if (this.clock.isBlockhashValid(message.recentBlockhash)) return true;
    const first = message.instructions[0];
    if (!first || message.staticKeys[first.programIdIndex] !== SYSTEM_PROGRAM) return false;
    const isAdvanceNonce =
      first.data.length >= 4 && new DataView(first.data.buffer, first.data.byteOffset).getUint32(0, true) === 4;
    if (!isAdvanceNonce || first.accounts.length === 0) return false;
    const nonce = this.getAccount(message.staticKeys[first.accounts[0]] ?? "");
    if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length < 72) return false;
    return encodeBase58(nonce.data.subarray(40, 72)) === message.recentBlockhash;
  }

  /** Resolves v0 address-table lookups; null when a table or index is missing (LiteSVM then rejects). */
  private resolveLookups(message: ParsedMessage): { writable: string[]; readonly: string[] } | null {
    if (message.addressTableLookups.length === 0) return { writable: [], readonly: [] };
    const writable: string[] = [];
    const readonly: string[] = [];
    for (const lookup of message.addressTableLookups) {
      const table = this.getAccount(lookup.accountKey);
      if (!table || table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return null;
      const count = Math.floor((table.data.length - LOOKUP_TABLE_META_SIZE) / 32);
      const at = (i: number) => {
        if (i >= count) return null;
        const start = LOOKUP_TABLE_META_SIZE + i * 32;
        return encodeBase58(table.data.subarray(start, start + 32));
      };
      for (const i of lookup.writableIndexes) {
        const key = at(i);
        if (!key) return null;
        writable.push(key);
      }
      for (const i of lookup.readonlyIndexes) {
        const key = at(i);
        if (!key) return null;
        readonly.push(key);
      }
    }
    return { writable, readonly };
  }

  private tokenBalances(accountKeys: string[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accountKeys.forEach((key, accountIndex) => {
      const account = this.getAccount(key);
      if (!account || !isTokenProgram(account.owner)) return;
      const state = decodeTokenAccount(account.data);
      if (!state) return;
      const mint = this.getAccount(state.mint);
      const decimals = mint ? decodeMintDecimals(mint.data) : null;
      if (decimals === null) return;
      out.push({
        accountIndex,
        mint: state.mint,
        owner: state.owner,
        programId: account.owner,
        uiTokenAmount: uiTokenAmount(state.amount, decimals),
      });
    });
    return out;
  }
}

function toReturnData(meta: TransactionMetadata): ReturnData | null {
  const returned = meta.returnData();
  const data = returned.data();
  if (data.length === 0) return null;
  return { programId: encodeBase58(returned.programId()), data: [Buffer.from(data).toString("base64"), "base64"] };
}

function toInnerInstructions(meta: TransactionMetadata): { index: number; instructions: UiInnerInstruction[] }[] {
  const out: { index: number; instructions: UiInnerInstruction[] }[] = [];
  meta.innerInstructions().forEach((group, index) => {
    if (group.length === 0) return;
    out.push({
      index,
      instructions: group.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: Array.from(ix.accounts()),
          data: encodeBase58(ix.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    });
  });
  return out;
}

/** A transaction's message as parsed from its wire bytes (re-exported for callers that need keys). */
export type { ParsedTransaction };
