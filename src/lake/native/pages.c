/*
 * txray flush fast path (src/lake/native/index.ts loads it through bun:ffi).
 *
 * Turns sealed spool segments (format 2, src/spool/line-format.ts) into zstd-compressed Parquet
 * data pages (v1: RLE levels, PLAIN values); TypeScript adds the page headers and the footer
 * (src/lake/parquet/). The segments are mapped read-only and cut into chunks at line ends; threads
 * take chunks in turn and read their lines in order, each line once: split at its tabs, find its
 * partition (program, UTC day of received_at) in the thread's own table, and append every field to
 * that partition's open row group on that thread, with null counts and min/max statistics (a list
 * column's: of its elements, a null or empty list counting as a null). A
 * column's page is compressed as soon as it holds PAGE_BYTES, so the uncompressed bytes of a page
 * stay small and in cache; a row group closes at max_rows rows or max_line_bytes of lines.
 *
 * It never guesses: a line it does not fully understand (wrong field count, a number out of range,
 * an escape it does not know, invalid UTF-8, a lone surrogate...) makes txw_finish return an error
 * and the whole flush pass goes through DuckDB instead, which stays the reference
 * (test/lake/native-flush.test.ts compares the two writers' files row for row).
 *
 * zstd comes from the system's libzstd.so.1 (part of every Debian system: apt needs it), opened at
 * run time so that building this file needs no zstd headers; without it txw_available() is 0 and
 * DuckDB writes every pass.
 *
 * Memory: the context owns the mappings and every page until txw_free. A context is used by one
 * JavaScript thread; the threads of txw_start only touch their own row groups.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SPOOL_FIELDS 25
/* A line written before the table's last fields (src/spool/line-format.ts) is that much shorter:
 * its missing fields are null. 22 is the first spool line of version 2. */
#define SPOOL_OLDEST_FIELDS 22
#define FIELD_ACCOUNT 0
#define FIELD_RECEIVED_AT 1
#define FIELD_PROGRAM 3
#define MAX_PROGRAM 64
#define MS_PER_DAY 86400000LL
#define MAX_THREADS 16
#define CHUNK_BYTES ((size_t)8 << 20)
#ifndef PAGE_BYTES /* -D for experiments; 32-512 KiB measured within noise of each other */
#define PAGE_BYTES ((size_t)512 << 10)
#endif
#define LEVELS_ROOM ((size_t)16 << 10)
#define RESULT_SLOTS 11
#define ZSTD_LEVEL 1

/* Column kinds, as src/lake/native/index.ts names them. */
enum { RAW = 0, TEXT = 1, INT64 = 2, INT32 = 3, BOOL = 4, LOGS = 5, SEGMENT = 6 };
#define SEGMENT_FIELD 255 /* the pseudo field: the name of the segment the row came from */

enum { OK = 0, E_MEMORY = -1, E_LINE = -2, E_VALUE = -3, E_ARGUMENT = -4, E_IO = -5, E_ZSTD = -6 };

/* ---- growable buffers ---- */

typedef struct {
  uint8_t *p;
  size_t n, cap;
} Buf;

static int grow(Buf *b, size_t more) {
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->n + more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) return E_MEMORY;
  b->p = p;
  b->cap = cap;
  return OK;
}
static inline __attribute__((always_inline)) int reserve(Buf *b, size_t more) {
  return b->n + more <= b->cap ? OK : grow(b, more);
}
static inline __attribute__((always_inline)) int put(Buf *b, const void *s, size_t n) {
  if (n == 0) return OK; /* memcpy with a null buffer is undefined even for no bytes */
  if (reserve(b, n)) return E_MEMORY;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  return OK;
}
static int put_u32(Buf *b, uint32_t v) {
  uint8_t le[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24};
  return put(b, le, 4);
}
static int put_varint(Buf *b, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  do {
    tmp[n] = v & 127;
    v >>= 7;
    if (v) tmp[n] |= 128;
    n++;
  } while (v);
  return put(b, tmp, (size_t)n);
}
static void release(Buf *b) {
  free(b->p);
  *b = (Buf){0};
}

/* ---- zstd, from the system library ---- */

typedef size_t (*ZstdBound)(size_t);
typedef void *(*ZstdCreate)(void);
typedef size_t (*ZstdFree)(void *);
typedef size_t (*ZstdCompress)(void *, void *, size_t, const void *, size_t, int);
typedef unsigned (*ZstdIsError)(size_t);
static struct {
  ZstdBound bound;
  ZstdCreate create;
  ZstdFree free;
  ZstdCompress compress;
  ZstdIsError is_error;
} zstd;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static void load_zstd(void) {
  void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  zstd.bound = (ZstdBound)dlsym(lib, "ZSTD_compressBound");
  zstd.create = (ZstdCreate)dlsym(lib, "ZSTD_createCCtx");
  zstd.free = (ZstdFree)dlsym(lib, "ZSTD_freeCCtx");
  zstd.compress = (ZstdCompress)dlsym(lib, "ZSTD_compressCCtx");
  zstd.is_error = (ZstdIsError)dlsym(lib, "ZSTD_isError");
  if (!zstd.bound || !zstd.create || !zstd.free || !zstd.is_error) zstd.compress = NULL;
}

/* 1 when this library can write pages (it found libzstd), else 0. */
int32_t txw_available(void) {
  pthread_once(&zstd_once, load_zstd);
  return zstd.compress != NULL;
}

/* ---- levels: the RLE/bit-packing hybrid, RLE runs only (levels here come in long runs) ---- */

typedef struct {
  Buf out;
  int value;
  uint64_t run;
} Levels;
static int level_flush(Levels *l) {
  if (l->run == 0) return OK;
  if (put_varint(&l->out, l->run << 1)) return E_MEMORY;
  uint8_t v = (uint8_t)l->value;
  if (put(&l->out, &v, 1)) return E_MEMORY;
  l->run = 0;
  return OK;
}
static inline __attribute__((always_inline)) int level(Levels *l, int value) {
  if (l->run > 0 && l->value != value && level_flush(l)) return E_MEMORY;
  l->value = value;
  l->run++;
  return OK;
}

/* ---- columns ---- */

/*
 * One column of one row group. The current page accumulates in def/rep/values; values start
 * LEVELS_ROOM bytes into their buffer, so that when the page is full the levels are written just
 * before them and the page is compressed from there without a copy. Compressed pages go to
 * `packed`, each described in `pages` by three int64s: uncompressed size, compressed size, level
 * count.
 */
typedef struct {
  int kind, field;
  /* the current page */
  Levels def, rep;
  Buf values, page; /* page: only when the levels do not fit in the room before the values */
  int64_t page_levels;
  uint8_t bits; /* BOOL: bits used in the last byte of values */
  int page_has_text_bounds;
  size_t min_at, min_n, max_at, max_n; /* the page's text min/max, as offsets into values */
  /* the whole column chunk */
  int64_t level_count, null_count;
  int has_stats;
  int64_t min_i, max_i; /* INT64, INT32, BOOL */
  Buf min_text, max_text;
  Buf bounds; /* at close: min then max, PLAIN-encoded */
  size_t bound_min_n, bound_max_n;
  Buf packed, pages;
} Column;

static int column_start(Column *col, int kind, int field) {
  memset(col, 0, sizeof(Column));
  col->kind = kind;
  col->field = field;
  col->bits = 8;
  if (kind < 0) return OK;
  /* small at first: a pass may open row groups for thousands of partitions, most columns stay short */
  if (reserve(&col->values, LEVELS_ROOM + 16384)) return E_MEMORY;
  col->values.n = LEVELS_ROOM;
  return OK;
}

static void column_free(Column *col) {
  release(&col->def.out);
  release(&col->rep.out);
  release(&col->values);
  release(&col->page);
  release(&col->min_text);
  release(&col->max_text);
  release(&col->bounds);
  release(&col->packed);
  release(&col->pages);
}

/* Byte-wise comparison of two strings (memcmp, then length), inline for the short values here. */
static int compare_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t n = an < bn ? an : bn, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) {
      x = __builtin_bswap64(x);
      y = __builtin_bswap64(y);
      return x < y ? -1 : 1;
    }
  }
  for (; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

static void text_stats(Column *col, size_t at, size_t n) {
  const uint8_t *v = col->values.p + at;
  if (!col->page_has_text_bounds) {
    col->page_has_text_bounds = 1;
    col->min_at = col->max_at = at;
    col->min_n = col->max_n = n;
    return;
  }
  int below = compare_bytes(v, n, col->values.p + col->min_at, col->min_n);
  if (below < 0) {
    col->min_at = at;
    col->min_n = n;
  } else if (below > 0 && compare_bytes(v, n, col->values.p + col->max_at, col->max_n) > 0) {
    col->max_at = at;
    col->max_n = n;
  }
}

static void number_stats(Column *col, int64_t v) {
  if (!col->has_stats) {
    col->has_stats = 1;
    col->min_i = col->max_i = v;
  } else {
    if (v < col->min_i) col->min_i = v;
    if (v > col->max_i) col->max_i = v;
  }
}

/* Sets `into` to these bytes. */
static int set_bytes(Buf *into, const uint8_t *s, size_t n) {
  into->n = 0;
  return put(into, s, n);
}

/* Compresses the current page into `packed` and starts the next one. */
static int flush_page(Column *col, void *cctx) {
  if (col->page_levels == 0) return OK;
  if (level_flush(&col->def) || level_flush(&col->rep)) return E_MEMORY;
  size_t levels = 4 + col->def.out.n + (col->kind == LOGS ? 4 + col->rep.out.n : 0);
  Buf room = {col->values.p, LEVELS_ROOM - levels, LEVELS_ROOM};
  Buf *page = levels <= LEVELS_ROOM ? &room : &col->page;
  page->n = levels <= LEVELS_ROOM ? LEVELS_ROOM - levels : 0;
  if (col->kind == LOGS && (put_u32(page, (uint32_t)col->rep.out.n) || put(page, col->rep.out.p, col->rep.out.n))) return E_MEMORY;
  if (put_u32(page, (uint32_t)col->def.out.n) || put(page, col->def.out.p, col->def.out.n)) return E_MEMORY;
  const uint8_t *body = col->values.p + LEVELS_ROOM - levels;
  size_t body_n = col->values.n - LEVELS_ROOM + levels;
  if (page == &col->page) {
    if (put(page, col->values.p + LEVELS_ROOM, col->values.n - LEVELS_ROOM)) return E_MEMORY;
    body = page->p;
    body_n = page->n;
  }
  size_t bound = zstd.bound(body_n);
  if (reserve(&col->packed, bound)) return E_MEMORY;
  size_t packed = zstd.compress(cctx, col->packed.p + col->packed.n, bound, body, body_n, ZSTD_LEVEL);
  if (zstd.is_error(packed)) return E_ZSTD;
  col->packed.n += packed;
  int64_t record[3] = {(int64_t)body_n, (int64_t)packed, col->page_levels};
  if (put(&col->pages, record, sizeof(record))) return E_MEMORY;
  /* the page's text bounds join the chunk's before its values go */
  if (col->page_has_text_bounds) {
    const uint8_t *min = col->values.p + col->min_at, *max = col->values.p + col->max_at;
    if (!col->has_stats) {
      col->has_stats = 1;
      if (set_bytes(&col->min_text, min, col->min_n) || set_bytes(&col->max_text, max, col->max_n)) return E_MEMORY;
    } else {
      if (compare_bytes(min, col->min_n, col->min_text.p, col->min_text.n) < 0 && set_bytes(&col->min_text, min, col->min_n)) return E_MEMORY;
      if (compare_bytes(max, col->max_n, col->max_text.p, col->max_text.n) > 0 && set_bytes(&col->max_text, max, col->max_n)) return E_MEMORY;
    }
  }
  col->def.out.n = col->rep.out.n = 0;
  col->def.run = col->rep.run = 0;
  col->values.n = LEVELS_ROOM;
  col->page.n = 0;
  col->page_levels = 0;
  col->bits = 8;
  col->page_has_text_bounds = 0;
  return OK;
}

/* The chunk's statistics, PLAIN-encoded (little-endian numbers, raw bytes), min then max. */
static int keep_bounds(Column *col) {
  col->bounds.n = 0;
  if (!col->has_stats) return OK;
  if (col->kind == INT64 || col->kind == INT32 || col->kind == BOOL) {
    int width = col->kind == INT64 ? 8 : col->kind == INT32 ? 4 : 1;
    uint8_t le[16];
    for (int b = 0; b < width; b++) {
      le[b] = (uint8_t)((uint64_t)col->min_i >> (8 * b));
      le[width + b] = (uint8_t)((uint64_t)col->max_i >> (8 * b));
    }
    col->bound_min_n = col->bound_max_n = (size_t)width;
    return put(&col->bounds, le, 2 * (size_t)width);
  }
  col->bound_min_n = col->min_text.n;
  col->bound_max_n = col->max_text.n;
  if (put(&col->bounds, col->min_text.p, col->min_text.n)) return E_MEMORY;
  return put(&col->bounds, col->max_text.p, col->max_text.n);
}

/* A sealed segment, mapped; its name is the spool_segment column. */
typedef struct {
  uint8_t *map;
  size_t length;
  char *name;
  uint32_t name_n;
} Segment;

/* ---- decoding spool fields ---- */

/* Non-negative decimal integer without sign or leading '+', at most 18 digits, else -1. */
static int64_t parse_unsigned(const uint8_t *s, size_t n) {
  if (n == 0 || n > 18) return -1;
  if (n > 1 && s[0] == '0') return -1;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* Base58 characters only: a program id is one (validated at ingest), and so a safe path segment. */
static int is_base58(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = s[i];
    int ok = (ch >= '1' && ch <= '9') || (ch >= 'A' && ch <= 'Z' && ch != 'I' && ch != 'O') || (ch >= 'a' && ch <= 'z' && ch != 'l');
    if (!ok) return 0;
  }
  return 1;
}

/* ---- text: JSON string literals and UTF-8 ---- */

static int hex4(const uint8_t *s, uint32_t *out) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    uint8_t ch = s[i];
    v <<= 4;
    if (ch >= '0' && ch <= '9') v |= ch - '0';
    else if (ch >= 'a' && ch <= 'f') v |= ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F') v |= ch - 'A' + 10;
    else return E_VALUE;
  }
  *out = v;
  return OK;
}

/* Length of the valid UTF-8 sequence starting at s (s[0] >= 0x80), or 0. */
static size_t utf8_sequence(const uint8_t *s, const uint8_t *end) {
  uint8_t b = s[0];
  size_t n;
  uint32_t min;
  uint32_t cp;
  if (b >= 0xc2 && b <= 0xdf) n = 2, min = 0x80, cp = b & 0x1f;
  else if (b >= 0xe0 && b <= 0xef) n = 3, min = 0x800, cp = b & 0x0f;
  else if (b >= 0xf0 && b <= 0xf4) n = 4, min = 0x10000, cp = b & 0x07;
  else return 0;
  if ((size_t)(end - s) < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

static int put_utf8(Buf *b, uint32_t cp) {
  uint8_t t[4];
  size_t n;
  if (cp < 0x80) t[0] = (uint8_t)cp, n = 1;
  else if (cp < 0x800) t[0] = 0xc0 | (cp >> 6), t[1] = 0x80 | (cp & 63), n = 2;
  else if (cp < 0x10000) t[0] = 0xe0 | (cp >> 12), t[1] = 0x80 | ((cp >> 6) & 63), t[2] = 0x80 | (cp & 63), n = 3;
  else t[0] = 0xf0 | (cp >> 18), t[1] = 0x80 | ((cp >> 12) & 63), t[2] = 0x80 | ((cp >> 6) & 63), t[3] = 0x80 | (cp & 63), n = 4;
  return put(b, t, n);
}

/* Copies bytes that must be valid UTF-8 (ASCII fast). */
static int put_checked(Buf *b, const uint8_t *s, size_t n) {
  const uint8_t *end = s + n, *p = s;
  for (; end - p >= 8; p += 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    if (word & 0x8080808080808080ULL) break;
  }
  while (p < end) {
    if (*p < 0x80) {
      p++;
      continue;
    }
    size_t k = utf8_sequence(p, end);
    if (!k) return E_VALUE;
    p += k;
  }
  return put(b, s, n);
}

/*
 * Decodes the JSON string literal at *s (which starts with '"') into b, up to its closing quote;
 * *s moves past it. Any escape JSON allows; a lone surrogate or a raw control byte is an error.
 */
static int json_string(Buf *b, const uint8_t **s, const uint8_t *end) {
  const uint8_t *p = *s + 1;
  for (;;) {
    const uint8_t *run = p;
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20) p++;
    if (p > run && put_checked(b, run, (size_t)(p - run))) return E_VALUE;
    if (p >= end || *p < 0x20) return E_VALUE;
    if (*p == '"') {
      *s = p + 1;
      return OK;
    }
    /* backslash */
    if (end - p < 2) return E_VALUE;
    uint8_t e = p[1];
    uint8_t ch;
    p += 2;
    switch (e) {
      case '"': ch = '"'; break;
      case '\\': ch = '\\'; break;
      case '/': ch = '/'; break;
      case 'b': ch = 8; break;
      case 'f': ch = 12; break;
      case 'n': ch = 10; break;
      case 'r': ch = 13; break;
      case 't': ch = 9; break;
      case 'u': {
        uint32_t cp, low;
        if (end - p < 4 || hex4(p, &cp)) return E_VALUE;
        p += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff) return E_VALUE;
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &low) || low < 0xdc00 || low > 0xdfff) return E_VALUE;
          p += 6;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        if (put_utf8(b, cp)) return E_MEMORY;
        continue;
      }
      default: return E_VALUE;
    }
    if (put(b, &ch, 1)) return E_MEMORY;
  }
}

static int is_null(const uint8_t *s, size_t n) { return n == 2 && s[0] == '\\' && s[1] == 'N'; }

static inline void count_level(Column *col) {
  col->level_count++;
  col->page_levels++;
}

/* Appends a PLAIN BYTE_ARRAY (4-byte length, bytes) from raw or JSON-encoded text. */
static int append_text(Column *col, const uint8_t *s, size_t n, int json) {
  if (reserve(&col->values, 4 + n)) return E_MEMORY;
  size_t at = col->values.n;
  col->values.n += 4;
  if (json) {
    const uint8_t *p = s;
    int rc = json_string(&col->values, &p, s + n);
    if (rc) return rc;
    if (p != s + n) return E_VALUE;
  } else if (put_checked(&col->values, s, n)) {
    return E_VALUE;
  }
  size_t len = col->values.n - at - 4;
  uint8_t *le = col->values.p + at;
  le[0] = len & 255, le[1] = (len >> 8) & 255, le[2] = (len >> 16) & 255, le[3] = (uint8_t)(len >> 24);
  text_stats(col, at + 4, len);
  return OK;
}

/* Appends one field to its column. */
static int append(const Segment *segments, Column *col, const uint8_t *s, size_t n, uint16_t segment) {
  if (col->kind == LOGS) {
    /* levels: list null → def 0; empty → def 1; element → def 3; rep 1 for every element after the first */
    if (is_null(s, n) || (n == 2 && s[0] == '[' && s[1] == ']')) {
      count_level(col);
      /* Parquet counts a leaf's nulls by level: a null or empty list is one null element */
      col->null_count++;
      return level(&col->rep, 0) || level(&col->def, is_null(s, n) ? 0 : 1) ? E_MEMORY : OK;
    }
    if (n < 2 || s[0] != '[' || s[n - 1] != ']') return E_VALUE;
    const uint8_t *p = s + 1, *end = s + n - 1;
    for (int first = 1;; first = 0) {
      if (p >= end || *p != '"') return E_VALUE;
      if (reserve(&col->values, 4)) return E_MEMORY;
      size_t at = col->values.n;
      col->values.n += 4;
      int rc = json_string(&col->values, &p, end);
      if (rc) return rc;
      size_t len = col->values.n - at - 4;
      uint8_t *le = col->values.p + at;
      le[0] = len & 255, le[1] = (len >> 8) & 255, le[2] = (len >> 16) & 255, le[3] = (uint8_t)(len >> 24);
      text_stats(col, at + 4, len);
      count_level(col);
      if (level(&col->rep, first ? 0 : 1) || level(&col->def, 3)) return E_MEMORY;
      if (p == end) return OK;
      if (*p != ',') return E_VALUE;
      p++;
    }
  }
  count_level(col);
  if (col->kind != SEGMENT && is_null(s, n)) {
    col->null_count++;
    return level(&col->def, 0);
  }
  switch (col->kind) {
    case SEGMENT:
    case RAW:
    case TEXT: {
      if (col->kind == SEGMENT) s = (const uint8_t *)segments[segment].name, n = segments[segment].name_n;
      int rc = append_text(col, s, n, col->kind == TEXT && n > 0 && s[0] == '"');
      if (rc) return rc;
      break;
    }
    case INT64:
    case INT32: {
      int64_t v = parse_unsigned(s, n);
      if (v < 0 || v > 9007199254740991LL || (col->kind == INT32 && v > 2147483647LL)) return E_VALUE;
      uint8_t le[8];
      for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)v >> (8 * i));
      if (put(&col->values, le, col->kind == INT32 ? 4 : 8)) return E_MEMORY;
      number_stats(col, v);
      break;
    }
    case BOOL: {
      int v;
      if (n == 4 && memcmp(s, "true", 4) == 0) v = 1;
      else if (n == 5 && memcmp(s, "false", 5) == 0) v = 0;
      else return E_VALUE;
      if (col->bits == 8) {
        uint8_t zero = 0;
        if (put(&col->values, &zero, 1)) return E_MEMORY;
        col->bits = 0;
      }
      if (v) col->values.p[col->values.n - 1] |= (uint8_t)(1 << col->bits);
      col->bits++;
      number_stats(col, v);
      break;
    }
    default:
      return E_ARGUMENT;
  }
  return level(&col->def, 1);
}

/*
 * Splits the line at `line` (which ends with a newline before `end`) at its tabs into
 * at most SPOOL_FIELDS fields; *next is the start of the following line. Returns the number of fields
 * found (SPOOL_FIELDS + 1 means too many). One pass, 16 bytes at a time where SSE2 exists.
 */
static int split_line(const uint8_t *line, const uint8_t *end, const uint8_t **fields, size_t *lengths, const uint8_t **next) {
  int k = 0;
  size_t start = 0, i = 0, n = (size_t)(end - line);
#define FIELD_ENDS_AT(at)                \
  do {                                   \
    if (k == SPOOL_FIELDS) return k + 1; \
    fields[k] = line + start;            \
    lengths[k++] = (at) - start;         \
    start = (at) + 1;                    \
    if (line[at] == '\n') {              \
      *next = line + (at) + 1;           \
      return k;                          \
    }                                    \
  } while (0)
#ifdef __SSE2__
  const __m128i tab = _mm_set1_epi8('\t'), newline = _mm_set1_epi8('\n');
  for (; i + 16 <= n; i += 16) {
    __m128i block = _mm_loadu_si128((const __m128i *)(line + i));
    unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, tab), _mm_cmpeq_epi8(block, newline)));
    while (mask) {
      size_t at = i + (size_t)__builtin_ctz(mask);
      mask &= mask - 1;
      FIELD_ENDS_AT(at);
    }
  }
#endif
  for (; i < n; i++)
    if (line[i] == '\t' || line[i] == '\n') FIELD_ENDS_AT(i);
#undef FIELD_ENDS_AT
  return 0; /* no newline: cannot happen in a chunk, which ends with one */
}

/* ---- row groups, partitions, threads ---- */

/*
 * Rows of a row group counted by (segment, account): what flush records per segment and adds to
 * each account's program counts, without reading the files back. The account is the spool field
 * as written (JSON-encoded when it starts with a quote).
 */
typedef struct {
  uint32_t account_at, account_n; /* in the job's group_text */
  uint32_t rows;
  uint16_t segment;
  int64_t last_received;
} Group;

/* One row group of one partition. */
typedef struct {
  uint8_t program[MAX_PROGRAM];
  uint8_t program_n;
  int64_t day;
  uint32_t rows;
  int64_t line_bytes;
  Column columns[SPOOL_FIELDS + 1];
  Buf groups, group_text; /* Group[], account bytes */
  uint32_t last_group;
} Job;

/* Counts a row in its (segment, account) group: mostly the previous row's (a batch is one account). */
static int count_row(Job *job, uint16_t segment, const uint8_t *account, size_t account_n, int64_t received) {
  Group *groups = (Group *)job->groups.p;
  uint32_t n = (uint32_t)(job->groups.n / sizeof(Group)), g = job->last_group;
  if (!(g < n && groups[g].segment == segment && groups[g].account_n == account_n && memcmp(job->group_text.p + groups[g].account_at, account, account_n) == 0)) {
    for (g = 0; g < n; g++)
      if (groups[g].segment == segment && groups[g].account_n == account_n && memcmp(job->group_text.p + groups[g].account_at, account, account_n) == 0) break;
    if (g == n) {
      Group fresh = {(uint32_t)job->group_text.n, (uint32_t)account_n, 0, segment, received};
      if (put(&job->group_text, account, account_n) || put(&job->groups, &fresh, sizeof(Group))) return E_MEMORY;
      groups = (Group *)job->groups.p;
    }
    job->last_group = g;
  }
  groups[g].rows++;
  if (received > groups[g].last_received) groups[g].last_received = received;
  return OK;
}

/* A thread's partition and its open row group. */
typedef struct {
  uint8_t program[MAX_PROGRAM];
  uint8_t program_n;
  int64_t day;
  Job *open;
} Partition;

/* A thread's state: its partitions (open-addressing table, -1 = empty) and closed row groups. */
typedef struct {
  Partition *parts;
  uint32_t part_n, part_cap;
  int32_t *slots;
  uint32_t slot_n;
  Buf done; /* Job *, closed row groups */
  void *cctx;
} Lane;

/* A piece of one segment, whole lines only. */
typedef struct {
  const uint8_t *from, *to;
  uint16_t segment;
} Chunk;

struct Run;

typedef struct {
  Segment *segments;
  uint32_t segment_n;
  Buf chunks; /* Chunk[] */
  uint32_t chunk_n;
  int32_t kinds[SPOOL_FIELDS + 1], fields[SPOOL_FIELDS + 1];
  int column_n;
  struct Run *run; /* between txw_start and txw_finish */
  Job **jobs;      /* after txw_finish: every row group, grouped by partition */
  uint32_t job_n;
} Ctx;

void *txw_new(void) { return calloc(1, sizeof(Ctx)); }

static void free_job(Job *job) {
  if (!job) return;
  for (int i = 0; i < SPOOL_FIELDS + 1; i++) column_free(&job->columns[i]);
  release(&job->groups);
  release(&job->group_text);
  free(job);
}

int64_t txw_finish(Ctx *c);

void txw_free(Ctx *c) {
  if (!c) return;
  if (c->run) txw_finish(c); /* never free what running threads use */
  for (uint32_t i = 0; i < c->segment_n; i++) {
    if (c->segments[i].map) munmap(c->segments[i].map, c->segments[i].length);
    free(c->segments[i].name);
  }
  free(c->segments);
  release(&c->chunks);
  for (uint32_t j = 0; j < c->job_n; j++) free_job(c->jobs[j]);
  free(c->jobs);
  free(c);
}

static uint64_t hash_partition(const uint8_t *p, size_t n, int64_t day) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)day ^ ((uint64_t)n << 56);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    memcpy(&word, p + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

static int grow_slots(Lane *lane) {
  uint32_t n = lane->slot_n ? lane->slot_n * 2 : 256;
  int32_t *slots = malloc(sizeof(int32_t) * n);
  if (!slots) return E_MEMORY;
  for (uint32_t i = 0; i < n; i++) slots[i] = -1;
  for (uint32_t p = 0; p < lane->part_n; p++) {
    uint64_t h = hash_partition(lane->parts[p].program, lane->parts[p].program_n, lane->parts[p].day) & (n - 1);
    while (slots[h] >= 0) h = (h + 1) & (n - 1);
    slots[h] = (int32_t)p;
  }
  free(lane->slots);
  lane->slots = slots;
  lane->slot_n = n;
  return OK;
}

/* The thread's partition of a line; a program id is checked once, when its partition is new. */
static Partition *partition_of(Lane *lane, const uint8_t *program, size_t n, int64_t day, int *error) {
  *error = E_MEMORY;
  if (lane->slot_n == 0 || (lane->part_n + 1) * 2 > lane->slot_n) {
    if (grow_slots(lane)) return NULL;
  }
  uint64_t h = hash_partition(program, n, day) & (lane->slot_n - 1);
  for (;;) {
    int32_t at = lane->slots[h];
    if (at < 0) break;
    Partition *p = &lane->parts[at];
    if (p->day == day && p->program_n == n && memcmp(p->program, program, n) == 0) return p;
    h = (h + 1) & (lane->slot_n - 1);
  }
  if (n == 0 || n > MAX_PROGRAM || !is_base58(program, n)) {
    *error = E_LINE;
    return NULL;
  }
  if (lane->part_n == lane->part_cap) {
    uint32_t cap = lane->part_cap ? lane->part_cap * 2 : 64;
    Partition *parts = realloc(lane->parts, sizeof(Partition) * cap);
    if (!parts) return NULL;
    lane->parts = parts;
    lane->part_cap = cap;
  }
  Partition *p = &lane->parts[lane->part_n];
  memset(p, 0, sizeof(Partition));
  memcpy(p->program, program, n);
  p->program_n = (uint8_t)n;
  p->day = day;
  lane->slots[h] = (int32_t)lane->part_n++;
  return p;
}

/*
 * Maps a sealed segment (path NUL-terminated) and cuts it into chunks of about CHUNK_BYTES at
 * line ends. An empty file adds nothing; a file whose last byte is not a newline is an error
 * (flush cuts torn tails before this).
 */
int32_t txw_add_segment(Ctx *c, const char *path, const uint8_t *name, int32_t name_n) {
  if (!c || name_n <= 0 || c->segment_n >= 65535) return E_ARGUMENT;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return E_IO;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return E_IO;
  }
  size_t length = (size_t)st.st_size;
  uint8_t *map = NULL;
  if (length > 0) {
    map = mmap(NULL, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
      close(fd);
      return E_IO;
    }
  }
  close(fd);
  Segment *segments = realloc(c->segments, sizeof(Segment) * (c->segment_n + 1));
  char *copy = malloc((size_t)name_n);
  if (!segments || !copy) {
    if (segments) c->segments = segments;
    free(copy);
    if (map) munmap(map, length);
    return E_MEMORY;
  }
  c->segments = segments;
  memcpy(copy, name, (size_t)name_n);
  uint16_t segment = (uint16_t)c->segment_n;
  segments[segment] = (Segment){map, length, copy, (uint32_t)name_n};
  c->segment_n++;
  if (length == 0) return OK;
  if (map[length - 1] != '\n') return E_LINE;
  for (const uint8_t *from = map, *end = map + length; from < end;) {
    const uint8_t *to = end;
    if ((size_t)(end - from) > CHUNK_BYTES) {
      const uint8_t *nl = memchr(from + CHUNK_BYTES, '\n', (size_t)(end - from - CHUNK_BYTES));
      to = nl ? nl + 1 : end;
    }
    Chunk chunk = {from, to, segment};
    if (put(&c->chunks, &chunk, sizeof(Chunk))) return E_MEMORY;
    c->chunk_n++;
    from = to;
  }
  return OK;
}

/*
 * Sets the output columns: kinds[i] and fields[i] (the spool field index, or 255 for the segment
 * name) for each of n columns, in the file's column order.
 */
int32_t txw_columns(Ctx *c, const int32_t *kinds, const int32_t *fields, int32_t n) {
  if (n <= 0 || n > SPOOL_FIELDS + 1) return E_ARGUMENT;
  for (int32_t i = 0; i < n; i++) {
    if (kinds[i] < RAW || kinds[i] > SEGMENT) return E_ARGUMENT;
    if (kinds[i] == SEGMENT ? fields[i] != SEGMENT_FIELD : (fields[i] < 0 || fields[i] >= SPOOL_FIELDS)) return E_ARGUMENT;
    c->kinds[i] = kinds[i];
    c->fields[i] = fields[i];
  }
  c->column_n = n;
  return OK;
}

typedef struct {
  Ctx *c;
  uint32_t max_rows;
  int64_t max_line_bytes;
  uint32_t next; /* the next chunk to take (atomic) */
  int32_t error; /* the first error (atomic) */
} Runner;

static void fail(Runner *runner, int error) {
  int32_t none = 0;
  __atomic_compare_exchange_n(&runner->error, &none, error, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static Job *open_job(const Ctx *c, Partition *partition) {
  Job *job = calloc(1, sizeof(Job));
  if (!job) return NULL;
  memcpy(job->program, partition->program, partition->program_n);
  job->program_n = partition->program_n;
  job->day = partition->day;
  for (int i = 0; i < SPOOL_FIELDS + 1; i++) {
    int used = i < c->column_n;
    if (column_start(&job->columns[i], used ? c->kinds[i] : -1, used ? c->fields[i] : -1)) {
      free_job(job);
      return NULL;
    }
  }
  partition->open = job;
  return job;
}

/* Compresses the last pages of the partition's open row group and files it as done. */
static int close_job(Lane *lane, Partition *partition) {
  Job *job = partition->open;
  partition->open = NULL;
  int rc = OK;
  for (int i = 0; i < SPOOL_FIELDS + 1 && rc == OK; i++) {
    Column *col = &job->columns[i];
    if (col->kind < 0) continue;
    rc = flush_page(col, lane->cctx);
    if (rc == OK) rc = keep_bounds(col);
    /* only the compressed pages and the bounds are needed from here on */
    release(&col->values);
    release(&col->page);
    release(&col->def.out);
    release(&col->rep.out);
  }
  if (rc == OK) rc = put(&lane->done, &job, sizeof(Job *));
  if (rc != OK) free_job(job);
  return rc;
}

static int encode_chunk(Runner *runner, Lane *lane, const Chunk *chunk) {
  const Ctx *c = runner->c;
  const uint8_t *fields[SPOOL_FIELDS];
  size_t lengths[SPOOL_FIELDS];
  for (const uint8_t *line = chunk->from; line < chunk->to;) {
    const uint8_t *next;
    int found = split_line(line, chunk->to, fields, lengths, &next);
    if (found < SPOOL_OLDEST_FIELDS || found > SPOOL_FIELDS) return E_LINE;
    for (int f = found; f < SPOOL_FIELDS; f++) {
      fields[f] = (const uint8_t *)"\\N";
      lengths[f] = 2;
    }
    int64_t received = parse_unsigned(fields[FIELD_RECEIVED_AT], lengths[FIELD_RECEIVED_AT]);
    if (received < 0) return E_LINE;
    int error;
    Partition *partition = partition_of(lane, fields[FIELD_PROGRAM], lengths[FIELD_PROGRAM], received / MS_PER_DAY, &error);
    if (!partition) return error;
    Job *job = partition->open ? partition->open : open_job(c, partition);
    if (!job) return E_MEMORY;
    for (int i = 0; i < c->column_n; i++) {
      Column *col = &job->columns[i];
      int field = col->field == SEGMENT_FIELD ? 0 : col->field;
      int rc = append(c->segments, col, fields[field], lengths[field], chunk->segment);
      if (rc) return rc;
      if (col->values.n >= LEVELS_ROOM + PAGE_BYTES && (rc = flush_page(col, lane->cctx))) return rc;
    }
    int rc = count_row(job, chunk->segment, fields[FIELD_ACCOUNT], lengths[FIELD_ACCOUNT], received);
    if (rc) return rc;
    job->rows++;
    job->line_bytes += (int64_t)(next - 1 - line);
    if (job->rows >= runner->max_rows || job->line_bytes >= runner->max_line_bytes) {
      rc = close_job(lane, partition);
      if (rc) return rc;
    }
    line = next;
  }
  return OK;
}

static void *run_lane(void *argument) {
  Runner *runner = ((void **)argument)[0];
  Lane *lane = ((void **)argument)[1];
  if (!(lane->cctx = zstd.create())) {
    fail(runner, E_MEMORY);
    return NULL;
  }
  for (;;) {
    uint32_t j = __atomic_fetch_add(&runner->next, 1, __ATOMIC_RELAXED);
    if (j >= runner->c->chunk_n || __atomic_load_n(&runner->error, __ATOMIC_RELAXED)) break;
    int rc = encode_chunk(runner, lane, (const Chunk *)runner->c->chunks.p + j);
    if (rc) {
      fail(runner, rc);
      break;
    }
  }
  for (uint32_t p = 0; p < lane->part_n; p++) {
    if (!lane->parts[p].open) continue;
    if (__atomic_load_n(&runner->error, __ATOMIC_RELAXED)) {
      free_job(lane->parts[p].open);
      lane->parts[p].open = NULL;
      continue;
    }
    int rc = close_job(lane, &lane->parts[p]);
    if (rc) fail(runner, rc);
  }
  return NULL;
}

static int compare_jobs(const void *a, const void *b) {
  const Job *x = *(Job *const *)a, *y = *(Job *const *)b;
  if (x->day != y->day) return x->day < y->day ? -1 : 1;
  if (x->program_n != y->program_n) return x->program_n < y->program_n ? -1 : 1;
  return memcmp(x->program, y->program, x->program_n);
}

/* A run of txw_start: its threads and their lanes. */
struct Run {
  Runner runner; /* first: a lane's runner pointer is its run's */
  Lane lanes[MAX_THREADS];
  void *arguments[MAX_THREADS][2];
  pthread_t threads[MAX_THREADS];
  int started;
  int32_t running; /* lanes still working (atomic) */
};

static void *run_lane_thread(void *argument) {
  run_lane(argument);
  struct Run *run = (struct Run *)((void **)argument)[0];
  __atomic_sub_fetch(&run->running, 1, __ATOMIC_RELEASE);
  return NULL;
}

/*
 * Starts encoding every added segment on up to `threads` threads, into row groups of at most
 * max_rows rows, closed early once their lines hold max_line_bytes; returns at once (0) or an
 * error. The caller polls txw_running, then calls txw_finish: its own thread (JavaScript's event
 * loop) stays free meanwhile.
 */
int32_t txw_start(Ctx *c, int32_t threads, uint32_t max_rows, int64_t max_line_bytes) {
  if (c->column_n == 0 || max_rows == 0 || max_line_bytes <= 0 || c->jobs || c->run) return E_ARGUMENT;
  if (!txw_available()) return E_ZSTD;
  if (threads < 1) threads = 1;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if ((uint32_t)threads > c->chunk_n) threads = c->chunk_n ? (int32_t)c->chunk_n : 1;
  struct Run *run = calloc(1, sizeof(struct Run));
  if (!run) return E_MEMORY;
  run->runner = (Runner){c, max_rows, max_line_bytes, 0, 0};
  run->running = threads;
  for (int t = 0; t < threads; t++) run->arguments[t][0] = &run->runner, run->arguments[t][1] = &run->lanes[t];
  for (; run->started < threads; run->started++)
    if (pthread_create(&run->threads[run->started], NULL, run_lane_thread, run->arguments[run->started])) break; /* fewer threads, same result */
  if (run->started == 0) {
    free(run);
    return E_MEMORY;
  }
  __atomic_sub_fetch(&run->running, threads - run->started, __ATOMIC_RELEASE);
  c->run = run;
  return OK;
}

/* How many threads of the current run are still working. */
int32_t txw_running(Ctx *c) { return c->run ? __atomic_load_n(&c->run->running, __ATOMIC_ACQUIRE) : 0; }

/*
 * Waits for the run's threads and gathers their row groups. Returns the number of row groups
 * (sorted by day and program, so a partition's are next to each other) or the first error.
 */
int64_t txw_finish(Ctx *c) {
  struct Run *run = c->run;
  if (!run) return E_ARGUMENT;
  c->run = NULL;
  for (int i = 0; i < run->started; i++) pthread_join(run->threads[i], NULL);
  uint32_t total = 0;
  for (int t = 0; t < run->started; t++) total += (uint32_t)(run->lanes[t].done.n / sizeof(Job *));
  c->jobs = malloc(sizeof(Job *) * (total ? total : 1));
  for (int t = 0; t < run->started; t++) {
    Lane *lane = &run->lanes[t];
    Job **done = (Job **)lane->done.p;
    for (size_t j = 0; j < lane->done.n / sizeof(Job *); j++) {
      if (c->jobs) c->jobs[c->job_n++] = done[j];
      else free_job(done[j]);
    }
    release(&lane->done);
    if (lane->cctx) zstd.free(lane->cctx);
    free(lane->parts);
    free(lane->slots);
  }
  int32_t error = run->runner.error;
  free(run);
  if (!c->jobs) return E_MEMORY;
  if (error) return error;
  qsort(c->jobs, c->job_n, sizeof(Job *), compare_jobs);
  return c->job_n;
}

/*
 * Row group j after txw_finish: its program into `program` (64 bytes); info = [program length, day,
 * rows]; out receives RESULT_SLOTS int64s per column: compressed pages address, their length,
 * page count, page records address (3 int64s each: uncompressed size, compressed size, level
 * count), level count, null count, has statistics, min address, min length, max address, max
 * length. Addresses stay valid until txw_free.
 */
int32_t txw_job(Ctx *c, int32_t j, uint8_t *program, int64_t *info, int64_t *out) {
  if (j < 0 || (uint32_t)j >= c->job_n) return E_ARGUMENT;
  Job *job = c->jobs[j];
  memcpy(program, job->program, job->program_n);
  info[0] = job->program_n;
  info[1] = job->day;
  info[2] = job->rows;
  for (int i = 0; i < c->column_n; i++) {
    Column *col = &job->columns[i];
    int64_t *o = out + RESULT_SLOTS * i;
    o[0] = (int64_t)(intptr_t)col->packed.p;
    o[1] = (int64_t)col->packed.n;
    o[2] = (int64_t)(col->pages.n / (3 * sizeof(int64_t)));
    o[3] = (int64_t)(intptr_t)col->pages.p;
    o[4] = col->level_count;
    o[5] = col->null_count;
    o[6] = col->has_stats;
    o[7] = (int64_t)(intptr_t)col->bounds.p;
    o[8] = (int64_t)col->bound_min_n;
    o[9] = (int64_t)(intptr_t)(col->bounds.p + col->bound_min_n);
    o[10] = (int64_t)col->bound_max_n;
  }
  return OK;
}

/*
 * The (segment, account) groups of row group j: count into counts[0]; then, when `groups` has room
 * for 4 int64s each (segment index, rows, last received_at, account length) and `text` for their
 * account bytes, fills both. Returns the total account bytes, or an error.
 */
int64_t txw_job_groups(Ctx *c, int32_t j, int64_t *counts, int64_t *groups, int64_t group_room, uint8_t *text, int64_t text_room) {
  if (j < 0 || (uint32_t)j >= c->job_n) return E_ARGUMENT;
  Job *job = c->jobs[j];
  int64_t n = (int64_t)(job->groups.n / sizeof(Group));
  counts[0] = n;
  if (n > group_room || (int64_t)job->group_text.n > text_room) return (int64_t)job->group_text.n;
  const Group *g = (const Group *)job->groups.p;
  size_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    groups[4 * i] = g[i].segment;
    groups[4 * i + 1] = g[i].rows;
    groups[4 * i + 2] = g[i].last_received;
    groups[4 * i + 3] = g[i].account_n;
    memcpy(text + at, job->group_text.p + g[i].account_at, g[i].account_n);
    at += g[i].account_n;
  }
  return (int64_t)at;
}
