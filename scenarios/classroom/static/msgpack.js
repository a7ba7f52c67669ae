// MessagePack, the subset our wire format uses (mpc_rr.core.Codec: msgspec structs as maps),
// encoded the way msgspec encodes it (smallest form of each int, string, binary, map, array),
// so that decode(encode(x)) and encode(decode(bytes)) are exact.  Binary -> Uint8Array,
// ints -> Number (BigInt beyond 2^53), floats -> Number (float64).  Plain JS, no build step.
"use strict";
(function (root) {
  const te = new TextEncoder();
  const td = new TextDecoder("utf-8", { fatal: true });

  function encode(value) {
    const out = [];
    put(value, out);
    let size = 0;
    for (const c of out) size += c.length;
    const buf = new Uint8Array(size);
    let o = 0;
    for (const c of out) { buf.set(c, o); o += c.length; }
    return buf;
  }

  function head(out, bytes) { out.push(Uint8Array.from(bytes)); }
  function be(n, width) {  // n >= 0, big-endian, width bytes
    const b = new Uint8Array(width);
    let v = BigInt(n);
    for (let i = width - 1; i >= 0; i--) { b[i] = Number(v & 0xffn); v >>= 8n; }
    return Array.from(b);
  }

  function putInt(v, out) {
    const n = BigInt(v);
    if (n >= 0n) {
      if (n < 128n) return head(out, [Number(n)]);
      if (n < 256n) return head(out, [0xcc, Number(n)]);
      if (n < 65536n) return head(out, [0xcd, ...be(n, 2)]);
      if (n < 4294967296n) return head(out, [0xce, ...be(n, 4)]);
      if (n < 18446744073709551616n) return head(out, [0xcf, ...be(n, 8)]);
      throw new RangeError("integer too large for msgpack");
    }
    if (n >= -32n) return head(out, [Number(n) & 0xff]);
    if (n >= -128n) return head(out, [0xd0, Number(n) & 0xff]);
    if (n >= -32768n) return head(out, [0xd1, ...be(n + 65536n, 2)]);
    if (n >= -2147483648n) return head(out, [0xd2, ...be(n + 4294967296n, 4)]);
    if (n >= -9223372036854775808n) return head(out, [0xd3, ...be(n + 18446744073709551616n, 8)]);
    throw new RangeError("integer too small for msgpack");
  }

  function putLen(len, out, fix, fixMax, c8, c16, c32) {
    if (fix !== null && len <= fixMax) return head(out, [fix | len]);
    if (c8 !== null && len < 256) return head(out, [c8, len]);
    if (len < 65536) return head(out, [c16, ...be(len, 2)]);
    return head(out, [c32, ...be(len, 4)]);
  }

  function put(v, out) {
    if (v === null || v === undefined) return head(out, [0xc0]);
    if (v === false) return head(out, [0xc2]);
    if (v === true) return head(out, [0xc3]);
    if (typeof v === "bigint") return putInt(v, out);
    if (typeof v === "number") {
      if (Number.isInteger(v)) return putInt(v, out);
      const b = new Uint8Array(9);
      b[0] = 0xcb;
      new DataView(b.buffer).setFloat64(1, v);
      return out.push(b);
    }
    if (typeof v === "string") {
      const s = te.encode(v);
      putLen(s.length, out, 0xa0, 31, 0xd9, 0xda, 0xdb);
      return out.push(s);
    }
    if (v instanceof Uint8Array) {
      putLen(v.length, out, null, 0, 0xc4, 0xc5, 0xc6);
      return out.push(v);
    }
    if (Array.isArray(v)) {
      putLen(v.length, out, 0x90, 15, null, 0xdc, 0xdd);
      for (const x of v) put(x, out);
      return;
    }
    if (typeof v === "object") {
      const keys = Object.keys(v);
      putLen(keys.length, out, 0x80, 15, null, 0xde, 0xdf);
      for (const k of keys) { put(k, out); put(v[k], out); }
      return;
    }
    throw new TypeError("cannot encode " + typeof v);
  }

  function decode(bytes) {
    const buf = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let o = 0;
    function need(n) { if (o + n > buf.length) throw new RangeError("truncated msgpack"); }
    function u(width) {
      need(width);
      let n = 0n;
      for (let i = 0; i < width; i++) n = (n << 8n) | BigInt(buf[o + i]);
      o += width;
      return n;
    }
    function num(n) { return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n; }
    function bytesOf(len) { need(len); const b = buf.slice(o, o + len); o += len; return b; }
    function str(len) { return td.decode(bytesOf(len)); }
    function arr(len) { const a = []; for (let i = 0; i < len; i++) a.push(read()); return a; }
    function map(len) {
      const m = {};
      for (let i = 0; i < len; i++) {
        const k = read();
        if (typeof k !== "string") throw new TypeError("map key is not a string");
        m[k] = read();
      }
      return m;
    }
    function signed(width) { const n = u(width); const top = 1n << BigInt(8 * width - 1); return num(n >= top ? n - (top << 1n) : n); }
    function read() {
      need(1);
      const b = buf[o++];
      if (b < 0x80) return b;
      if (b >= 0xe0) return b - 256;
      if ((b & 0xf0) === 0x80) return map(b & 0x0f);
      if ((b & 0xf0) === 0x90) return arr(b & 0x0f);
      if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
      switch (b) {
        case 0xc0: return null;
        case 0xc2: return false;
        case 0xc3: return true;
        case 0xc4: return bytesOf(Number(u(1)));
        case 0xc5: return bytesOf(Number(u(2)));
        case 0xc6: return bytesOf(Number(u(4)));
        case 0xca: { need(4); const f = dv.getFloat32(o); o += 4; return f; }
        case 0xcb: { need(8); const f = dv.getFloat64(o); o += 8; return f; }
        case 0xcc: return num(u(1));
        case 0xcd: return num(u(2));
        case 0xce: return num(u(4));
        case 0xcf: return num(u(8));
        case 0xd0: return signed(1);
        case 0xd1: return signed(2);
        case 0xd2: return signed(4);
        case 0xd3: return signed(8);
        case 0xd9: return str(Number(u(1)));
        case 0xda: return str(Number(u(2)));
        case 0xdb: return str(Number(u(4)));
        case 0xdc: return arr(Number(u(2)));
        case 0xdd: return arr(Number(u(4)));
        case 0xde: return map(Number(u(2)));
        case 0xdf: return map(Number(u(4)));
      }
      throw new TypeError("msgpack type 0x" + b.toString(16) + " is not used by our wire format");
    }
    const value = read();
    if (o !== buf.length) throw new RangeError("trailing bytes after the msgpack value");
    return value;
  }

  root.msgpack = { encode, decode };
})(typeof window !== "undefined" ? window : globalThis);
