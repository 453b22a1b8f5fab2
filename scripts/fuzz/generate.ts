// Hostile input generators for the route fuzzer: a seeded PRNG (so a seed replays the same inputs)
// and the shapes that break servers — random and mutated JSON, deep nesting, huge strings and
// arrays, wrong types, unicode, invalid UTF-8, huge numbers, path tricks (`..`, `%2F`, NUL) and
// tampered cursors. Everything is data; nothing here knows about HTTP.

export type Rng = {
  /** [0, 1) */
  next(): number;
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
};

/** mulberry32: tiny, fast, good enough for fuzzing, fully determined by the seed. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max) => Math.floor(next() * max),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export const base58String = (rng: Rng, length: number) => Array.from({ length }, () => BASE58[rng.int(58)]).join("");

/** Strings chosen to break parsers, path builders, SQL and renderers. */
const NASTY_STRINGS = [
  "",
  " ",
  "..",
  "../..",
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2f",
  "%2F",
  "%252F",
  "a%2Fb",
  "%00",
  "\u0000",
  "a\u0000b",
  "%",
  "%%",
  "%zz",
  "%E0%A4%A",
  "%C0%AF",
  "%FF%FE",
  "\\",
  "\\..\\..\\",
  "/",
  "//",
  "?",
  "#",
  "&",
  "=",
  ";",
  "'",
  '"',
  "' OR 1=1 --",
  "'; DROP TABLE accounts; --",
  '") OR ("1"="1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup string, sent as typed
  "${jndi:ldap://x}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "null",
  "undefined",
  "true",
  "false",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "0",
  "-1",
  "1e309",
  "-1e309",
  "9007199254740993",
  "18446744073709551616",
  "1e-400",
  "0x10",
  "1_000",
  "١٢٣",
  "𝟙𝟚𝟛",
  "\u202eabc",
  "\ud83d\ude00",
  "\ud800",
  "\udfff",
  "ÿ",
  "Ω≈ç√",
  "🔥".repeat(20),
  "ﷺ",
  "\u200b",
  "\ufeff",
  "\r\n",
  "\n",
  "\t",
  "txr_live_",
  `txr_read_${"1".repeat(32)}`,
  "program=abc",
  "day=2020-01-01",
  "1d",
  "7d",
  "30d",
  "365d",
  "0d",
  "account",
  "public",
  "ACCOUNT",
  "human",
  "bot",
  "mixed",
  "[]",
  "{}",
  "[object Object]",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
];

const UNICODE_POOL = [
  "a",
  "Z",
  "é",
  "ß",
  "Ж",
  "中",
  "文",
  "ア",
  "한",
  "ع",
  "א",
  "🙂",
  "🚀",
  "\u0301",
  "\u200d",
  "\u2028",
  "\u2029",
  "\u0000",
  "\u001f",
  "\u007f",
  "\ufffd",
];

export function nastyString(rng: Rng): string {
  switch (rng.int(7)) {
    case 0:
    case 1:
      return rng.pick(NASTY_STRINGS);
    case 2:
      return Array.from({ length: 1 + rng.int(40) }, () => rng.pick(UNICODE_POOL)).join("");
    case 3:
      return rng.pick(["a", "1", "%", "/", ".", "é", "🙂", "x"]).repeat(rng.pick([100, 1000, 5000, 70_000]));
    case 4:
      return base58String(rng, rng.pick([0, 1, 31, 32, 43, 44, 45, 63, 87, 88, 89, 200]));
    case 5:
      return rng.pick(NASTY_STRINGS) + base58String(rng, 44) + rng.pick(NASTY_STRINGS);
    default:
      return String.fromCharCode(...Array.from({ length: 1 + rng.int(30) }, () => rng.int(0xffff)));
  }
}

const HUGE_NUMBERS = [
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  2 ** 64,
  2 ** 63,
  -(2 ** 63),
  0.1,
  -0,
  1e-320,
  4294967296,
  2147483648,
];

/** A random JSON value up to `depth` levels. */
export function randomJson(rng: Rng, depth = 4): unknown {
  const kind = rng.int(depth > 0 ? 9 : 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.chance(0.5) ? rng.int(1_000_000) - 500_000 : rng.pick(HUGE_NUMBERS);
    case 3:
    case 4:
      return nastyString(rng);
    case 5:
      return base58String(rng, rng.pick([32, 43, 44, 64, 87, 88]));
    case 6:
    case 7:
      return Array.from({ length: rng.int(6) }, () => randomJson(rng, depth - 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = rng.int(6); i > 0; i--)
        out[rng.chance(0.7) ? rng.pick(ENVELOPE_KEYS) : nastyString(rng)] = randomJson(rng, depth - 1);
      return out;
    }
  }
}

export const ENVELOPE_KEYS = [
  "sig",
  "program",
  "blockhash",
  "lastValidBlockHeight",
  "sentAt",
  "rpcHash",
  "rpcLabel",
  "walletAdapter",
  "kind",
  "preflightError",
  "simulationLogs",
  "payer",
  "sdkVersion",
  "cuLimit",
  "cuPriceMicroLamports",
  "maxRetries",
  "skipPreflight",
  "sendPath",
  "nonce",
  "apiKey",
  "envelopes",
];

/** `[[[[…]]]]` or `{"a":{"a":…}}` nested `depth` times, as text (JSON.stringify would recurse). */
export function deepNesting(rng: Rng, depth: number): string {
  if (rng.chance(0.5)) return "[".repeat(depth) + "]".repeat(depth);
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** Replaces one value somewhere inside a JSON value with a hostile one (wrong type, huge, nasty). */
export function mutateJson(rng: Rng, value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object" || rng.chance(0.15)) return hostileValue(rng);
  if (Array.isArray(value)) {
    const copy = [...value];
    const action = rng.int(5);
    if (action === 0 || copy.length === 0) copy.push(hostileValue(rng));
    else if (action === 1) copy.splice(rng.int(copy.length), 1);
    else if (action === 2) return Array.from({ length: rng.pick([1001, 5000]) }, () => copy[0]);
    else {
      const at = rng.int(copy.length);
      copy[at] = mutateJson(rng, copy[at], depth + 1);
    }
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const action = rng.int(5);
  if (action === 0 || keys.length === 0)
    copy[rng.chance(0.5) ? rng.pick(ENVELOPE_KEYS) : nastyString(rng)] = hostileValue(rng);
  else if (action === 1) delete copy[rng.pick(keys)];
  else {
    const key = rng.pick(keys);
    copy[key] = mutateJson(rng, copy[key], depth + 1);
  }
  return copy;
}

export function hostileValue(rng: Rng): unknown {
  switch (rng.int(8)) {
    case 0:
      return nastyString(rng);
    case 1:
      return rng.pick(HUGE_NUMBERS);
    case 2:
      return rng.pick([null, true, false, 0, -1, "", [], {}]);
    case 3:
      return Array.from({ length: rng.pick([0, 1, 201, 3000]) }, () => nastyString(rng).slice(0, 50));
    case 4:
      return { [nastyString(rng)]: nastyString(rng) };
    case 5:
      return "x".repeat(rng.pick([129, 2049, 100_000]));
    default:
      return randomJson(rng, 2);
  }
}

/** Flips, inserts, deletes or truncates bytes (including bytes that make UTF-8 invalid). */
export function mutateBytes(rng: Rng, input: Uint8Array): Uint8Array {
  const bytes = Array.from(input);
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const at = bytes.length === 0 ? 0 : rng.int(bytes.length);
    switch (rng.int(6)) {
      case 0:
        bytes[at] = rng.int(256);
        break;
      case 1:
        bytes.splice(at, 0, rng.pick([0x00, 0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf5, 0xfe, 0xff]));
        break;
      case 2:
        bytes.splice(at, 1 + rng.int(8));
        break;
      case 3:
        bytes.length = at;
        break;
      case 4:
        bytes.splice(at, 0, 0xed, 0xa0, 0x80); // an encoded UTF-16 surrogate: invalid UTF-8
        break;
      default:
        bytes.splice(
          at,
          0,
          ...new TextEncoder().encode(rng.pick(['"', "\\", "{", "}", "[", "]", ",", ":", "\\u0000", "\\ud800"])),
        );
    }
  }
  return Uint8Array.from(bytes);
}

/** A valid cursor altered the ways a client might: a flipped character, a swapped payload, junk. */
export function tamperCursor(rng: Rng, cursor: string | null): string {
  const base = cursor ?? "eyJhZnRlciI6IngifQ.AAAAAAAAAAAAAAAAAAAAAA";
  switch (rng.int(7)) {
    case 0: {
      const at = rng.int(base.length);
      const replacement = base[at] === "A" ? "B" : "A";
      return base.slice(0, at) + replacement + base.slice(at + 1);
    }
    case 1:
      return `${Buffer.from(JSON.stringify(randomJson(rng, 2))).toString("base64url")}.${base.split(".")[1]}`;
    case 2:
      return `${base}.${base}`;
    case 3:
      return base.split(".")[0];
    case 4:
      return base.repeat(50);
    case 5:
      return `.${base}`;
    default:
      return nastyString(rng);
  }
}
