/*
 * txray ingest fast path (src/ingest/native/index.ts loads it through bun:ffi).
 *
 * One pass over an ingest body's bytes that parses, validates and writes the spool lines of the
 * batch, for the common shape of SDK traffic only. It never rejects anything: whenever the body
 * steps outside the subset it fully understands (an escape or a non-ASCII byte in a string, a
 * number with a sign, fraction or exponent, an unknown or repeated key, a field the schema would
 * refuse, ...) it returns FALLBACK and the JavaScript path (JSON.parse, the
 * validator, the zod messages, encodeSpoolBatch) decides, exactly as without this file. On the
 * subset it accepts, its output is byte for byte what encodeSpoolBatch writes
 * (test/ingest/native.test.ts fuzzes the two side by side).
 *
 * Every read is bounds-checked against the body length and every write against the output
 * capacity; running out of either is a FALLBACK. No global state: the base58 length table comes
 * in with each call, so worker threads may call it concurrently.
 */
#include <stdint.h>
#include <string.h>

#define FALLBACK (-1)
#define MAX_SAFE_INTEGER 9007199254740991ULL

typedef struct {
  const uint8_t *p;
  const uint8_t *end;
} Cursor;

typedef struct {
  const uint8_t *s;
  int32_t n;
} Text;

/* Base58 (Bitcoin alphabet) digits: 1-9, A-Z without I and O, a-z without l (a constant table). */
static const uint8_t BASE58_DIGIT[256] = {
  ['1' ... '9'] = 1, ['A' ... 'H'] = 1, ['J' ... 'N'] = 1, ['P' ... 'Z'] = 1, ['a' ... 'k'] = 1, ['m' ... 'z'] = 1,
};

/*
 * The table (built by src/shared/base58.ts): for m = 0..128 significant digits, a record of
 * TABLE_RECORD bytes: [bytesBelow, boundaryLength, boundary characters...]; see base58DecodedLength.
 */
#define TABLE_RECORD 130
static int base58_decoded_length(const uint8_t *table, const uint8_t *s, int32_t n) {
  uint8_t all_base58 = 1;
  for (int32_t i = 0; i < n; i++) all_base58 &= BASE58_DIGIT[s[i]];
  if (!all_base58) return -1;
  int32_t zeros = 0;
  while (zeros < n && s[zeros] == '1') zeros++;
  int32_t digits = n - zeros;
  if (digits == 0) return zeros;
  if (digits > 128) return -1;
  const uint8_t *entry = table + (size_t)digits * TABLE_RECORD;
  int bytes_below = entry[0], boundary_length = entry[1];
  int at_or_above = boundary_length != 0 && memcmp(s + zeros, entry + 2, (size_t)digits) >= 0;
  return zeros + bytes_below + at_or_above;
}

static int is_base58_of_length(const uint8_t *table, Text t, int bytes, int max_chars) {
  /* src/shared/base58.ts isBase58OfLength, with the schema's own maximum length before it. */
  int32_t limit = bytes == 32 ? 45 : 89;
  if (t.n == 0 || t.n > max_chars || t.n > limit) return 0;
  return base58_decoded_length(table, t.s, t.n) == bytes;
}

static int is_lower_hex(Text t, int min, int max) {
  if (t.n < min || t.n > max) return 0;
  for (int32_t i = 0; i < t.n; i++) {
    uint8_t c = t.s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
  }
  return 1;
}

static void skip_ws(Cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int take(Cursor *c, uint8_t ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return 1;
  }
  return 0;
}

/* A string of printable ASCII without '"' or '\\' (the encoder's "plain" text); else 0. */
static int plain_string(Cursor *c, Text *out) {
  skip_ws(c);
  if (c->p >= c->end || *c->p != '"') return 0;
  const uint8_t *start = ++c->p;
  const uint8_t *quote = memchr(start, '"', (size_t)(c->end - start));
  if (!quote) return 0;
  size_t n = (size_t)(quote - start);
  uint8_t bad = 0; /* no early exit, byte-wide: the compiler vectorizes this loop */
  for (size_t i = 0; i < n; i++) bad |= (uint8_t)((uint8_t)(start[i] - 0x20) > 0x5e) | (uint8_t)(start[i] == '\\');
  if (bad) return 0;
  out->s = start;
  out->n = (int32_t)(quote - start);
  c->p = quote + 1;
  return 1;
}

/* A non-negative integer without sign, fraction, exponent or leading zero, at most 2^53 - 1. */
static int plain_integer(Cursor *c, uint64_t *value, Text *digits) {
  skip_ws(c);
  const uint8_t *start = c->p;
  uint64_t v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    if (c->p - start >= 16) return 0;
    v = v * 10 + (uint64_t)(*c->p - '0');
    c->p++;
  }
  int32_t n = (int32_t)(c->p - start);
  if (n == 0 || (n > 1 && start[0] == '0') || v > MAX_SAFE_INTEGER) return 0;
  if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) return 0;
  *value = v;
  digits->s = start;
  digits->n = n;
  return 1;
}

static int literal_n(Cursor *c, const char *word, size_t n) {
  skip_ws(c);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0) return 0;
  c->p += n;
  return 1;
}
#define LITERAL(c, word) literal_n((c), (word), sizeof(word) - 1)

/* 1 = null, 0 = not null (cursor unchanged). */
static int null_value(Cursor *c) {
  skip_ws(c);
  return LITERAL(c, "null");
}

static int boolean_value(Cursor *c, int *value) {
  if (LITERAL(c, "true")) {
    *value = 1;
    return 1;
  }
  if (LITERAL(c, "false")) {
    *value = 0;
    return 1;
  }
  return 0;
}

static int key_is_n(Text key, const char *name, size_t n) { return (size_t)key.n == n && memcmp(key.s, name, n) == 0; }
#define KEY_IS(key, literal) key_is_n((key), (literal), sizeof(literal) - 1)

enum {
  F_SIG, F_PROGRAM, F_BLOCKHASH, F_LVBH, F_SENT_AT, F_RPC_HASH, F_RPC_LABEL, F_WALLET, F_KIND, F_PREFLIGHT_ERROR,
  F_LOGS, F_PAYER, F_SDK, F_CU_LIMIT, F_CU_PRICE, F_MAX_RETRIES, F_SKIP_PREFLIGHT, F_SEND_PATH, F_NONCE, F_IX_PREFIX, F_NONCE_ACCOUNT, F_SENT_SLOT, F_COUNT
};
#define NAME(literal) {literal, sizeof(literal) - 1}
static const struct { const char *text; size_t length; } FIELD_NAMES[F_COUNT] = {
  NAME("sig"), NAME("program"), NAME("blockhash"), NAME("lastValidBlockHeight"), NAME("sentAt"), NAME("rpcHash"),
  NAME("rpcLabel"), NAME("walletAdapter"), NAME("kind"), NAME("preflightError"), NAME("simulationLogs"), NAME("payer"),
  NAME("sdkVersion"), NAME("cuLimit"), NAME("cuPriceMicroLamports"), NAME("maxRetries"), NAME("skipPreflight"),
  NAME("sendPath"), NAME("nonce"), NAME("ixPrefix"), NAME("nonceAccount"), NAME("sentSlot"),
};
#define REQUIRED ((1u << F_SIG) | (1u << F_PROGRAM) | (1u << F_BLOCKHASH) | (1u << F_LVBH) | (1u << F_SENT_AT) | \
                  (1u << F_RPC_HASH) | (1u << F_RPC_LABEL) | (1u << F_WALLET) | (1u << F_KIND) | \
                  (1u << F_PREFLIGHT_ERROR) | (1u << F_LOGS) | (1u << F_PAYER) | (1u << F_SDK))

typedef struct {
  uint32_t seen;
  int sig_null, preflight_error_null;
  int32_t log_lines;                            /* simulationLogs: how many lines */
  const uint8_t *first_log, *last_log_end;      /* from the first line's opening quote to the last one's closing quote */
  Text text[F_COUNT]; /* strings, and the digits of integers */
  uint64_t number[F_COUNT];
  int flag[F_COUNT];
} Envelope;

typedef struct {
  uint8_t *p;
  uint8_t *end;
} Writer;

static int put(Writer *w, const void *bytes, int32_t n) {
  if (w->end - w->p < n) return 0;
  memcpy(w->p, bytes, (size_t)n);
  w->p += n;
  return 1;
}
static int put_text(Writer *w, Text t) { return put(w, t.s, t.n); }
/* A string literal, its length known at compile time. */
#define PUT(w, literal) put((w), (literal), (int32_t)sizeof(literal) - 1)

static int parse_envelope(Cursor *c, Envelope *e) {
  memset(e, 0, sizeof(*e));
  int next_field = 0;
  if (!take(c, '{')) return 0;
  if (take(c, '}')) return 0; /* an empty object misses every required field */
  do {
    Text key;
    if (!plain_string(c, &key) || !take(c, ':')) return 0;
    int field = -1;
    /* Keys usually come in the schema's order: try the one after the previous key first. */
    for (int i = 0, f = next_field; i < F_COUNT; i++, f = f + 1 == F_COUNT ? 0 : f + 1)
      if (key_is_n(key, FIELD_NAMES[f].text, FIELD_NAMES[f].length)) {
        field = f;
        break;
      }
    if (field < 0 || (e->seen & (1u << field))) return 0; /* unknown or repeated key */
    e->seen |= 1u << field;
    next_field = field + 1 == F_COUNT ? 0 : field + 1;
    switch (field) {
      case F_SIG:
        if (null_value(c)) e->sig_null = 1;
        else if (!plain_string(c, &e->text[field])) return 0;
        break;
      case F_PREFLIGHT_ERROR:
        if (null_value(c)) e->preflight_error_null = 1;
        else if (!plain_string(c, &e->text[field])) return 0;
        break;
      case F_LVBH: case F_SENT_AT: case F_CU_LIMIT: case F_CU_PRICE: case F_MAX_RETRIES: case F_SENT_SLOT:
        if (!plain_integer(c, &e->number[field], &e->text[field])) return 0;
        break;
      case F_SKIP_PREFLIGHT: case F_NONCE:
        if (!boolean_value(c, &e->flag[field])) return 0;
        break;
      case F_LOGS: {
        /* Up to 200 plain strings of at most 2,048 characters; the array's source span is kept. */
        if (!take(c, '[')) return 0;
        if (take(c, ']')) break;
        Text line;
        do {
          if (!plain_string(c, &line) || line.n > 2048 || ++e->log_lines > 200) return 0;
          if (e->log_lines == 1) e->first_log = line.s - 1;
          e->last_log_end = line.s + line.n + 1;
        } while (take(c, ','));
        if (!take(c, ']')) return 0;
        break;
      }
      default:
        if (!plain_string(c, &e->text[field])) return 0;
    }
  } while (take(c, ','));
  return take(c, '}');
}

/*
 * Addresses already checked in this batch: an SDK's batch mostly repeats one program, blockhash
 * and payer, and comparing with the previous envelope's value is far cheaper than checking again
 * (the JavaScript validator does the same).
 */
typedef struct {
  Text program, blockhash, payer;
} Seen;

static int same_text(Text a, Text b) { return a.n == b.n && a.s != NULL && b.s != NULL && memcmp(a.s, b.s, (size_t)a.n) == 0; }

/* The same rules as src/ingest/validate.ts fastEnvelope (and so the zod schema). */
static int valid_envelope(const uint8_t *table, const Envelope *e, Seen *seen) {
  if ((e->seen & REQUIRED) != REQUIRED) return 0;
  if (!e->sig_null && !is_base58_of_length(table, e->text[F_SIG], 64, 88)) return 0;
  if (!same_text(e->text[F_PROGRAM], seen->program) && !is_base58_of_length(table, e->text[F_PROGRAM], 32, 44)) return 0;
  seen->program = e->text[F_PROGRAM];
  if (!same_text(e->text[F_BLOCKHASH], seen->blockhash) && !is_base58_of_length(table, e->text[F_BLOCKHASH], 32, 44)) return 0;
  seen->blockhash = e->text[F_BLOCKHASH];
  if (e->number[F_SENT_AT] < 1500000000000ULL || e->number[F_SENT_AT] > 4102444800000ULL) return 0;
  if (!is_lower_hex(e->text[F_RPC_HASH], 16, 16)) return 0;
  if (e->text[F_RPC_LABEL].n < 1 || e->text[F_RPC_LABEL].n > 64) return 0;
  if (e->text[F_WALLET].n > 64) return 0;
  int preflight = KEY_IS(e->text[F_KIND], "preflight");
  if (!preflight && !KEY_IS(e->text[F_KIND], "send")) return 0;
  if (!e->preflight_error_null && e->text[F_PREFLIGHT_ERROR].n > 8192) return 0;
  Text payer = e->text[F_PAYER];
  if (!same_text(payer, seen->payer) && (payer.n > 64 || !(is_lower_hex(payer, 16, 64) || is_base58_of_length(table, payer, 32, 64)))) return 0;
  seen->payer = payer;
  if (e->text[F_SDK].n < 1 || e->text[F_SDK].n > 64) return 0;
  if ((e->seen & (1u << F_CU_LIMIT)) && e->number[F_CU_LIMIT] > 1400000) return 0;
  if ((e->seen & (1u << F_MAX_RETRIES)) && e->number[F_MAX_RETRIES] > 1000) return 0;
  if ((e->seen & (1u << F_SEND_PATH)) && (e->text[F_SEND_PATH].n < 1 || e->text[F_SEND_PATH].n > 64)) return 0;
  if ((e->seen & (1u << F_IX_PREFIX)) && (e->text[F_IX_PREFIX].n % 2 != 0 || !is_lower_hex(e->text[F_IX_PREFIX], 0, 16))) return 0;
  if ((e->seen & (1u << F_NONCE_ACCOUNT)) && !is_base58_of_length(table, e->text[F_NONCE_ACCOUNT], 32, 44)) return 0;
  if (preflight ? e->preflight_error_null : (!e->preflight_error_null || e->sig_null)) return 0;
  return 1;
}

static int put_optional_number(Writer *w, const Envelope *e, int field) {
  return (e->seen & (1u << field)) ? put_text(w, e->text[field]) : PUT(w, "\\N");
}
static int put_optional_flag(Writer *w, const Envelope *e, int field) {
  if (!(e->seen & (1u << field))) return PUT(w, "\\N");
  return e->flag[field] ? PUT(w, "true") : PUT(w, "false");
}

/*
 * simulationLogs as JSON.stringify writes an array of plain strings: `["a","b"]`, no spaces. The
 * lines are copied from the body one by one because the body may hold whitespace between them.
 */
static int put_logs(Writer *w, const Envelope *e) {
  if (e->log_lines == 0) return PUT(w, "[]");
  if (!PUT(w, "[")) return 0;
  Cursor c = {e->first_log, e->last_log_end};
  Text line;
  for (int32_t i = 0; i < e->log_lines; i++) {
    if ((i > 0 && !(take(&c, ',') && PUT(w, ","))) || !plain_string(&c, &line)) return 0;
    if (!PUT(w, "\"") || !put_text(w, line) || !PUT(w, "\"")) return 0;
  }
  return PUT(w, "]");
}

/* One spool line, exactly as src/spool/line-format.ts writes it. */
static int write_line(Writer *w, const uint8_t *prefix, int32_t prefix_length, int32_t index, const Envelope *e) {
  char base36[8];
  int n = 0;
  do {
    int digit = index % 36;
    base36[n++] = (char)(digit < 10 ? '0' + digit : 'a' + digit - 10);
    index /= 36;
  } while (index > 0 && n < 8);
  char index_text[8];
  for (int i = 0; i < n; i++) index_text[i] = base36[n - 1 - i];
  return put(w, prefix, prefix_length) && put(w, index_text, n) &&
         PUT(w, "\t") && put_text(w, e->text[F_PROGRAM]) &&
         PUT(w, "\t") && (e->sig_null ? PUT(w, "\\N") : put_text(w, e->text[F_SIG])) &&
         PUT(w, "\t") && put_text(w, e->text[F_BLOCKHASH]) &&
         PUT(w, "\t") && put_text(w, e->text[F_LVBH]) &&
         PUT(w, "\t") && put_text(w, e->text[F_SENT_AT]) &&
         PUT(w, "\t") && put_text(w, e->text[F_RPC_HASH]) &&
         PUT(w, "\t") && put_text(w, e->text[F_RPC_LABEL]) &&
         PUT(w, "\t") && put_text(w, e->text[F_WALLET]) &&
         PUT(w, "\t") && put_text(w, e->text[F_KIND]) &&
         PUT(w, "\t") && (e->preflight_error_null ? PUT(w, "\\N") : put_text(w, e->text[F_PREFLIGHT_ERROR])) &&
         PUT(w, "\t") && put_logs(w, e) && PUT(w, "\t") && put_text(w, e->text[F_PAYER]) &&
         PUT(w, "\t") && put_text(w, e->text[F_SDK]) &&
         PUT(w, "\t") && put_optional_number(w, e, F_CU_LIMIT) &&
         PUT(w, "\t") && put_optional_number(w, e, F_CU_PRICE) &&
         PUT(w, "\t") && put_optional_number(w, e, F_MAX_RETRIES) &&
         PUT(w, "\t") && put_optional_flag(w, e, F_SKIP_PREFLIGHT) &&
         PUT(w, "\t") && ((e->seen & (1u << F_SEND_PATH)) ? put_text(w, e->text[F_SEND_PATH]) : PUT(w, "\\N")) &&
         PUT(w, "\t") && put_optional_flag(w, e, F_NONCE) &&
         PUT(w, "\t") && ((e->seen & (1u << F_IX_PREFIX)) ? put_text(w, e->text[F_IX_PREFIX]) : PUT(w, "\\N")) &&
         PUT(w, "\t") && ((e->seen & (1u << F_NONCE_ACCOUNT)) ? put_text(w, e->text[F_NONCE_ACCOUNT]) : PUT(w, "\\N")) &&
         PUT(w, "\t") && put_optional_number(w, e, F_SENT_SLOT) &&
         PUT(w, "\n");
}

/*
 * Returns the number of spool bytes written to `out`, or FALLBACK. result[0] = envelopes,
 * result[1], result[2] = offset and length of the body's apiKey (-1, 0 when absent).
 */
int32_t txray_encode_batch(const uint8_t *body, int32_t body_length, const uint8_t *prefix, int32_t prefix_length,
                           uint8_t *out, int32_t out_capacity, int32_t max_batch, const uint8_t *base58_table,
                           int32_t *result) {
  Cursor c = {body, body + body_length};
  Writer w = {out, out + out_capacity};
  int seen_key = 0, seen_envelopes = 0;
  int32_t count = 0;
  Seen seen = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
  result[0] = 0;
  result[1] = -1;
  result[2] = 0;
  if (!take(&c, '{')) return FALLBACK;
  do {
    Text key;
    if (!plain_string(&c, &key) || !take(&c, ':')) return FALLBACK;
    if (KEY_IS(key, "apiKey") && !seen_key) {
      Text api_key;
      if (!plain_string(&c, &api_key) || api_key.n > 128) return FALLBACK;
      seen_key = 1;
      result[1] = (int32_t)(api_key.s - body);
      result[2] = api_key.n;
    } else if (KEY_IS(key, "envelopes") && !seen_envelopes) {
      seen_envelopes = 1;
      if (!take(&c, '[')) return FALLBACK;
      if (!take(&c, ']')) {
        do {
          Envelope e;
          if (count >= max_batch) return FALLBACK;
          if (!parse_envelope(&c, &e) || !valid_envelope(base58_table, &e, &seen)) return FALLBACK;
          if (!write_line(&w, prefix, prefix_length, count, &e)) return FALLBACK;
          count++;
        } while (take(&c, ','));
        if (!take(&c, ']')) return FALLBACK;
      }
    } else {
      return FALLBACK; /* unknown or repeated top-level key */
    }
  } while (take(&c, ','));
  if (!take(&c, '}') || !seen_envelopes) return FALLBACK;
  skip_ws(&c);
  if (c.p != c.end) return FALLBACK;
  result[0] = count;
  return (int32_t)(w.p - out);
}
