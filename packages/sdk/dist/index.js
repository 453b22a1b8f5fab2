// src/sdk/config.ts
var DEFAULT_ENDPOINT = "http://127.0.0.1:8790";
function processEnv() {
  const p = globalThis.process;
  return p && typeof p.env === "object" && p.env !== null ? p.env : null;
}
var nonEmpty = (value) => typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
function resolveEndpoint(option) {
  const endpoint = nonEmpty(option) ?? nonEmpty(processEnv()?.TXRAY_ENDPOINT) ?? DEFAULT_ENDPOINT;
  return endpoint.replace(/\/+$/, "");
}
function isServerRuntime() {
  const p = globalThis.process;
  return typeof p?.versions === "object" && (p.versions.node !== undefined || p.versions.bun !== undefined) && typeof globalThis.document === "undefined";
}
async function builtin(name) {
  const p = globalThis.process;
  if (typeof p?.getBuiltinModule === "function")
    return p.getBuiltinModule(name) ?? null;
  try {
    const specifier = `node:${name}`;
    return await import(specifier);
  } catch {
    return null;
  }
}
function userConfigPath(env, home) {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : `${env.HOME ?? home}/.config`;
  return `${base}/txray/config.json`;
}
async function keyFromConfigFile(env) {
  if (!isServerRuntime())
    return;
  const fs = await builtin("fs");
  const os = await builtin("os");
  if (!fs)
    return;
  try {
    const text = fs.readFileSync(userConfigPath(env, os?.homedir() ?? ""), "utf8");
    return nonEmpty(JSON.parse(text).apiKey);
  } catch {
    return;
  }
}
async function resolveApiKey(option) {
  const env = processEnv() ?? {};
  return nonEmpty(option) ?? nonEmpty(env.TXRAY_API_KEY) ?? await keyFromConfigFile(env);
}

// src/sdk/sha256.ts
var K = new Uint32Array([
  1116352408,
  1899447441,
  3049323471,
  3921009573,
  961987163,
  1508970993,
  2453635748,
  2870763221,
  3624381080,
  310598401,
  607225278,
  1426881987,
  1925078388,
  2162078206,
  2614888103,
  3248222580,
  3835390401,
  4022224774,
  264347078,
  604807628,
  770255983,
  1249150122,
  1555081692,
  1996064986,
  2554220882,
  2821834349,
  2952996808,
  3210313671,
  3336571891,
  3584528711,
  113926993,
  338241895,
  666307205,
  773529912,
  1294757372,
  1396182291,
  1695183700,
  1986661051,
  2177026350,
  2456956037,
  2730485921,
  2820302411,
  3259730800,
  3345764771,
  3516065817,
  3600352804,
  4094571909,
  275423344,
  430227734,
  506948616,
  659060556,
  883997877,
  958139571,
  1322822218,
  1537002063,
  1747873779,
  1955562222,
  2024104815,
  2227730452,
  2361852424,
  2428436474,
  2756734187,
  3204031479,
  3329325298
]);
var rotr = (x, n) => x >>> n | x << 32 - n;
function sha256Hex(text) {
  const data = new TextEncoder().encode(text);
  const length = data.length;
  const padded = new Uint8Array(length + 9 + 63 >> 6 << 6);
  padded.set(data);
  padded[length] = 128;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 536870912));
  view.setUint32(padded.length - 4, length << 3 >>> 0);
  const h = new Uint32Array([
    1779033703,
    3144134277,
    1013904242,
    2773480762,
    1359893119,
    2600822924,
    528734635,
    1541459225
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0;offset < padded.length; offset += 64) {
    for (let i = 0;i < 16; i++)
      w[i] = view.getUint32(offset + i * 4);
    for (let i = 16;i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      w[i] = w[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ a >>> 3) + w[i - 7] + (rotr(b, 17) ^ rotr(b, 19) ^ b >>> 10);
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0;i < 64; i++) {
      const t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + (e & f ^ ~e & g) + K[i] + w[i] | 0;
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + (a & b ^ a & c ^ b & c) | 0;
      hh = g;
      g = f;
      f = e;
      e = d + t1 | 0;
      d = c;
      c = b;
      b = a;
      a = t1 + t2 | 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  let hex = "";
  for (const word of h)
    hex += word.toString(16).padStart(8, "0");
  return hex;
}

// src/sdk/identity.ts
var PROVIDERS = [
  ["helius-rpc.com", "helius"],
  ["helius.xyz", "helius"],
  ["helius.dev", "helius"],
  ["quiknode.pro", "quicknode"],
  ["quicknode.com", "quicknode"],
  ["alchemy.com", "alchemy"],
  ["rpcpool.com", "triton"],
  ["triton.one", "triton"],
  ["ankr.com", "ankr"],
  ["syndica.io", "syndica"],
  ["chainstack.com", "chainstack"],
  ["p2pify.com", "chainstack"],
  ["getblock.io", "getblock"],
  ["blockdaemon.com", "blockdaemon"],
  ["extrnode.com", "extrnode"],
  ["shyft.to", "shyft"],
  ["drpc.org", "drpc"],
  ["publicnode.com", "publicnode"],
  ["infura.io", "infura"],
  ["tatum.io", "tatum"],
  ["nownodes.io", "nownodes"],
  ["onfinality.io", "onfinality"],
  ["allthatnode.com", "allthatnode"],
  ["ironforge.network", "ironforge"],
  ["solanavibestation.com", "solana-vibe-station"],
  ["ercot.xyz", "ercot"]
];
var PUBLIC_HOSTS = new Set([
  "api.mainnet-beta.solana.com",
  "api.mainnet.solana.com",
  "api.devnet.solana.com",
  "api.testnet.solana.com"
]);
var LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0)$/;
function rpcHash(url) {
  return sha256Hex(new URL(url).origin).slice(0, 16);
}
function rpcLabel(url) {
  let host;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return "custom";
  }
  if (PUBLIC_HOSTS.has(host))
    return "public";
  if (LOOPBACK.test(host) || host.endsWith(".localhost"))
    return "localhost";
  for (const [suffix, label] of PROVIDERS)
    if (host === suffix || host.endsWith(`.${suffix}`))
      return label;
  return "custom";
}
var UNKNOWN_RPC = "unknown://rpc";

// src/sdk/kit-errors.ts
var INSTRUCTION_ERRORS = "GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync Custom InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority BorshIoError AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits".split(" ");
var TRANSACTION_ERRORS = "AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit DuplicateInstruction InsufficientFundsForRent MaxLoadedAccountsDataSizeExceeded InvalidLoadedAccountsDataSizeLimit ResanitizationNeeded ProgramExecutionTemporarilyRestricted UnbalancedTransaction".split(" ");
var INSTRUCTION_BASE = 4615001;
var TRANSACTION_BASE = 7050001;
var KIT_PREFLIGHT_FAILURE = -32002;
function transactionErrorFromKit(cause) {
  if (typeof cause !== "object" || cause === null)
    return null;
  const context = cause.context ?? {};
  const code = Number(context.__code);
  const index = Number(context.index);
  const known = (name) => typeof context.errorName === "string" ? context.errorName : name;
  const instruction = code - INSTRUCTION_BASE;
  if (instruction >= -1 && instruction < INSTRUCTION_ERRORS.length) {
    const name = known(INSTRUCTION_ERRORS[instruction]);
    if (name === undefined)
      return null;
    return { InstructionError: [index, name === "Custom" ? { Custom: Number(context.code) } : name] };
  }
  const transaction = code - TRANSACTION_BASE;
  if (transaction >= -1 && transaction < TRANSACTION_ERRORS.length) {
    const name = known(TRANSACTION_ERRORS[transaction]);
    if (name === undefined)
      return null;
    if (name === "DuplicateInstruction")
      return { DuplicateInstruction: index };
    if (name === "InsufficientFundsForRent" || name === "ProgramExecutionTemporarilyRestricted")
      return { [name]: { account_index: Number(context.accountIndex) } };
    return name;
  }
  return null;
}

// src/sdk/web3.ts
var isObject = (value) => typeof value === "object" && value !== null;
var INSTRUMENTED = Symbol.for("txray.instrumented");
function instrumentConnection(connection, recorder, source, simulationFailures) {
  const target = connection;
  const original = target._rpcRequest;
  if (typeof original !== "function" || target[INSTRUMENTED])
    return connection;
  const blockHeight = async () => {
    const answer = await original.call(connection, "getBlockHeight", []);
    if (typeof answer?.result !== "number")
      throw new Error("getBlockHeight failed");
    return answer.result;
  };
  let origin = null;
  const getSource = () => origin ??= source(connection.rpcEndpoint, blockHeight);
  const observed = (method, args, sentAt, answer, thrown) => {
    try {
      const result = isObject(answer) && isObject(answer.result) ? answer.result : null;
      if (method === "getLatestBlockhash") {
        const value = result?.value;
        if (isObject(value))
          recorder.rememberBlockhash(value.blockhash, value.lastValidBlockHeight);
        recorder.rememberSlot(getSource(), result?.context, isObject(args[0]) ? args[0].commitment : undefined);
        return;
      }
      const wire = args[0];
      const config = isObject(args[1]) ? args[1] : {};
      if (method === "simulateTransaction")
        recorder.rememberSlot(getSource(), result?.context, config.commitment);
      if (typeof wire !== "string" || config.encoding !== undefined && config.encoding !== "base64")
        return;
      if (method === "simulateTransaction") {
        const value = isObject(answer) && isObject(answer.result) ? answer.result.value : null;
        if (!simulationFailures || !isObject(value) || value.err === null || value.err === undefined)
          return;
        recorder.observe({
          source: getSource(),
          sentAt,
          wire,
          kind: "preflight",
          simulation: true,
          preflightError: simulationText(value.err, value.unitsConsumed),
          logs: value.logs
        });
        return;
      }
      const observation = {
        source: getSource(),
        sentAt,
        wire,
        kind: "send",
        preflightError: null,
        logs: null
      };
      if (typeof config.maxRetries === "number")
        observation.maxRetries = config.maxRetries;
      observation.skipPreflight = config.skipPreflight === true;
      if (isObject(answer) && isObject(answer.error)) {
        const error = answer.error;
        const data = isObject(error.data) ? error.data : {};
        observation.kind = "preflight";
        observation.preflightError = String(error.message ?? "sendTransaction failed") + (data.err !== undefined && data.err !== null ? ` ${safeJson({ err: data.err, unitsConsumed: data.unitsConsumed })}` : "");
        observation.logs = data.logs;
      } else if (thrown !== null) {
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        if (/^\d{3}\b/.test(message)) {
          observation.kind = "preflight";
          observation.preflightError = message;
        }
      }
      recorder.observe(observation);
    } catch {}
  };
  const wrapped = function(method, args) {
    if (method !== "sendTransaction" && method !== "simulateTransaction" && method !== "getLatestBlockhash")
      return original.call(this, method, args);
    const sentAt = Date.now();
    const promise = original.call(this, method, args);
    if (promise && typeof promise.then === "function") {
      promise.then((answer) => observed(method, args, sentAt, answer, null), (error) => observed(method, args, sentAt, null, error ?? "error"));
    }
    return promise;
  };
  try {
    target._rpcRequest = wrapped;
    Object.defineProperty(target, INSTRUMENTED, { value: true });
  } catch {}
  return connection;
}
function safeJson(value) {
  try {
    return JSON.stringify(value, (_key, v) => typeof v === "bigint" ? Number(v) : v);
  } catch {
    return "";
  }
}
function simulationText(err, unitsConsumed) {
  return `Transaction simulation failed: ${safeJson({ err, unitsConsumed: unitsConsumed ?? undefined })}`;
}

// src/sdk/kit.ts
var isObject2 = (value) => typeof value === "object" && value !== null;
var WATCHED = new Set(["sendTransaction", "simulateTransaction", "getLatestBlockhash"]);
function kitPreflightText(error) {
  if (!isObject2(error) || !isObject2(error.context))
    return null;
  const context = error.context;
  if (Number(context.__code) !== KIT_PREFLIGHT_FAILURE) {
    if (typeof context.statusCode === "number")
      return { text: `${context.statusCode} ${String(context.message ?? "")}`.trim(), logs: null };
    if (typeof context.__serverMessage === "string")
      return { text: context.__serverMessage, logs: null };
    const message = typeof error.message === "string" ? error.message : String(error);
    return { text: message, logs: null };
  }
  const err = transactionErrorFromKit(error.cause);
  return { text: simulationText(err, context.unitsConsumed), logs: context.logs };
}
var instrumented = new WeakSet;
var commitmentOf = (config) => isObject2(config) && config.commitment !== undefined ? config.commitment : "confirmed";
function instrumentKitRpc(rpc, recorder, source, simulationFailures) {
  if (instrumented.has(rpc))
    return rpc;
  let origin = null;
  const getSource = () => origin ??= typeof source === "function" ? source(blockHeight) : source;
  const blockHeight = async () => Number(await rpc.getBlockHeight().send());
  const observed = (method, params, sentAt, answer, thrown) => {
    try {
      if (method === "getLatestBlockhash") {
        const value = isObject2(answer) ? answer.value : null;
        if (isObject2(value))
          recorder.rememberBlockhash(value.blockhash, value.lastValidBlockHeight);
        if (isObject2(answer))
          recorder.rememberSlot(getSource(), answer.context, commitmentOf(params[0]));
        return;
      }
      const wire = params[0];
      const config = isObject2(params[1]) ? params[1] : {};
      if (method === "simulateTransaction" && isObject2(answer))
        recorder.rememberSlot(getSource(), answer.context, commitmentOf(config));
      if (typeof wire !== "string" || config.encoding !== "base64")
        return;
      if (method === "simulateTransaction") {
        const value = isObject2(answer) ? answer.value : null;
        if (!simulationFailures || !isObject2(value) || value.err === null || value.err === undefined)
          return;
        recorder.observe({
          source: getSource(),
          sentAt,
          wire,
          kind: "preflight",
          simulation: true,
          preflightError: simulationText(value.err, value.unitsConsumed),
          logs: value.logs
        });
        return;
      }
      const observation = {
        source: getSource(),
        sentAt,
        wire,
        kind: "send",
        preflightError: null,
        logs: null
      };
      if (config.maxRetries !== undefined && config.maxRetries !== null)
        observation.maxRetries = Number(config.maxRetries);
      observation.skipPreflight = config.skipPreflight === true;
      if (thrown !== null) {
        const preflight = kitPreflightText(thrown);
        if (preflight) {
          observation.kind = "preflight";
          observation.preflightError = preflight.text || safeJson(thrown);
          observation.logs = preflight.logs;
        }
      }
      recorder.observe(observation);
    } catch {}
  };
  const wrapPending = (method, params, pending) => new Proxy(pending, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "send" || typeof value !== "function")
        return value;
      return function(...args) {
        const sentAt = Date.now();
        const promise = value.apply(target, args);
        if (promise && typeof promise.then === "function") {
          promise.then((answer) => observed(method, params, sentAt, answer, null), (error) => observed(method, params, sentAt, null, error ?? "error"));
        }
        return promise;
      };
    }
  });
  const proxy = new Proxy(rpc, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !WATCHED.has(property) || typeof value !== "function")
        return value;
      return (...params) => {
        const pending = value(...params);
        return isObject2(pending) && typeof pending.send === "function" ? wrapPending(property, params, pending) : pending;
      };
    }
  });
  instrumented.add(proxy);
  return proxy;
}

// src/shared/envelope-limits.ts
var ENVELOPE_LIMITS = {
  label: 64,
  preflightError: 8192,
  simulationLogLines: 200,
  simulationLogLine: 2048
};
var CU_LIMIT_MAX = 1400000;
var MAX_RETRIES_MAX = 1000;
var IX_PREFIX_BYTES = 8;

// src/shared/retry-after.ts
function retryAfterMs(header, now = Date.now()) {
  if (header === null || header.trim() === "")
    return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds))
    return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

// src/sdk/transport.ts
var MAX_BODY_BYTES = 512 * 1024;
var MAX_BEACON_BYTES = 60 * 1024;
function unref(timer) {
  timer.unref?.();
  return timer;
}
var isBrowser = () => typeof globalThis.document !== "undefined";
var INGEST_KEY_PREFIX = "txr_ingest_";
var inBrowserWindow = () => typeof globalThis.window !== "undefined";

class Transport {
  options;
  queue = [];
  timer = null;
  timerDue = 0;
  inFlight = null;
  backoffUntil = 0;
  failures = 0;
  key = null;
  warned = new Set;
  aborters = new Set;
  closed = false;
  sending = 0;
  stats = {
    queued: 0,
    sent: 0,
    beaconed: 0,
    dropped: 0,
    rejected: 0,
    retries: 0,
    lastError: null
  };
  url;
  constructor(options) {
    this.options = options;
    this.url = `${options.endpoint}/v1/ingest`;
    options.apiKey.then((key) => {
      this.key = key;
      if (key === undefined)
        this.warnOnce("no-key", "txray: no API key (option apiKey, TXRAY_API_KEY or `txray keys create`); envelopes are dropped");
      else if (inBrowserWindow() && !key.startsWith(INGEST_KEY_PREFIX))
        this.warnOnce("browser-key", "txray: this key is not an ingest key (txr_ingest_…), and a key in browser code is public: create one with `txray keys create --kind ingest` (docs/security.md)");
    }, () => this.key = undefined);
  }
  enqueue(envelope) {
    if (this.closed)
      return;
    this.queue.push(envelope);
    this.trim();
    this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
  }
  discard(match) {
    this.queue = this.queue.filter((envelope) => !match(envelope));
    this.countQueued();
  }
  trim() {
    const excess = this.queue.length - this.options.maxQueue;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.stats.dropped += excess;
    }
    this.countQueued();
  }
  countQueued() {
    this.stats.queued = this.queue.length + this.sending;
  }
  warnOnce(id, message) {
    if (this.warned.has(id))
      return;
    this.warned.add(id);
    try {
      this.options.warn(message);
    } catch {}
  }
  schedule(delay) {
    if (this.closed)
      return;
    const due = Math.max(Date.now() + delay, this.backoffUntil);
    if (this.timer !== null && this.timerDue <= due)
      return;
    if (this.timer !== null)
      clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = unref(setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(0, due - Date.now())));
  }
  pump() {
    if (this.inFlight || this.queue.length === 0)
      return this.inFlight;
    if (Date.now() < this.backoffUntil) {
      this.schedule(0);
      return null;
    }
    this.inFlight = this.sendBatch().catch((error) => {
      this.stats.lastError = String(error);
    }).finally(() => {
      this.inFlight = null;
      if (this.queue.length > 0)
        this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
    });
    return this.inFlight;
  }
  take(maxBytes, maxCount) {
    if (this.queue.length === 0 || typeof this.key !== "string")
      return null;
    const batch = [];
    let bytes = 64 + this.key.length;
    while (batch.length < maxCount && batch.length < this.queue.length) {
      const size = JSON.stringify(this.queue[batch.length]).length + 1;
      if (batch.length > 0 && bytes + size > maxBytes)
        break;
      bytes += size;
      batch.push(this.queue[batch.length]);
    }
    this.queue.splice(0, batch.length);
    this.countQueued();
    return { batch, body: JSON.stringify({ apiKey: this.key, envelopes: batch }) };
  }
  putBack(batch) {
    this.queue.unshift(...batch);
    this.trim();
  }
  async sendBatch() {
    if (this.key === null)
      this.key = await this.options.apiKey.catch(() => {
        return;
      });
    if (this.key === undefined) {
      this.stats.dropped += this.queue.length;
      this.queue.length = 0;
      this.countQueued();
      return;
    }
    const taken = this.take(MAX_BODY_BYTES, this.options.batchSize);
    if (!taken)
      return;
    const { batch, body } = taken;
    this.sending = batch.length;
    this.countQueued();
    const abort = new AbortController;
    this.aborters.add(abort);
    const timeout = unref(setTimeout(() => abort.abort(), this.options.requestTimeoutMs));
    let response = null;
    let failure = null;
    try {
      const doFetch = this.options.fetch ?? ((url, init) => globalThis.fetch(url, init));
      response = await doFetch(this.url, {
        method: "POST",
        headers: { "content-type": isBrowser() ? "text/plain;charset=UTF-8" : "application/json" },
        body,
        signal: abort.signal
      });
      await response.arrayBuffer().catch(() => null);
    } catch (error) {
      failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } finally {
      clearTimeout(timeout);
      this.aborters.delete(abort);
      this.sending = 0;
      this.countQueued();
    }
    if (response && response.status === 202) {
      this.stats.sent += batch.length;
      this.failures = 0;
      return;
    }
    if (response && response.status !== 429 && response.status < 500) {
      this.stats.rejected += batch.length;
      this.stats.lastError = `ingest answered ${response.status}`;
      this.warnOnce(`status-${response.status}`, `txray: ingest answered ${response.status}; ${batch.length} envelope(s) discarded`);
      return;
    }
    this.stats.lastError = failure ?? `ingest answered ${response.status}`;
    this.stats.retries++;
    this.putBack(batch);
    this.failures++;
    const told = response ? retryAfterMs(response.headers.get("retry-after")) : null;
    const exponential = Math.min(this.options.maxBackoffMs, 500 * 2 ** Math.min(this.failures - 1, 20));
    const wait = told !== null ? Math.min(told, 5 * 60000) + Math.random() * Math.min(1000, told * 0.1 + 100) : exponential / 2 + Math.random() * (exponential / 2);
    this.backoffUntil = Date.now() + wait;
    this.schedule(0);
  }
  async flush(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && (this.queue.length > 0 || this.inFlight)) {
      if (this.key === null)
        await race(this.options.apiKey.catch(() => {
          return;
        }), deadline);
      const waitFor = this.inFlight ?? (Date.now() < this.backoffUntil ? sleep(this.backoffUntil - Date.now()) : this.pump());
      if (!waitFor)
        break;
      await race(waitFor, deadline);
    }
  }
  beacon() {
    if (typeof this.key !== "string")
      return;
    const nav = globalThis.navigator;
    while (this.queue.length > 0) {
      const taken = this.take(MAX_BEACON_BYTES, this.options.batchSize);
      if (!taken)
        return;
      let ok = false;
      try {
        if (typeof nav?.sendBeacon === "function")
          ok = nav.sendBeacon(this.url, taken.body);
        else {
          (this.options.fetch ?? ((url, init) => globalThis.fetch(url, init)))(this.url, {
            method: "POST",
            body: taken.body,
            keepalive: true,
            headers: { "content-type": "text/plain;charset=UTF-8" }
          }).catch(() => {});
          ok = true;
        }
      } catch {
        ok = false;
      }
      if (!ok) {
        this.putBack(taken.batch);
        return;
      }
      this.stats.beaconed += taken.batch.length;
    }
  }
  async close(timeoutMs) {
    await this.flush(timeoutMs);
    this.closed = true;
    if (this.timer !== null)
      clearTimeout(this.timer);
    this.timer = null;
    for (const abort of this.aborters)
      abort.abort();
  }
}
function sleep(ms) {
  return new Promise((resolve) => unref(setTimeout(resolve, Math.max(0, ms))));
}
function race(promise, deadline) {
  let timer;
  return Promise.race([
    promise.then(() => {}, () => {}),
    new Promise((resolve) => timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))
  ]).finally(() => clearTimeout(timer));
}

// src/sdk/version.ts
var SDK_VERSION = "txray-js/0.4.0";

// src/shared/base58-encode.ts
var ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
var LIMB = 656356768;
function encodeBase58(bytes) {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0)
    zeros++;
  const limbs = [];
  let i = zeros;
  const step = (value, base) => {
    let carry = value;
    for (let j = 0;j < limbs.length; j++) {
      carry += limbs[j] * base;
      limbs[j] = carry % LIMB;
      carry = Math.floor(carry / LIMB);
    }
    while (carry > 0) {
      limbs.push(carry % LIMB);
      carry = Math.floor(carry / LIMB);
    }
  };
  if ((bytes.length - i) % 2 === 1)
    step(bytes[i++], 256);
  for (;i < bytes.length; i += 2)
    step(bytes[i] * 256 + bytes[i + 1], 65536);
  const out = new Array(limbs.length * 5);
  let n = 0;
  for (let j = 0;j < limbs.length; j++) {
    let limb = limbs[j];
    const last = j === limbs.length - 1;
    for (let k = 0;k < 5 && (!last || limb > 0); k++) {
      const next = limb / 58 | 0;
      out[n++] = ALPHABET[limb - next * 58];
      limb = next;
    }
  }
  out.length = n;
  return "1".repeat(zeros) + out.reverse().join("");
}

// src/sdk/wire.ts
var COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";
var SYSTEM_PROGRAM = "11111111111111111111111111111111";

class Reader {
  bytes;
  offset = 0;
  constructor(bytes) {
    this.bytes = bytes;
  }
  byte() {
    if (this.offset >= this.bytes.length)
      throw new RangeError("truncated transaction");
    return this.bytes[this.offset++];
  }
  shortvec() {
    let value = 0;
    for (let shift = 0;shift < 21; shift += 7) {
      const b = this.byte();
      value |= (b & 127) << shift;
      if ((b & 128) === 0)
        return value;
    }
    throw new RangeError("bad shortvec");
  }
  take(n) {
    if (this.offset + n > this.bytes.length)
      throw new RangeError("truncated transaction");
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}
function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0;i < binary.length; i++)
    bytes[i] = binary.charCodeAt(i);
  return bytes;
}
var isZero = (bytes) => bytes.every((b) => b === 0);
var keyNames = new Map;
function keyBase58(bytes) {
  const binary = String.fromCharCode.apply(null, bytes);
  let name = keyNames.get(binary);
  if (name === undefined) {
    name = encodeBase58(bytes);
    if (keyNames.size >= 4096)
      keyNames.clear();
    keyNames.set(binary, name);
  }
  return name;
}
function u32(data, at) {
  return (data[at] | data[at + 1] << 8 | data[at + 2] << 16) + data[at + 3] * 16777216;
}
function parseTransaction(bytes) {
  const r = new Reader(bytes);
  const signatureCount = r.shortvec();
  let signature = null;
  for (let i = 0;i < signatureCount; i++) {
    const sig = r.take(64);
    if (i === 0 && !isZero(sig))
      signature = encodeBase58(sig);
  }
  let version = "legacy";
  if (r.bytes[r.offset] & 128) {
    const v = r.byte() & 127;
    if (v !== 0)
      throw new RangeError(`unsupported transaction version ${v}`);
    version = 0;
  }
  r.take(3);
  const keyCount = r.shortvec();
  const keys = [];
  for (let i = 0;i < keyCount; i++)
    keys.push(r.take(32));
  const blockhash = keyBase58(r.take(32));
  const names = new Map;
  const keyName = (index) => {
    let name = names.get(index);
    if (name === undefined) {
      if (index >= keys.length)
        throw new RangeError("program index outside the static keys");
      name = keyBase58(keys[index]);
      names.set(index, name);
    }
    return name;
  };
  const instructions = [];
  const ixCount = r.shortvec();
  let nonce = false;
  let nonceAccount;
  for (let i = 0;i < ixCount; i++) {
    const program = keyName(r.byte());
    const accounts = r.take(r.shortvec());
    const data = r.take(r.shortvec());
    if (i === 0 && program === SYSTEM_PROGRAM && data.length >= 4 && u32(data, 0) === 4) {
      nonce = true;
      if (accounts.length > 0 && accounts[0] < keys.length)
        nonceAccount = keyName(accounts[0]);
    }
    instructions.push({ program, data });
  }
  const tx = { signature, payer: keyName(0), blockhash, version, instructions, nonce };
  if (nonceAccount !== undefined)
    tx.nonceAccount = nonceAccount;
  for (const ix of instructions) {
    if (ix.program !== COMPUTE_BUDGET)
      continue;
    const d = ix.data;
    if (d[0] === 2 && d.length >= 5)
      tx.cuLimit = u32(d, 1);
    if (d[0] === 3 && d.length >= 9) {
      const price = u32(d, 1) + u32(d, 5) * 4294967296;
      if (Number.isSafeInteger(price))
        tx.cuPriceMicroLamports = price;
    }
  }
  return tx;
}
function targetProgram(tx, tracked) {
  if (tracked && tracked.size > 0) {
    for (const ix of tx.instructions)
      if (tracked.has(ix.program))
        return ix.program;
  }
  for (let i = 0;i < tx.instructions.length; i++) {
    const program = tx.instructions[i].program;
    if (program === COMPUTE_BUDGET || i === 0 && tx.nonce)
      continue;
    return program;
  }
  return tx.instructions[0]?.program ?? SYSTEM_PROGRAM;
}
function instructionPrefix(tx, program) {
  const ix = tx.instructions.find((candidate) => candidate.program === program);
  if (!ix)
    return;
  let hex = "";
  for (const byte of ix.data.subarray(0, IX_PREFIX_BYTES))
    hex += (byte < 16 ? "0" : "") + byte.toString(16);
  return hex;
}

// src/sdk/recorder.ts
var BLOCKHASH_VALIDITY = 150;
var MEMORY = 1024;
var SENT_SLOT_MAX_AGE_MS = 2000;
var TIP_COMMITMENTS = new Set(["processed", "confirmed"]);
var SLOTS_KEPT = 8;
var truncate = (text, max) => text.length > max ? text.slice(0, max) : text;

class Recorder {
  options;
  transport;
  pending = [];
  scheduled = false;
  building = new Set;
  blockhashes = new Map;
  payers = new Map;
  heights = new Map;
  slots = new WeakMap;
  simulated = new Set;
  skipped = 0;
  lastError = null;
  closed = false;
  constructor(options, transport) {
    this.options = options;
    this.transport = transport;
  }
  observe(observation) {
    if (this.closed)
      return;
    this.pending.push(observation);
    if (this.pending.length > this.options.maxPending) {
      this.pending.shift();
      this.transport.stats.dropped++;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      unref(setTimeout(() => this.process(), 0));
    }
  }
  rememberBlockhash(blockhash, lastValidBlockHeight) {
    if (typeof blockhash !== "string")
      return;
    const height = Number(lastValidBlockHeight);
    if (!Number.isSafeInteger(height) || height < 0)
      return;
    this.blockhashes.delete(blockhash);
    this.blockhashes.set(blockhash, height);
    if (this.blockhashes.size > MEMORY)
      this.blockhashes.delete(this.blockhashes.keys().next().value);
  }
  rememberSlot(source, context, commitment) {
    if (typeof commitment !== "string" || !TIP_COMMITMENTS.has(commitment))
      return;
    if (typeof context !== "object" || context === null)
      return;
    const slot = Number(context.slot);
    if (!Number.isSafeInteger(slot) || slot < 0)
      return;
    const seen = this.slots.get(source) ?? [];
    seen.push({ slot, at: Date.now() });
    if (seen.length > SLOTS_KEPT)
      seen.shift();
    this.slots.set(source, seen);
  }
  slotBefore(source, sentAt) {
    let found;
    for (const seen of this.slots.get(source) ?? [])
      if (seen.at <= sentAt && sentAt - seen.at <= SENT_SLOT_MAX_AGE_MS && (!found || seen.slot > found.slot))
        found = seen;
    return found?.slot;
  }
  process(sync = false) {
    this.scheduled = false;
    const batch = this.pending.splice(0);
    for (const observation of batch) {
      try {
        const built = this.build(observation, sync);
        if (built === "later")
          this.pending.push(observation);
        else if (built instanceof Promise) {
          const done = built.then((envelope) => {
            if (envelope)
              this.deliver(envelope, observation);
          }, (error) => this.skip(error));
          this.building.add(done);
          done.finally(() => this.building.delete(done));
        } else if (built)
          this.deliver(built, observation);
      } catch (error) {
        this.skip(error);
      }
    }
    if (this.pending.length > 0 && !this.scheduled) {
      this.scheduled = true;
      unref(setTimeout(() => this.process(), 0));
    }
  }
  deliver(envelope, observation) {
    const sig = envelope.sig;
    if (sig !== null && observation.simulation) {
      if (this.simulated.size >= MEMORY)
        this.simulated.clear();
      this.simulated.add(sig);
    } else if (sig !== null && this.simulated.delete(sig)) {
      this.transport.discard((queued) => queued.sig === sig && queued.kind === "preflight");
    }
    this.transport.enqueue(envelope);
  }
  skip(error) {
    this.skipped++;
    this.lastError = String(error);
  }
  drainSync() {
    this.process(true);
  }
  async settle() {
    if (this.pending.length > 0)
      this.process();
    while (this.building.size > 0)
      await Promise.allSettled([...this.building]);
  }
  blockHeight(source) {
    const cached = this.heights.get(source);
    if (cached && Date.now() - cached.at < 1000)
      return cached.value;
    const value = source.blockHeight();
    this.heights.set(source, { at: Date.now(), value });
    value.catch(() => this.heights.delete(source));
    return value;
  }
  payer(address) {
    if (this.options.privacy !== "hash")
      return address;
    let hashed = this.payers.get(address);
    if (hashed === undefined) {
      hashed = sha256Hex(this.options.salt + address);
      if (this.payers.size > MEMORY)
        this.payers.clear();
      this.payers.set(address, hashed);
    }
    return hashed;
  }
  build(o, sync) {
    const tx = parseTransaction(base64Bytes(o.wire));
    if (o.kind === "send" && tx.signature === null)
      return null;
    const logs = o.kind === "preflight" && Array.isArray(o.logs) ? o.logs : [];
    let walletAdapter = "";
    try {
      walletAdapter = String(this.options.walletAdapter() ?? "");
    } catch {}
    const program = targetProgram(tx, this.options.programs);
    const envelope = {
      sig: tx.signature,
      program,
      blockhash: tx.blockhash,
      lastValidBlockHeight: 0,
      sentAt: o.sentAt,
      rpcHash: o.source.rpcHash,
      rpcLabel: o.source.rpcLabel,
      walletAdapter: truncate(walletAdapter, ENVELOPE_LIMITS.label),
      kind: o.kind,
      preflightError: o.kind === "preflight" ? truncate(o.preflightError ?? "Transaction simulation failed", ENVELOPE_LIMITS.preflightError) : null,
      simulationLogs: logs.slice(0, ENVELOPE_LIMITS.simulationLogLines).map((line) => truncate(String(line), ENVELOPE_LIMITS.simulationLogLine)),
      payer: this.payer(tx.payer),
      sdkVersion: SDK_VERSION
    };
    if (tx.cuLimit !== undefined)
      envelope.cuLimit = Math.min(tx.cuLimit, CU_LIMIT_MAX);
    if (tx.cuPriceMicroLamports !== undefined)
      envelope.cuPriceMicroLamports = tx.cuPriceMicroLamports;
    if (o.maxRetries !== undefined && Number.isSafeInteger(o.maxRetries) && o.maxRetries >= 0)
      envelope.maxRetries = Math.min(o.maxRetries, MAX_RETRIES_MAX);
    if (o.skipPreflight !== undefined)
      envelope.skipPreflight = o.skipPreflight;
    envelope.sendPath = "rpc";
    if (tx.nonce)
      envelope.nonce = true;
    if (tx.nonce && tx.nonceAccount !== undefined && this.options.privacy === "plain")
      envelope.nonceAccount = tx.nonceAccount;
    const prefix = instructionPrefix(tx, program);
    if (prefix !== undefined)
      envelope.ixPrefix = prefix;
    if (o.kind === "send") {
      const sentSlot = this.slotBefore(o.source, o.sentAt);
      if (sentSlot !== undefined)
        envelope.sentSlot = sentSlot;
    }
    const known = tx.nonce ? undefined : this.blockhashes.get(tx.blockhash);
    if (known !== undefined) {
      envelope.lastValidBlockHeight = known;
      return envelope;
    }
    if (sync)
      return "later";
    return this.blockHeight(o.source).then((height) => {
      if (!Number.isSafeInteger(height) || height < 0)
        throw new Error(`bad block height ${height}`);
      envelope.lastValidBlockHeight = height + BLOCKHASH_VALIDITY;
      if (!tx.nonce)
        this.rememberBlockhash(tx.blockhash, envelope.lastValidBlockHeight);
      return envelope;
    });
  }
}

// src/sdk/index.ts
var positive = (name, value, fallback, max = Number.MAX_SAFE_INTEGER) => {
  if (value === undefined)
    return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`txray: ${name} must be a positive number`);
  return Math.min(Math.floor(value), max);
};
function createTxray(options = {}) {
  const privacy = options.privacy ?? "plain";
  if (privacy !== "plain" && privacy !== "hash")
    throw new TypeError('txray: privacy must be "plain" or "hash"');
  if (privacy === "hash" && !options.salt)
    throw new TypeError('txray: privacy "hash" needs a salt');
  const endpoint = resolveEndpoint(options.endpoint);
  try {
    new URL(endpoint);
  } catch {
    throw new TypeError(`txray: endpoint is not a URL`);
  }
  const batchSize = positive("batchSize", options.batchSize, 50, 1000);
  const maxQueue = positive("maxQueue", options.maxQueue, 1000);
  const flushTimeoutMs = positive("flushTimeoutMs", options.flushTimeoutMs, 5000);
  const warn = options.onWarning ?? ((message) => console.warn(message));
  const wallet = options.walletAdapter;
  const walletAdapter = typeof wallet === "function" ? () => wallet() ?? "" : () => wallet ?? "";
  const transport = new Transport({
    endpoint,
    apiKey: resolveApiKey(options.apiKey),
    batchSize,
    flushIntervalMs: positive("flushIntervalMs", options.flushIntervalMs, 2000),
    maxQueue,
    requestTimeoutMs: 1e4,
    maxBackoffMs: 60000,
    fetch: options.fetch,
    warn
  });
  const recorder = new Recorder({
    programs: options.programs ? new Set(options.programs) : null,
    privacy,
    salt: options.salt ?? "",
    walletAdapter,
    maxPending: maxQueue
  }, transport);
  const simulationFailures = options.reportSimulationFailures ?? true;
  const makeSource = (url, blockHeight) => {
    let hash = null;
    let label = null;
    return {
      get rpcHash() {
        if (hash === null) {
          try {
            hash = rpcHash(url);
          } catch {
            hash = rpcHash(UNKNOWN_RPC);
          }
        }
        return hash;
      },
      get rpcLabel() {
        return label ??= rpcLabel(url);
      },
      blockHeight
    };
  };
  const hide = () => {
    try {
      recorder.drainSync();
      transport.beacon();
    } catch {}
  };
  const onVisibility = () => {
    if (globalThis.document?.visibilityState === "hidden")
      hide();
  };
  const win = globalThis;
  const browser = typeof win.document !== "undefined" && typeof win.addEventListener === "function";
  if (browser) {
    win.addEventListener("pagehide", hide);
    win.document.addEventListener("visibilitychange", onVisibility);
  }
  const flushAll = async () => {
    try {
      const deadline = Date.now() + flushTimeoutMs;
      await withDeadline(recorder.settle(), deadline);
      await transport.flush(Math.max(0, deadline - Date.now()));
    } catch {}
  };
  const flushAtExit = flushAll;
  if (!browser)
    atExit.add(flushAtExit);
  let closed = false;
  return {
    sdkVersion: SDK_VERSION,
    instrument(connection) {
      try {
        return instrumentConnection(connection, recorder, makeSource, simulationFailures);
      } catch {
        return connection;
      }
    },
    instrumentRpc(rpc, rpcUrl) {
      try {
        return instrumentKitRpc(rpc, recorder, (blockHeight) => makeSource(rpcUrl ?? UNKNOWN_RPC, blockHeight), simulationFailures);
      } catch {
        return rpc;
      }
    },
    flush: flushAll,
    async close() {
      if (closed)
        return;
      closed = true;
      atExit.delete(flushAtExit);
      try {
        const deadline = Date.now() + flushTimeoutMs;
        await withDeadline(recorder.settle(), deadline);
        recorder.closed = true;
        await transport.close(Math.max(0, deadline - Date.now()));
        if (browser) {
          win.removeEventListener("pagehide", hide);
          win.document.removeEventListener("visibilitychange", onVisibility);
        }
      } catch {}
    },
    stats() {
      return { ...transport.stats, skipped: recorder.skipped };
    }
  };
}
var atExit = new Set;
{
  const p = globalThis.process;
  if (typeof p?.once === "function" && typeof globalThis.document === "undefined") {
    p.once("beforeExit", () => {
      for (const flush of atExit)
        flush().catch(() => {});
      atExit.clear();
    });
  }
}
function withDeadline(promise, deadline) {
  let timer;
  return Promise.race([
    promise.then(() => {}, () => {}),
    new Promise((resolve) => timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))
  ]).finally(() => clearTimeout(timer));
}
export {
  SDK_VERSION,
  createTxray,
  rpcHash,
  rpcLabel
};
