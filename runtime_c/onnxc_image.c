/*
 * onnxc_image.c - the image decoder of the ImageDecoder operator.
 *
 * Compiled only into models that decode images (declared in onnxc_runtime.h).
 * Formats:
 * - BMP: uncompressed, 1, 4 and 8-bit paletted, 24 and 32-bit, bottom-up or
 *   top-down;
 * - PNM: P2, P3, P5 and P6 with maxval 255;
 * - TIFF: 8-bit gray, gray + alpha, RGB and RGBA in strips, uncompressed,
 *   PackBits, LZW or Deflate, with or without the horizontal predictor,
 *   either byte order;
 * - PNG: gray and palette of 1, 2, 4 or 8 bits, gray + alpha, RGB and RGBA of
 *   8 or 16 bits (16-bit samples read as their high byte, as Pillow does),
 *   interlaced or not;
 * - JPEG: baseline Huffman, gray or YCbCr (or RGB), any integral sampling
 *   factors, restart markers. It decodes as libjpeg does by default (the
 *   "islow" integer IDCT, "fancy" triangle upsampling of h2v1, h1v2 and h2v2
 *   chroma, box upsampling of other ratios, its fixed-point YCbCr to RGB), so
 *   the pixels equal Pillow's.
 * Grayscale output is Pillow's convert("L"), (19595 R + 38470 G + 7471 B +
 * 32768) >> 16, and BGR the RGB channels reversed. Anything else (JPEG 2000,
 * WebP, progressive, arithmetic or CMYK JPEG, 16-bit gray PNG, compressed
 * BMP, sides above 65535, more than 1 GiB of scratch...) is "cannot decode":
 * a size of 0 x 0; so is a stream that is corrupt or ends too soon.
 *
 * C99, no allocation, no libc: the decoder works in the caller's scratch
 * buffer, whose size onnxc_image_size computes from the header. Every read of
 * the stream is checked against its length and every size is checked before
 * use, so no input, however hostile, makes it read or write out of bounds.
 */
#include "onnxc_runtime.h"

#define MAX_SIDE 65535u
#define MAX_SCRATCH ((uint64_t)1 << 30)
#define ALIGN 16u

/* ---- the parts every format shares ------------------------------------- */

/* Byte copies and fills (no <string.h>: the runtime needs no libc). */
static void copy_bytes(uint8_t *to, const uint8_t *from, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) to[k] = from[k];
}
static void fill_bytes(void *to, unsigned value, size_t count) {
  uint8_t *bytes = (uint8_t *)to;
  size_t k;
  for (k = 0; k < count; ++k) bytes[k] = (uint8_t)value;
}
static int same_bytes(const uint8_t *a, const char *b, size_t count) {
  size_t k;
  for (k = 0; k < count; ++k) {
    if (a[k] != (uint8_t)b[k]) return 0;
  }
  return 1;
}

enum { NONE, BMP, PNM, TIFF, PNG, JPEG };

typedef struct {
  const uint8_t *s; /* the stream */
  size_t n;         /* its length */
} stream;

static unsigned at8(const stream *st, uint64_t at) { return at < st->n ? st->s[at] : 0u; }
static uint32_t le16(const stream *st, uint64_t at) {
  return at8(st, at) | (uint32_t)at8(st, at + 1) << 8;
}
static uint32_t le32(const stream *st, uint64_t at) {
  return le16(st, at) | le16(st, at + 2) << 16;
}
static uint32_t be16(const stream *st, uint64_t at) {
  return (uint32_t)at8(st, at) << 8 | at8(st, at + 1);
}
static uint32_t be32(const stream *st, uint64_t at) {
  return be16(st, at) << 16 | be16(st, at + 2);
}
/* Whether bytes [at, at + count) lie in the stream. */
static int holds(const stream *st, uint64_t at, uint64_t count) {
  return at <= st->n && count <= st->n - at;
}

/* One pixel of the output in the chosen pixel format. */
static void put_rgb(uint8_t *out, size_t i, int format, unsigned r, unsigned g, unsigned b) {
  if (format == ONNXC_IMAGE_GRAY) {
    uint32_t luma = (uint32_t)r * 19595u + (uint32_t)g * 38470u + (uint32_t)b * 7471u;
    out[i] = (uint8_t)((luma + 0x8000u) >> 16);
  } else if (format == ONNXC_IMAGE_BGR) {
    out[3 * i] = (uint8_t)b;
    out[3 * i + 1] = (uint8_t)g;
    out[3 * i + 2] = (uint8_t)r;
  } else {
    out[3 * i] = (uint8_t)r;
    out[3 * i + 1] = (uint8_t)g;
    out[3 * i + 2] = (uint8_t)b;
  }
}
static void put_gray(uint8_t *out, size_t i, int format, unsigned l) {
  if (format == ONNXC_IMAGE_GRAY) {
    out[i] = (uint8_t)l;
  } else {
    put_rgb(out, i, format, l, l, l);
  }
}

/* What a header says: the size, and the work bytes the body needs. */
typedef struct {
  int kind;
  uint32_t height, width;
  uint64_t work;
} header;

static int side_ok(uint32_t side) { return side >= 1 && side <= MAX_SIDE; }

/* ---- BMP ----------------------------------------------------------------- */

typedef struct {
  uint64_t pixels, palette, stride;
  unsigned bpp, entry, colors;
  int top_down;
} bmp_info;

static int bmp_parse(const stream *st, header *h, bmp_info *b) {
  uint32_t dib, w, raw_h, compression = 0, used = 0;
  if (st->n < 26 || st->s[0] != 'B' || st->s[1] != 'M') return 0;
  b->pixels = le32(st, 10);
  dib = le32(st, 14);
  if (dib == 12) {
    w = le16(st, 18);
    raw_h = le16(st, 20);
    b->bpp = le16(st, 24);
    b->entry = 3;
  } else if (dib >= 40 && dib <= 1024) {
    w = le32(st, 18);
    raw_h = le32(st, 22);
    b->bpp = le16(st, 28);
    compression = le32(st, 30);
    used = le32(st, 46);
    b->entry = 4;
  } else {
    return 0;
  }
  b->top_down = dib != 12 && (raw_h & 0x80000000u) != 0;
  if (b->top_down) raw_h = (uint32_t)(0u - raw_h); /* the magnitude, modulo 2^32 */
  if (compression != 0 || !side_ok(w) || !side_ok(raw_h)) return 0;
  if (b->bpp != 1 && b->bpp != 4 && b->bpp != 8 && b->bpp != 24 && b->bpp != 32) return 0;
  b->stride = ((uint64_t)w * b->bpp + 31) / 32 * 4;
  if (!holds(st, b->pixels, b->stride * raw_h)) return 0;
  b->palette = 14 + (uint64_t)dib;
  b->colors = 0;
  if (b->bpp <= 8) {
    b->colors = used ? used : 1u << b->bpp;
    if (b->colors > 256 || !holds(st, b->palette, (uint64_t)b->colors * b->entry)) return 0;
  }
  h->height = raw_h;
  h->width = w;
  h->work = 0;
  return 1;
}

static int bmp_decode(const stream *st, const header *h, uint8_t *out, int format) {
  bmp_info b;
  uint32_t x, y;
  header again;
  if (!bmp_parse(st, &again, &b)) return 0;
  for (y = 0; y < h->height; ++y) {
    uint64_t row = b.pixels + b.stride * (b.top_down ? y : h->height - 1 - y);
    for (x = 0; x < h->width; ++x) {
      size_t i = (size_t)y * h->width + x;
      if (b.bpp >= 24) {
        uint64_t p = row + (uint64_t)x * (b.bpp / 8);
        put_rgb(out, i, format, at8(st, p + 2), at8(st, p + 1), at8(st, p));
      } else {
        uint64_t bit = (uint64_t)x * b.bpp;
        unsigned byte = at8(st, row + bit / 8);
        unsigned index = (byte >> (8 - b.bpp - (unsigned)(bit % 8))) & ((1u << b.bpp) - 1);
        uint64_t p = b.palette + (uint64_t)index * b.entry;
        if (index >= b.colors) {
          put_rgb(out, i, format, 0, 0, 0);
        } else {
          put_rgb(out, i, format, at8(st, p + 2), at8(st, p + 1), at8(st, p));
        }
      }
    }
  }
  return 1;
}

/* ---- PNM ----------------------------------------------------------------- */

static int pnm_space(unsigned c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The next decimal number at *at (after blanks and comments), or -1. */
static long pnm_number(const stream *st, uint64_t *at, int comments) {
  long value = 0;
  int digits = 0;
  while (*at < st->n) {
    unsigned c = st->s[*at];
    if (pnm_space(c)) {
      ++*at;
    } else if (c == '#' && comments) {
      while (*at < st->n && st->s[*at] != '\n' && st->s[*at] != '\r') ++*at;
    } else {
      break;
    }
  }
  while (*at < st->n && st->s[*at] >= '0' && st->s[*at] <= '9') {
    if (value > 100000000L) return -1;
    value = value * 10 + (st->s[*at] - '0');
    ++digits;
    ++*at;
  }
  return digits ? value : -1;
}

typedef struct {
  uint64_t data;
  unsigned channels;
  int ascii;
} pnm_info;

static int pnm_parse(const stream *st, header *h, pnm_info *p) {
  uint64_t at = 2;
  long w, raw_h, maxval;
  unsigned kind = at8(st, 1);
  if (st->n < 3 || st->s[0] != 'P' || (kind != '2' && kind != '3' && kind != '5' && kind != '6'))
    return 0;
  if (!pnm_space(at8(st, 2)) && at8(st, 2) != '#') return 0;
  p->channels = kind == '3' || kind == '6' ? 3 : 1;
  p->ascii = kind == '2' || kind == '3';
  w = pnm_number(st, &at, 1);
  raw_h = pnm_number(st, &at, 1);
  maxval = pnm_number(st, &at, 1);
  if (w < 1 || raw_h < 1 || w > (long)MAX_SIDE || raw_h > (long)MAX_SIDE || maxval != 255) return 0;
  if (!pnm_space(at8(st, at))) return 0;
  p->data = at + 1;
  if (!p->ascii && !holds(st, p->data, (uint64_t)w * (uint64_t)raw_h * p->channels)) return 0;
  h->width = (uint32_t)w;
  h->height = (uint32_t)raw_h;
  h->work = 0;
  return 1;
}

static int pnm_decode(const stream *st, const header *h, uint8_t *out, int format) {
  pnm_info p;
  header again;
  uint64_t at, i, count = (uint64_t)h->height * h->width;
  if (!pnm_parse(st, &again, &p)) return 0;
  at = p.data;
  for (i = 0; i < count; ++i) {
    unsigned v[3];
    unsigned c;
    for (c = 0; c < p.channels; ++c) {
      if (p.ascii) {
        long value = pnm_number(st, &at, 0);
        if (value < 0 || value > 255) return 0;
        v[c] = (unsigned)value;
      } else {
        v[c] = at8(st, at++);
      }
    }
    if (p.channels == 3) {
      put_rgb(out, (size_t)i, format, v[0], v[1], v[2]);
    } else {
      put_gray(out, (size_t)i, format, v[0]);
    }
  }
  return 1;
}

/* ---- PNG: chunks, inflate, filters ------------------------------------- */

typedef struct {
  uint16_t count[16];
  uint16_t symbol[288];
} huffman;

typedef struct {
  const stream *st;
  uint64_t at;   /* the next byte */
  uint64_t left; /* bytes of the current IDAT chunk (or of a TIFF strip) from `at` */
  int contiguous; /* a TIFF strip: no chunk follows */
  uint32_t bits;
  unsigned nbits;
  int bad;
  uint8_t *out;
  uint64_t size, done;
  huffman lengths, distances;
  uint8_t palette[768];
  unsigned colors;
} inflater;

/* The next byte of the zlib stream, which runs through consecutive IDATs. */
static unsigned next_byte(inflater *z) {
  while (z->left == 0) {
    const stream *st = z->st;
    uint64_t chunk = z->at + 4; /* past the CRC */
    if (z->contiguous) {
      z->bad = 1;
      return 0;
    }
    uint32_t length = be32(st, chunk);
    if (!holds(st, chunk, 12 + (uint64_t)length) || be32(st, chunk + 4) != 0x49444154u) {
      z->bad = 1;
      return 0;
    }
    z->at = chunk + 8;
    z->left = length;
  }
  --z->left;
  return at8(z->st, z->at++);
}

static uint32_t need_bits(inflater *z, unsigned count) {
  uint32_t value;
  while (z->nbits < count) {
    z->bits |= (uint32_t)next_byte(z) << z->nbits;
    z->nbits += 8;
  }
  value = z->bits & (((uint32_t)1 << count) - 1u);
  z->bits = count < 32 ? z->bits >> count : 0;
  z->nbits -= count;
  return value;
}

/* Canonical Huffman code from code lengths; 0 if over-subscribed. */
static int build(huffman *h, const uint8_t *length, unsigned n) {
  uint16_t offsets[16];
  unsigned k;
  int left = 1;
  fill_bytes(h->count, 0, sizeof h->count);
  for (k = 0; k < n; ++k) h->count[length[k]]++;
  if (h->count[0] == n) return 1;
  for (k = 1; k < 16; ++k) {
    left = 2 * left - h->count[k];
    if (left < 0) return 0;
  }
  offsets[1] = 0;
  for (k = 1; k < 15; ++k) offsets[k + 1] = (uint16_t)(offsets[k] + h->count[k]);
  for (k = 0; k < n; ++k) {
    if (length[k]) h->symbol[offsets[length[k]]++] = (uint16_t)k;
  }
  return 1;
}

static int decode_symbol(inflater *z, const huffman *h) {
  int code = 0, first = 0, index = 0;
  unsigned length;
  for (length = 1; length < 16; ++length) {
    int count = h->count[length];
    code |= (int)need_bits(z, 1);
    if (code - count < first) return h->symbol[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
    if (z->bad) return -1;
  }
  return -1;
}

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                         15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                         67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int inflate_block(inflater *z) {
  for (;;) {
    int symbol = decode_symbol(z, &z->lengths);
    if (symbol < 0 || z->bad) return 0;
    if (symbol < 256) {
      if (z->done >= z->size) return 0;
      z->out[z->done++] = (uint8_t)symbol;
    } else if (symbol == 256) {
      return 1;
    } else {
      uint32_t length, distance;
      symbol -= 257;
      if (symbol >= 29) return 0;
      length = length_base[symbol] + need_bits(z, length_extra[symbol]);
      symbol = decode_symbol(z, &z->distances);
      if (symbol < 0 || symbol >= 30) return 0;
      distance = distance_base[symbol] + need_bits(z, distance_extra[symbol]);
      if (z->bad || distance > z->done || length > z->size - z->done) return 0;
      while (length--) {
        z->out[z->done] = z->out[z->done - distance];
        ++z->done;
      }
    }
  }
}

static int inflate_dynamic(inflater *z) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t length[320];
  unsigned nlen = need_bits(z, 5) + 257, ndist = need_bits(z, 5) + 1, ncode = need_bits(z, 4) + 4;
  unsigned k = 0;
  if (nlen > 286 || ndist > 30) return 0;
  fill_bytes(length, 0, sizeof length);
  for (k = 0; k < ncode; ++k) length[order[k]] = (uint8_t)need_bits(z, 3);
  if (!build(&z->lengths, length, 19)) return 0;
  k = 0;
  while (k < nlen + ndist) {
    int symbol = decode_symbol(z, &z->lengths);
    unsigned repeat, value = 0;
    if (symbol < 0 || z->bad) return 0;
    if (symbol < 16) {
      length[k++] = (uint8_t)symbol;
      continue;
    }
    if (symbol == 16) {
      if (k == 0) return 0;
      value = length[k - 1];
      repeat = 3 + need_bits(z, 2);
    } else if (symbol == 17) {
      repeat = 3 + need_bits(z, 3);
    } else {
      repeat = 11 + need_bits(z, 7);
    }
    if (k + repeat > nlen + ndist) return 0;
    while (repeat--) length[k++] = (uint8_t)value;
  }
  if (length[256] == 0) return 0;
  if (!build(&z->lengths, length, nlen) || !build(&z->distances, length + nlen, ndist)) return 0;
  return inflate_block(z);
}

static int inflate_fixed(inflater *z) {
  uint8_t length[288];
  unsigned k;
  for (k = 0; k < 288; ++k) length[k] = k < 144 ? 8 : k < 256 ? 9 : k < 280 ? 7 : 8;
  build(&z->lengths, length, 288);
  for (k = 0; k < 30; ++k) length[k] = 5;
  build(&z->distances, length, 30);
  return inflate_block(z);
}

static int inflate_zlib(inflater *z) {
  unsigned cmf = next_byte(z), flg = next_byte(z), last;
  if (z->bad || (cmf & 15) != 8 || (cmf * 256 + flg) % 31 != 0 || (flg & 32)) return 0;
  do {
    unsigned type;
    last = need_bits(z, 1);
    type = need_bits(z, 2);
    if (type == 0) {
      unsigned length, check;
      z->bits = 0;
      z->nbits = 0;
      length = next_byte(z);
      length |= next_byte(z) << 8;
      check = next_byte(z);
      check |= next_byte(z) << 8;
      if (z->bad || length != (~check & 0xFFFFu) || length > z->size - z->done) return 0;
      while (length--) z->out[z->done++] = (uint8_t)next_byte(z);
    } else if (type == 1) {
      if (!inflate_fixed(z)) return 0;
    } else if (type == 2) {
      if (!inflate_dynamic(z)) return 0;
    } else {
      return 0;
    }
    if (z->bad) return 0;
  } while (!last && z->done < z->size);
  return z->done == z->size;
}

typedef struct {
  unsigned type, channels, depth, passes;
  uint64_t first_chunk; /* the chunk after IHDR */
  uint64_t raw;         /* bytes of the inflated lines, filter bytes included */
} png_info;

/* The passes as (x0, y0, dx, dy): Adam7's seven of an interlaced image, else
 * the first of `whole`. */
static const uint8_t adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                    {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
static const uint8_t whole[1][4] = {{0, 0, 1, 1}};

/* How many of 0 .. size - 1 a pass starting at `start` in steps of `step` meets. */
static uint32_t pass_size(uint32_t size, unsigned start, unsigned step) {
  return size > start ? (size - start + step - 1) / step : 0;
}

/* Bytes of a line of `width` pixels, without its filter byte. */
static uint64_t png_line(const png_info *p, uint32_t width) {
  return ((uint64_t)width * p->channels * p->depth + 7) / 8;
}

static int png_parse(const stream *st, header *h, png_info *p) {
  uint32_t w, raw_h;
  unsigned k, interlace;
  int packed_ok, wide_ok;
  const uint8_t(*passes)[4];
  if (st->n < 33 || !same_bytes(st->s, "\211PNG\r\n\032\n", 8)) return 0;
  if (be32(st, 8) != 13 || be32(st, 12) != 0x49484452u) return 0;
  w = be32(st, 16);
  raw_h = be32(st, 20);
  p->depth = at8(st, 24);
  p->type = at8(st, 25);
  interlace = at8(st, 28);
  if (!side_ok(w) || !side_ok(raw_h) || at8(st, 26) || at8(st, 27) || interlace > 1) return 0;
  switch (p->type) {
    case 0: p->channels = 1; break;
    case 2: p->channels = 3; break;
    case 3: p->channels = 1; break;
    case 4: p->channels = 2; break;
    case 6: p->channels = 4; break;
    default: return 0;
  }
  /* 8 bits; 1, 2 or 4 for gray and palette; 16 (read as their high byte,
   * as Pillow does) for RGB, RGBA and gray + alpha */
  packed_ok = (p->type == 0 || p->type == 3) && (p->depth == 1 || p->depth == 2 || p->depth == 4);
  wide_ok = p->type != 0 && p->type != 3 && p->depth == 16;
  if (p->depth != 8 && !packed_ok && !wide_ok) return 0;
  p->first_chunk = 33;
  p->passes = interlace ? 7 : 1;
  passes = interlace ? adam7 : whole;
  p->raw = 0;
  for (k = 0; k < p->passes; ++k) {
    uint32_t pass_w = pass_size(w, passes[k][0], passes[k][2]);
    uint32_t pass_h = pass_size(raw_h, passes[k][1], passes[k][3]);
    if (pass_w && pass_h) p->raw += (png_line(p, pass_w) + 1) * pass_h;
  }
  h->width = w;
  h->height = raw_h;
  h->work = p->raw + sizeof(inflater) + ALIGN;
  return 1;
}

static unsigned paeth(unsigned a, unsigned b, unsigned c) {
  int p = (int)a + (int)b - (int)c;
  int pa = p > (int)a ? p - (int)a : (int)a - p;
  int pb = p > (int)b ? p - (int)b : (int)b - p;
  int pc = p > (int)c ? p - (int)c : (int)c - p;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the filters of `rows` lines of `stride` bytes (each after its filter
 * byte) at `raw`, `bpp` bytes a pixel. */
static int png_unfilter(uint8_t *raw, uint64_t stride, uint32_t rows, unsigned bpp) {
  uint64_t x;
  uint32_t y;
  for (y = 0; y < rows; ++y) {
    uint8_t *row = raw + y * (stride + 1), *line = row + 1;
    const uint8_t *prior = y ? row - stride : NULL; /* the previous line, unfiltered */
    unsigned filter = row[0];
    if (filter > 4) return 0;
    for (x = 0; x < stride; ++x) {
      unsigned a = x >= bpp ? line[x - bpp] : 0, b = prior ? prior[x] : 0;
      unsigned c = prior && x >= bpp ? prior[x - bpp] : 0, add = 0;
      if (filter == 1) add = a;
      if (filter == 2) add = b;
      if (filter == 3) add = (a + b) / 2;
      if (filter == 4) add = paeth(a, b, c);
      line[x] = (uint8_t)(line[x] + add);
    }
  }
  return 1;
}

/* Pixel `x` of an unfiltered line into output pixel `i`. */
static void png_pixel(const png_info *p, const inflater *z, const uint8_t *line, uint32_t x,
                      uint8_t *out, size_t i, int format) {
  unsigned step = p->depth / 8; /* bytes a sample, 0 when packed */
  const uint8_t *q = line + (uint64_t)x * p->channels * step;
  unsigned v = q[0];
  if (p->depth < 8) { /* packed samples, most significant first */
    uint64_t bit = (uint64_t)x * p->depth;
    v = (line[bit / 8] >> (8 - p->depth - (unsigned)(bit % 8))) & ((1u << p->depth) - 1u);
  }
  if (p->type == 2 || p->type == 6) {
    put_rgb(out, i, format, q[0], q[step], q[2 * step]);
  } else if (p->type == 3) {
    const uint8_t *c = z->palette + 3u * v;
    if (v >= z->colors) {
      put_rgb(out, i, format, 0, 0, 0);
    } else {
      put_rgb(out, i, format, c[0], c[1], c[2]);
    }
  } else {
    put_gray(out, i, format, p->depth < 8 ? v * 255u / ((1u << p->depth) - 1u) : v);
  }
}

static int png_decode(const stream *st, const header *h, uint8_t *out, uint8_t *work,
                      int format) {
  png_info p;
  header again;
  inflater *z = (inflater *)(void *)work;
  uint64_t chunk, at = 0;
  uint8_t *raw = work + (sizeof(inflater) + ALIGN - 1) / ALIGN * ALIGN;
  const uint8_t(*passes)[4];
  unsigned k;
  if (!png_parse(st, &again, &p)) return 0;
  fill_bytes(z, 0, sizeof *z);
  z->st = st;
  chunk = p.first_chunk;
  for (;;) { /* to the first IDAT, keeping the palette */
    uint32_t length = be32(st, chunk), type = be32(st, chunk + 4);
    if (!holds(st, chunk, 12 + (uint64_t)length)) return 0;
    if (type == 0x49444154u) break;
    if (type == 0x49454E44u) return 0; /* IEND before any IDAT */
    if (type == 0x504C5445u) {
      if (length % 3 || length > 768) return 0;
      copy_bytes(z->palette, st->s + chunk + 8, length);
      z->colors = length / 3;
    }
    chunk += 12 + (uint64_t)length;
  }
  if (p.type == 3 && z->colors == 0) return 0;
  z->at = chunk + 8;
  z->left = be32(st, chunk);
  z->out = raw;
  z->size = p.raw;
  if (!inflate_zlib(z)) return 0;
  passes = p.passes == 7 ? adam7 : whole;
  for (k = 0; k < p.passes; ++k) {
    const uint8_t *pass = passes[k];
    uint32_t pass_w = pass_size(h->width, pass[0], pass[2]);
    uint32_t pass_h = pass_size(h->height, pass[1], pass[3]), x, y;
    uint64_t stride = png_line(&p, pass_w);
    unsigned bpp = p.depth < 8 ? 1 : p.channels * p.depth / 8;
    if (!pass_w || !pass_h) continue;
    if (!png_unfilter(raw + at, stride, pass_h, bpp)) return 0;
    for (y = 0; y < pass_h; ++y) {
      const uint8_t *line = raw + at + y * (stride + 1) + 1;
      for (x = 0; x < pass_w; ++x) {
        uint64_t i = ((uint64_t)y * pass[3] + pass[1]) * h->width + (uint64_t)x * pass[2] + pass[0];
        png_pixel(&p, z, line, x, out, (size_t)i, format);
      }
    }
    at += (stride + 1) * pass_h;
  }
  return 1;
}

/* ---- TIFF ---------------------------------------------------------------- */

typedef struct {
  int big;                  /* big-endian ("MM") */
  uint64_t offsets, counts; /* tag entries of the strip offsets and byte counts */
  uint32_t strips, per_strip, compression, photometric, samples, predictor;
} tiff_info;

/* The work area of a TIFF: the decoder's state, then the samples. */
typedef struct {
  union {
    inflater z;
    struct {
      uint16_t prefix[4096], length[4096];
      uint8_t suffix[4096], first[4096];
    } lzw;
  } u;
} tiff_work;

#define TIFF_SAMPLES ((sizeof(tiff_work) + ALIGN - 1) / ALIGN * ALIGN)

static uint32_t t16(const stream *st, const tiff_info *t, uint64_t at) {
  return t->big ? be16(st, at) : le16(st, at);
}
static uint32_t t32(const stream *st, const tiff_info *t, uint64_t at) {
  return t->big ? be32(st, at) : le32(st, at);
}

/* Value `k` of the SHORT or LONG tag entry at `entry`; 0 past its count. */
static int tiff_value(const stream *st, const tiff_info *t, uint64_t entry, uint32_t k,
                      uint32_t *value) {
  uint32_t type = t16(st, t, entry + 2), count = t32(st, t, entry + 4);
  uint64_t size = type == 3 ? 2 : 4, base;
  if ((type != 3 && type != 4) || k >= count) return 0;
  base = size * count <= 4 ? entry + 8 : t32(st, t, entry + 8);
  if (!holds(st, base + size * k, size)) return 0;
  *value = size == 2 ? t16(st, t, base + size * k) : t32(st, t, base + size * k);
  return 1;
}

static int tiff_parse(const stream *st, header *h, tiff_info *t) {
  uint64_t ifd, entry;
  uint32_t count, k, w = 0, raw_h = 0, planar = 1;
  int have_offsets = 0;
  if (st->n < 8) return 0;
  if (st->s[0] == 'I' && st->s[1] == 'I') {
    t->big = 0;
  } else if (st->s[0] == 'M' && st->s[1] == 'M') {
    t->big = 1;
  } else {
    return 0;
  }
  if (t16(st, t, 2) != 42) return 0;
  ifd = t32(st, t, 4);
  count = t16(st, t, ifd);
  if (!holds(st, ifd, 2 + 12 * (uint64_t)count)) return 0;
  t->compression = 1;
  t->photometric = 99;
  t->samples = 1;
  t->per_strip = 0xFFFFFFFFu;
  t->counts = 0;
  t->predictor = 1;
  for (k = 0; k < count; ++k) {
    uint32_t tag, value = 0;
    entry = ifd + 2 + 12 * (uint64_t)k;
    tag = t16(st, t, entry);
    if (tag == 273) {
      t->offsets = entry;
      have_offsets = 1;
      continue;
    }
    if (tag == 279) {
      t->counts = entry;
      continue;
    }
    if (tag == 258) { /* every sample 8 bits */
      uint32_t j, n = t32(st, t, entry + 4);
      for (j = 0; j < n && j < 8; ++j) {
        if (!tiff_value(st, t, entry, j, &value) || value != 8) return 0;
      }
      continue;
    }
    if (tag != 256 && tag != 257 && tag != 259 && tag != 262 && tag != 277 && tag != 278 &&
        tag != 284 && tag != 317)
      continue;
    if (!tiff_value(st, t, entry, 0, &value)) return 0;
    if (tag == 256) w = value;
    if (tag == 257) raw_h = value;
    if (tag == 259) t->compression = value;
    if (tag == 262) t->photometric = value;
    if (tag == 277) t->samples = value;
    if (tag == 278) t->per_strip = value;
    if (tag == 284) planar = value;
    if (tag == 317) t->predictor = value;
  }
  if (!have_offsets || !side_ok(w) || !side_ok(raw_h) || planar != 1) return 0;
  if (t->predictor != 1 && t->predictor != 2) return 0;
  if (t->compression != 1 && t->compression != 5 && t->compression != 8 &&
      t->compression != 32773 && t->compression != 32946)
    return 0;
  if (t->photometric == 2 ? t->samples != 3 && t->samples != 4
                          : t->photometric > 1 || t->samples < 1 || t->samples > 2)
    return 0;
  if (t->per_strip == 0 || t->per_strip > raw_h) t->per_strip = raw_h;
  t->strips = (raw_h + t->per_strip - 1) / t->per_strip;
  h->width = w;
  h->height = raw_h;
  h->work = TIFF_SAMPLES + (uint64_t)w * raw_h * t->samples;
  return 1;
}

/* PackBits: `count` bytes at `at` into exactly `size` bytes at `to`. */
static int packbits(const stream *st, uint64_t at, uint64_t count, uint8_t *to, uint64_t size) {
  uint64_t end = at + count, done = 0;
  while (done < size) {
    unsigned n;
    if (at >= end) return 0;
    n = at8(st, at++);
    if (n < 128) {
      if (!holds(st, at, n + 1u) || at + n + 1 > end || done + n + 1 > size) return 0;
      copy_bytes(to + done, st->s + at, n + 1u);
      at += n + 1u;
      done += n + 1u;
    } else if (n > 128) {
      unsigned repeat = 257u - n;
      if (at >= end || done + repeat > size) return 0;
      fill_bytes(to + done, at8(st, at++), repeat);
      done += repeat;
    }
  }
  return 1;
}

/* TIFF's LZW: `count` bytes at `at` into exactly `size` bytes at `to`; codes
 * of 9 to 12 bits, most significant bit first, widened one code early. */
static int lzw(const stream *st, uint64_t at, uint64_t count, uint8_t *to, uint64_t size,
               tiff_work *work) {
  uint16_t *prefix = work->u.lzw.prefix, *length = work->u.lzw.length;
  uint8_t *suffix = work->u.lzw.suffix, *first = work->u.lzw.first;
  uint64_t end = at + count, done = 0, bit = at * 8;
  unsigned next = 258, width = 9, k;
  int previous = -1;
  if (count >= 2 && at8(st, at) == 0 && (at8(st, at + 1) & 1)) return 0; /* old-style LZW */
  for (k = 0; k < 256; ++k) {
    length[k] = 1;
    suffix[k] = first[k] = (uint8_t)k;
  }
  while (done < size) {
    unsigned code = 0, n;
    if (bit + width > end * 8) return 0;
    for (n = 0; n < width; ++n, ++bit) {
      code = code << 1 | ((at8(st, bit / 8) >> (7 - bit % 8)) & 1u);
    }
    if (code == 257) break;
    if (code == 256) {
      next = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (previous >= 0 && next < 4096) { /* the new entry: previous + a first byte */
      if (code > next) return 0;
      prefix[next] = (uint16_t)previous;
      length[next] = (uint16_t)(length[previous] + 1);
      first[next] = first[previous];
      suffix[next] = code == next ? first[previous] : first[code];
      ++next;
      if (next == (1u << width) - 1 && width < 12) ++width;
    } else if (previous < 0 && code > 255) {
      return 0;
    } else if (code >= next) {
      return 0;
    }
    { /* the string of `code`, written from its end back */
      unsigned c = code, span = length[code];
      uint64_t k2;
      for (k2 = span; k2 > 0; --k2) {
        if (done + k2 - 1 < size) to[done + k2 - 1] = suffix[c];
        c = prefix[c];
      }
      done = done + span < size ? done + span : size;
    }
    previous = (int)code;
  }
  return done == size;
}

static int tiff_decode(const stream *st, const header *h, uint8_t *out, uint8_t *work_area,
                       int format) {
  tiff_info t;
  header again;
  uint32_t k;
  uint64_t row_bytes, i, count = (uint64_t)h->height * h->width;
  tiff_work *state = (tiff_work *)(void *)work_area;
  uint8_t *work = work_area + TIFF_SAMPLES;
  if (!tiff_parse(st, &again, &t)) return 0;
  row_bytes = (uint64_t)h->width * t.samples;
  for (k = 0; k < t.strips; ++k) {
    uint32_t first = k * t.per_strip, offset, bytes;
    uint32_t rows = h->height - first < t.per_strip ? h->height - first : t.per_strip;
    uint64_t size = row_bytes * rows;
    if (!tiff_value(st, &t, t.offsets, k, &offset)) return 0;
    if (t.compression == 1) {
      if (!holds(st, offset, size)) return 0;
      copy_bytes(work + row_bytes * first, st->s + offset, (size_t)size);
      continue;
    }
    if (!t.counts || !tiff_value(st, &t, t.counts, k, &bytes)) return 0;
    if (!holds(st, offset, bytes)) return 0;
    if (t.compression == 32773) {
      if (!packbits(st, offset, bytes, work + row_bytes * first, size)) return 0;
    } else if (t.compression == 5) {
      if (!lzw(st, offset, bytes, work + row_bytes * first, size, state)) return 0;
    } else { /* zlib */
      inflater *z = &state->u.z;
      fill_bytes(z, 0, sizeof *z);
      z->st = st;
      z->at = offset;
      z->left = bytes;
      z->contiguous = 1;
      z->out = work + row_bytes * first;
      z->size = size;
      if (!inflate_zlib(z)) return 0;
    }
  }
  if (t.predictor == 2) { /* horizontal differencing: each sample after the pixel before */
    for (i = 0; i < h->height; ++i) {
      uint8_t *row = work + i * row_bytes;
      uint64_t x;
      for (x = t.samples; x < row_bytes; ++x) row[x] = (uint8_t)(row[x] + row[x - t.samples]);
    }
  }
  for (i = 0; i < count; ++i) {
    const uint8_t *p = work + i * t.samples;
    if (t.photometric == 2) {
      put_rgb(out, (size_t)i, format, p[0], p[1], p[2]);
    } else {
      put_gray(out, (size_t)i, format, t.photometric == 0 ? 255u - p[0] : p[0]);
    }
  }
  return 1;
}

/* ---- JPEG (baseline, as libjpeg decodes it) ----------------------------- */

typedef struct {
  int32_t maxcode[18], valptr[17], mincode[17];
  uint8_t values[256];
  int defined;
} jpeg_table;

typedef struct {
  unsigned id, h, v, tq, td, ta;
  uint32_t plane_w, plane_h; /* the decoded blocks, whole MCUs */
  uint32_t wide, high;       /* the component's own size (libjpeg's downsampled size) */
  uint64_t plane;            /* offset of its samples in the work area */
  int32_t predictor;
} jpeg_component;

typedef struct {
  jpeg_component c[3];
  unsigned count, hmax, vmax;
  uint32_t mcu_x, mcu_y;
} jpeg_frame;

typedef struct {
  const stream *st;
  uint64_t at;
  uint32_t bits;
  unsigned nbits;
  int marker; /* a marker met in the entropy data: zeros follow */
  int bad;
  uint16_t quant[4][64];
  jpeg_table dc[4], ac[4];
  jpeg_frame f;
  unsigned restart;
  int jfif, adobe, transform;
} jpeg_state;

static const uint8_t zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* The frame header (SOF0 or SOF1) at `at` (its length field). */
static int jpeg_sof(const stream *st, uint64_t at, jpeg_frame *j, header *h) {
  unsigned k, length = be16(st, at);
  uint32_t w, raw_h;
  uint64_t work = 0;
  if (at8(st, at + 2) != 8) return 0;
  raw_h = be16(st, at + 3);
  w = be16(st, at + 5);
  j->count = at8(st, at + 7);
  if ((j->count != 1 && j->count != 3) || length != 8 + 3 * j->count) return 0;
  if (!side_ok(w) || !side_ok(raw_h)) return 0;
  j->hmax = j->vmax = 1;
  for (k = 0; k < j->count; ++k) {
    jpeg_component *c = &j->c[k];
    unsigned sampling = at8(st, at + 9 + 3 * k);
    c->id = at8(st, at + 8 + 3 * k);
    c->h = sampling >> 4;
    c->v = sampling & 15;
    c->tq = at8(st, at + 10 + 3 * k);
    if (c->h < 1 || c->h > 4 || c->v < 1 || c->v > 4 || c->tq > 3) return 0;
    if (c->h > j->hmax) j->hmax = c->h;
    if (c->v > j->vmax) j->vmax = c->v;
  }
  j->mcu_x = (w + 8 * j->hmax - 1) / (8 * j->hmax);
  j->mcu_y = (raw_h + 8 * j->vmax - 1) / (8 * j->vmax);
  for (k = 0; k < j->count; ++k) {
    jpeg_component *c = &j->c[k];
    if (j->hmax % c->h || j->vmax % c->v) return 0; /* libjpeg: fractional sampling */
    c->plane_w = j->mcu_x * c->h * 8;
    c->plane_h = j->mcu_y * c->v * 8;
    c->wide = (uint32_t)(((uint64_t)w * c->h + j->hmax - 1) / j->hmax);
    c->high = (uint32_t)(((uint64_t)raw_h * c->v + j->vmax - 1) / j->vmax);
    c->plane = work;
    work += (uint64_t)c->plane_w * c->plane_h;
  }
  h->width = w;
  h->height = raw_h;
  h->work = work + sizeof(jpeg_state) + ALIGN;
  return 1;
}

/* Walks the markers up to the frame header; `scan` then decodes the rest. */
static int jpeg_parse(const stream *st, header *h, jpeg_frame *j, uint64_t *after) {
  uint64_t at = 2;
  if (st->n < 4 || st->s[0] != 0xFF || st->s[1] != 0xD8) return 0;
  for (;;) {
    unsigned marker;
    uint32_t length;
    if (at8(st, at) != 0xFF) return 0;
    while (at8(st, at) == 0xFF && at < st->n) ++at;
    if (at >= st->n) return 0;
    marker = st->s[at++];
    if (marker == 0xD8 || marker == 0xD9 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01)
      continue;
    length = be16(st, at);
    if (length < 2 || !holds(st, at, length)) return 0;
    if (marker == 0xC0 || marker == 0xC1) {
      if (!jpeg_sof(st, at, j, h)) return 0;
      *after = at + length;
      return 1;
    }
    if (marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)
      return 0; /* progressive, lossless, arithmetic: not decoded */
    at += length;
  }
}

static unsigned jpeg_bits(jpeg_state *j, unsigned count) {
  while (j->nbits < count) {
    unsigned byte = 0;
    const stream *st = j->st;
    if (!j->marker) {
      if (j->at >= st->n) {
        j->bad = 1; /* truncated: Pillow refuses it too */
      } else if (st->s[j->at] != 0xFF) {
        byte = st->s[j->at++];
      } else {
        uint64_t q = j->at + 1;
        while (q < st->n && st->s[q] == 0xFF) ++q;
        if (q >= st->n) {
          j->bad = 1;
        } else if (st->s[q] == 0) {
          byte = 0xFF;
          j->at = q + 1;
        } else {
          j->marker = st->s[q];
          j->at = q - 1;
        }
      }
    }
    j->bits = (j->bits << 8) | byte;
    j->nbits += 8;
  }
  j->nbits -= count;
  return (unsigned)((j->bits >> j->nbits) & (((uint32_t)1 << count) - 1u));
}

static unsigned jpeg_symbol(jpeg_state *j, const jpeg_table *t) {
  int32_t code = (int32_t)jpeg_bits(j, 1);
  unsigned length = 1;
  while (code > t->maxcode[length]) {
    code = (code << 1) | (int32_t)jpeg_bits(j, 1);
    if (++length > 16) return 0; /* libjpeg: a bad code reads as 0 */
  }
  return t->values[(t->valptr[length] + code - t->mincode[length]) & 255];
}

static int32_t extend(unsigned value, unsigned size) {
  uint32_t half = size ? (uint32_t)1 << (size - 1) : 0;
  if (size == 0) return 0;
  return value < half ? (int32_t)value - (int32_t)(2 * half) + 1 : (int32_t)value;
}

/* x >> n rounding toward minus infinity (an arithmetic shift), for any sign. */
static int64_t shift_down(int64_t x, unsigned n) {
  return x >= 0 ? x >> n : -((-x - 1) >> n) - 1;
}

/* libjpeg's post-IDCT range limit: the value modulo 1024 as a signed 10-bit
 * number, plus 128, clamped to 0..255. */
static uint8_t idct_limit(int64_t x) {
  int64_t wrapped = (int64_t)((uint64_t)x & 1023u);
  if (wrapped >= 512) wrapped -= 1024;
  wrapped += 128;
  return (uint8_t)(wrapped < 0 ? 0 : wrapped > 255 ? 255 : wrapped);
}

/* The islow IDCT of libjpeg (jidctint.c): 13-bit constants, two passes. */
static void idct(const int32_t *in, uint8_t *out, uint32_t stride) {
  int64_t ws[64];
  int pass, k;
  for (pass = 0; pass < 2; ++pass) {
    for (k = 0; k < 8; ++k) {
      /* pass 0: column k of `in` (dequantized); pass 1: row k of `ws` */
      int64_t v[8];
      int64_t z1, z2, z3, z4, z5, t0, t1, t2, t3, t10, t11, t12, t13, r[8];
      int i;
      for (i = 0; i < 8; ++i) v[i] = pass == 0 ? in[8 * i + k] : ws[8 * k + i];
      z2 = v[2];
      z3 = v[6];
      z1 = (z2 + z3) * 4433;
      t2 = z1 + z3 * -15137;
      t3 = z1 + z2 * 6270;
      t0 = (v[0] + v[4]) * 8192;
      t1 = (v[0] - v[4]) * 8192;
      t10 = t0 + t3;
      t13 = t0 - t3;
      t11 = t1 + t2;
      t12 = t1 - t2;
      t0 = v[7];
      t1 = v[5];
      t2 = v[3];
      t3 = v[1];
      z1 = t0 + t3;
      z2 = t1 + t2;
      z3 = t0 + t2;
      z4 = t1 + t3;
      z5 = (z3 + z4) * 9633;
      t0 *= 2446;
      t1 *= 16819;
      t2 *= 25172;
      t3 *= 12299;
      z1 *= -7373;
      z2 *= -20995;
      z3 = z3 * -16069 + z5;
      z4 = z4 * -3196 + z5;
      t0 += z1 + z3;
      t1 += z2 + z4;
      t2 += z2 + z3;
      t3 += z1 + z4;
      r[0] = t10 + t3;
      r[7] = t10 - t3;
      r[1] = t11 + t2;
      r[6] = t11 - t2;
      r[2] = t12 + t1;
      r[5] = t12 - t1;
      r[3] = t13 + t0;
      r[4] = t13 - t0;
      for (i = 0; i < 8; ++i) {
        if (pass == 0) {
          ws[8 * i + k] = shift_down(r[i] + (1 << 10), 11);
        } else {
          out[k * stride + (uint32_t)i] = idct_limit(shift_down(r[i] + (1 << 17), 18));
        }
      }
    }
  }
}

static int jpeg_block(jpeg_state *j, jpeg_component *c, uint8_t *work, uint32_t bx, uint32_t by) {
  int32_t coef[64];
  const uint16_t *q = j->quant[c->tq];
  const jpeg_table *dc = &j->dc[c->td], *ac = &j->ac[c->ta];
  int32_t difference, stored;
  unsigned size, k;
  if (!dc->defined || !ac->defined) return 0;
  fill_bytes(coef, 0, sizeof coef);
  size = jpeg_symbol(j, dc);
  if (size > 15) return 0;
  difference = extend(jpeg_bits(j, size), size);
  /* libjpeg refuses a DC value that leaves int32 and keeps it in 16 bits */
  if (difference > 0 ? c->predictor > INT32_MAX - difference
                     : c->predictor < INT32_MIN - difference)
    return 0;
  c->predictor += difference;
  stored = (int32_t)(((uint32_t)c->predictor + 32768u) & 0xFFFFu) - 32768;
  coef[0] = stored * q[0];
  for (k = 1; k < 64; ++k) {
    unsigned rs = jpeg_symbol(j, ac), run = rs >> 4;
    size = rs & 15;
    if (size == 0) {
      if (run != 15) break;
      k += 15;
      continue;
    }
    k += run;
    if (k > 63) k = 63; /* a run past the block lands on its last coefficient, as in libjpeg */
    coef[zigzag[k]] = extend(jpeg_bits(j, size), size) * q[k];
  }
  if (j->bad) return 0;
  if ((uint64_t)bx * 8 + 8 > c->plane_w || (uint64_t)by * 8 + 8 > c->plane_h) return 0;
  idct(coef, work + c->plane + ((uint64_t)by * 8) * c->plane_w + (uint64_t)bx * 8, c->plane_w);
  return 1;
}

/* After an interval: drop the bits left, pass the RSTn marker, reset the DC. */
static void jpeg_restart(jpeg_state *j, jpeg_component **scan, unsigned count) {
  const stream *st = j->st;
  unsigned k;
  j->nbits = 0;
  if (!j->marker) {
    while (j->at + 1 < st->n && !(st->s[j->at] == 0xFF && st->s[j->at + 1] != 0 &&
                                  st->s[j->at + 1] != 0xFF))
      ++j->at;
    if (j->at + 1 < st->n) j->marker = st->s[j->at + 1];
  }
  if (j->marker >= 0xD0 && j->marker <= 0xD7) {
    j->at += 2;
    j->marker = 0;
  }
  for (k = 0; k < count; ++k) scan[k]->predictor = 0;
}

static int jpeg_scan(jpeg_state *j, uint64_t at, uint8_t *work) {
  const stream *st = j->st;
  jpeg_component *scan[3];
  unsigned k, count = at8(st, at + 2);
  uint32_t mcus, m, blocks_x = 0;
  if (count < 1 || count > j->f.count || be16(st, at) != 6 + 2 * count) return 0;
  for (k = 0; k < count; ++k) {
    unsigned id = at8(st, at + 3 + 2 * k), tables = at8(st, at + 4 + 2 * k), i;
    for (i = 0; i < j->f.count && j->f.c[i].id != id; ++i) continue;
    if (i == j->f.count) return 0;
    scan[k] = &j->f.c[i];
    scan[k]->td = tables >> 4;
    scan[k]->ta = tables & 15;
    scan[k]->predictor = 0;
    if (scan[k]->td > 3 || scan[k]->ta > 3) return 0;
  }
  j->at = at + be16(st, at);
  j->nbits = 0;
  j->marker = 0;
  if (count == 1) { /* one component: its blocks in raster order */
    blocks_x = (scan[0]->wide + 7) / 8;
    mcus = blocks_x * ((scan[0]->high + 7) / 8);
  } else {
    mcus = j->f.mcu_x * j->f.mcu_y;
  }
  for (m = 0; m < mcus; ++m) {
    if (j->restart && m && m % j->restart == 0) jpeg_restart(j, scan, count);
    if (count == 1) {
      if (!jpeg_block(j, scan[0], work, m % blocks_x, m / blocks_x)) return 0;
      continue;
    }
    for (k = 0; k < count; ++k) {
      jpeg_component *c = scan[k];
      unsigned bx, by;
      for (by = 0; by < c->v; ++by) {
        for (bx = 0; bx < c->h; ++bx) {
          if (!jpeg_block(j, c, work, m % j->f.mcu_x * c->h + bx, m / j->f.mcu_x * c->v + by))
            return 0;
        }
      }
    }
  }
  return 1;
}

static int jpeg_tables(jpeg_state *j, unsigned marker, uint64_t at, uint32_t length) {
  const stream *st = j->st;
  uint64_t end = at + length;
  at += 2;
  while (at < end) {
    unsigned which = at8(st, at++);
    if (marker == 0xDB) { /* DQT */
      unsigned k, wide = which >> 4, slot = which & 15;
      if (slot > 3 || wide > 1 || at + 64 * (wide + 1) > end) return 0;
      for (k = 0; k < 64; ++k) {
        j->quant[slot][k] = (uint16_t)(wide ? be16(st, at + 2 * k) : at8(st, at + k));
      }
      at += 64 * (wide + 1);
    } else { /* DHT */
      unsigned k, total = 0, cls = which >> 4, slot = which & 15;
      int32_t code = 0;
      jpeg_table *t;
      if (cls > 1 || slot > 3 || at + 16 > end) return 0;
      t = cls ? &j->ac[slot] : &j->dc[slot];
      for (k = 1; k <= 16; ++k) {
        unsigned bits = at8(st, at + k - 1);
        t->valptr[k] = (int32_t)total;
        t->mincode[k] = code;
        code += (int32_t)bits;
        total += bits;
        t->maxcode[k] = bits ? code - 1 : -1;
        if (code > (1 << k)) return 0;
        code <<= 1;
      }
      t->maxcode[17] = 0x7FFFFFFF;
      if (total > 256 || at + 16 + total > end) return 0;
      for (k = 0; k < total; ++k) {
        t->values[k] = (uint8_t)at8(st, at + 16 + k);
        if (!cls && t->values[k] > 15) return 0;
      }
      t->defined = 1;
      at += 16 + total;
    }
  }
  return at == end;
}

/* The chroma sample of component c at output pixel (x, y), upsampled as libjpeg does. */
static unsigned jpeg_sample(const jpeg_state *j, const jpeg_component *c, const uint8_t *work,
                            uint32_t x, uint32_t y) {
  const uint8_t *plane = work + c->plane;
  uint32_t w = c->plane_w, sx = j->f.hmax / c->h, sy = j->f.vmax / c->v;
  int fancy_h = sx == 2 && c->wide > 2, fancy_v = sy == 2 && (sx == 1 || fancy_h);
  uint32_t col = x / sx, row = y / sy, near = row;
  unsigned sum[3];
  int d;
  if (fancy_v) { /* the nearer of the rows above and below, clamped to the component */
    if (y % 2 == 0) {
      near = row ? row - 1 : 0;
    } else {
      near = row + 1 < c->high ? row + 1 : row;
    }
  }
  if (!fancy_h && !fancy_v) return plane[row * w + col];
  if (!fancy_h) { /* h1v2 */
    return (3u * plane[row * w + col] + plane[near * w + col] + (y % 2 ? 2u : 1u)) >> 2;
  }
  for (d = -1; d <= 1; ++d) {
    uint32_t k = d < 0 ? (col ? col - 1 : col) : d > 0 ? (col + 1 < c->wide ? col + 1 : col) : col;
    sum[d + 1] = fancy_v ? 3u * plane[row * w + k] + plane[near * w + k] : plane[row * w + k];
  }
  if (fancy_v) { /* h2v2 */
    if (x % 2 == 0) return col == 0 ? (sum[1] * 4 + 8) >> 4 : (sum[1] * 3 + sum[0] + 8) >> 4;
    return col + 1 == c->wide ? (sum[1] * 4 + 7) >> 4 : (sum[1] * 3 + sum[2] + 7) >> 4;
  }
  if (x % 2 == 0) return col == 0 ? sum[1] : (sum[1] * 3 + sum[0] + 1) >> 2; /* h2v1 */
  return col + 1 == c->wide ? sum[1] : (sum[1] * 3 + sum[2] + 2) >> 2;
}

static unsigned clamp255(int32_t v) { return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v; }

static int jpeg_decode(const stream *st, const header *h, uint8_t *out, uint8_t *work,
                       int format) {
  jpeg_state *j = (jpeg_state *)(void *)work;
  uint8_t *planes = work + (sizeof(jpeg_state) + ALIGN - 1) / ALIGN * ALIGN;
  header again;
  uint64_t at = 2, frame_end = 0;
  uint32_t x, y;
  int scans = 0, rgb;
  fill_bytes(j, 0, sizeof *j);
  j->st = st;
  j->transform = -1;
  if (!jpeg_parse(st, &again, &j->f, &frame_end)) return 0;
  fill_bytes(planes, 0, (size_t)(h->work - sizeof(jpeg_state) - ALIGN));
  for (;;) { /* every marker, tables before and after the frame */
    unsigned marker;
    uint32_t length;
    if (at8(st, at) != 0xFF) { /* garbage before a marker: libjpeg skips it */
      while (at < st->n && st->s[at] != 0xFF) ++at;
    }
    while (at < st->n && st->s[at] == 0xFF) ++at;
    if (at >= st->n) return scans > 0 ? 1 : 0;
    marker = st->s[at++];
    if (marker == 0xD9) break;
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 || marker == 0)
      continue;
    length = be16(st, at);
    if (length < 2 || !holds(st, at, length)) return 0;
    if (marker == 0xDB || marker == 0xC4) {
      if (!jpeg_tables(j, marker, at, length)) return 0;
    } else if (marker == 0xDD) {
      j->restart = be16(st, at + 2);
    } else if (marker == 0xE0 && length >= 7 && same_bytes(st->s + at + 2, "JFIF", 5)) {
      j->jfif = 1;
    } else if (marker == 0xEE && length >= 12 && same_bytes(st->s + at + 2, "Adobe", 5)) {
      j->adobe = 1;
      j->transform = (int)at8(st, at + 13);
    } else if (marker == 0xDA) {
      if (at < frame_end || !jpeg_scan(j, at, planes)) return 0;
      ++scans;
      at = j->at; /* the entropy data ends at the next marker */
      while (at + 1 < st->n && !(st->s[at] == 0xFF && st->s[at + 1] != 0 &&
                                 (st->s[at + 1] < 0xD0 || st->s[at + 1] > 0xD7)))
        ++at;
      continue;
    }
    at += length;
  }
  if (!scans) return 0;
  /* libjpeg's choice of colour space for three components */
  rgb = j->f.count == 3 && !j->jfif &&
        (j->adobe ? j->transform == 0
                  : j->f.c[0].id == 'R' && j->f.c[1].id == 'G' && j->f.c[2].id == 'B');
  for (y = 0; y < h->height; ++y) {
    for (x = 0; x < h->width; ++x) {
      size_t i = (size_t)y * h->width + x;
      unsigned luma = jpeg_sample(j, &j->f.c[0], planes, x, y);
      if (j->f.count == 1) {
        put_gray(out, i, format, luma);
      } else {
        unsigned cb = jpeg_sample(j, &j->f.c[1], planes, x, y);
        unsigned cr = jpeg_sample(j, &j->f.c[2], planes, x, y);
        if (rgb) {
          put_rgb(out, i, format, luma, cb, cr);
        } else {
          int32_t b = (int32_t)cb - 128, r = (int32_t)cr - 128, l = (int32_t)luma;
          int32_t red = (int32_t)shift_down((int64_t)91881 * r + 32768, 16);
          int32_t blue = (int32_t)shift_down((int64_t)116130 * b + 32768, 16);
          int32_t green = (int32_t)shift_down((int64_t)-22554 * b + 32768 - (int64_t)46802 * r, 16);
          put_rgb(out, i, format, clamp255(l + red), clamp255(l + green), clamp255(l + blue));
        }
      }
    }
  }
  return 1;
}

/* ---- the entry points ---------------------------------------------------- */

/* The header of any format, and the scratch bytes: pixels, then work. */
static uint64_t parse_any(const stream *st, header *h) {
  union {
    bmp_info b;
    pnm_info p;
    tiff_info t;
    png_info g;
  } info;
  uint64_t pixels, unused;
  h->kind = NONE;
  h->height = h->width = 0;
  h->work = 0;
  if (bmp_parse(st, h, &info.b)) {
    h->kind = BMP;
  } else if (pnm_parse(st, h, &info.p)) {
    h->kind = PNM;
  } else if (tiff_parse(st, h, &info.t)) {
    h->kind = TIFF;
  } else if (png_parse(st, h, &info.g)) {
    h->kind = PNG;
  } else if (st->n >= 4 && st->s[0] == 0xFF && st->s[1] == 0xD8) {
    jpeg_frame frame;
    if (jpeg_parse(st, h, &frame, &unused)) h->kind = JPEG;
  }
  if (h->kind == NONE) {
    h->height = h->width = 0;
    return 0;
  }
  pixels = ((uint64_t)h->height * h->width * 3 + ALIGN - 1) / ALIGN * ALIGN;
  if (pixels + h->work > MAX_SCRATCH || pixels + h->work > (uint64_t)PTRDIFF_MAX) {
    h->kind = NONE;
    h->height = h->width = 0;
    return 0;
  }
  return pixels + h->work;
}

ptrdiff_t onnxc_image_size(const uint8_t *data, ptrdiff_t length, ptrdiff_t *height,
                           ptrdiff_t *width) {
  stream st;
  header h;
  uint64_t bytes;
  st.s = data;
  st.n = data && length > 0 ? (size_t)length : 0;
  bytes = parse_any(&st, &h);
  *height = (ptrdiff_t)h.height;
  *width = (ptrdiff_t)h.width;
  return (ptrdiff_t)bytes;
}

int onnxc_image_decode(const uint8_t *data, ptrdiff_t length, uint8_t *scratch,
                       ptrdiff_t scratch_bytes, int pixel_format) {
  stream st;
  header h;
  uint64_t bytes, pixels;
  uint8_t *work;
  st.s = data;
  st.n = data && length > 0 ? (size_t)length : 0;
  bytes = parse_any(&st, &h);
  if (h.kind == NONE || scratch == NULL || scratch_bytes < 0 || (uint64_t)scratch_bytes < bytes)
    return 0;
  pixels = ((uint64_t)h.height * h.width * 3 + ALIGN - 1) / ALIGN * ALIGN;
  work = scratch + pixels;
  switch (h.kind) {
    case BMP: return bmp_decode(&st, &h, scratch, pixel_format);
    case PNM: return pnm_decode(&st, &h, scratch, pixel_format);
    case TIFF: return tiff_decode(&st, &h, scratch, work, pixel_format);
    case PNG: return png_decode(&st, &h, scratch, work, pixel_format);
    case JPEG: return jpeg_decode(&st, &h, scratch, work, pixel_format);
    default: return 0;
  }
}
